// repl/prompt.hpp: the REPL's line editor: libedit (histedit.h) with emacs keys, history
// kept in a file, and Tab asking a completer for candidates (the worker answers). Used only
// when stdin is a terminal.
#pragma once
#include <functional>
#include <string>
#include <vector>

struct editline;
struct history;

namespace warplab::app::repl {

struct Completion {
  std::vector<std::string> candidates;  // names that extend the word at the cursor
  std::string note;                     // a line to show instead (e.g. the worker died)
};

class LineEditor {
 public:
  using Completer = std::function<Completion(const std::string& line_to_cursor)>;
  enum class Input { kLine, kInterrupted, kEof };  // what read() got

  // `history_file` empty: history for this session only.
  LineEditor(std::string history_file, Completer completer);
  ~LineEditor();
  LineEditor(const LineEditor&) = delete;
  LineEditor& operator=(const LineEditor&) = delete;

  // One line without its newline; kInterrupted after Ctrl-C (the line is dropped).
  Input read(const std::string& prompt, std::string& line);
  // Adds a line to the history and saves the history file.
  void remember(const std::string& line);
  // The next read() starts with `text` already typed (editable).
  void prefill(const std::string& text);

 private:
  static unsigned char on_tab(editline* el, int ch);
  static const char* on_prompt(editline* el);
  unsigned char tab();

  editline* el_ = nullptr;
  history* hist_ = nullptr;
  std::string prompt_;
  std::string history_file_;
  Completer completer_;
};

// Whether the next input is already there: a paste at the terminal (`terminal`: bytes read
// and not yet used, or waiting), more of a pipe or file on stdin (or its end).
bool input_waiting(bool terminal);

// $XDG_STATE_HOME/warplab/history, else ~/.local/state/warplab/history; "" without HOME.
std::string history_path();

}  // namespace warplab::app::repl
