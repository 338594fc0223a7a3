// repl_prompt.cpp: the libedit line editor of the REPL (see repl_prompt.hpp).
// Ctrl-C: the prompt's SIGINT handler has no SA_RESTART, so el_gets returns NULL with
// errno EINTR; we report kInterrupted and libedit starts the next line empty.
#include "app/repl_prompt.hpp"

#include <histedit.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "app/repl_complete.hpp"
#include "app/repl_worker.hpp"

namespace warplab::app::repl {
namespace {

constexpr int kHistorySize = 1000;
constexpr size_t kMaxListed = 200;  // candidates shown below the line

int terminal_width() {
  winsize ws = {};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

// Candidates in columns, as shells list them.
void list_columns(const std::vector<std::string>& words) {
  size_t width = 0;
  for (const auto& w : words) width = std::max(width, w.size());
  const size_t col = width + 2;
  const size_t per_line = std::max<size_t>(1, static_cast<size_t>(terminal_width()) / col);
  const size_t shown = std::min(words.size(), kMaxListed);
  std::string out = "\n";
  for (size_t i = 0; i < shown; ++i) {
    out += words[i];
    if ((i + 1) % per_line == 0 || i + 1 == shown) out += "\n";
    else out += std::string(col - words[i].size(), ' ');
  }
  if (shown < words.size()) out += "... (" + std::to_string(words.size() - shown) + " more)\n";
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
}

}  // namespace

std::string history_path() {
  namespace fs = std::filesystem;
  fs::path dir;
  const char* state = std::getenv("XDG_STATE_HOME");
  if (state && *state == '/') dir = state;  // the XDG spec ignores relative paths
  else if (const char* home = std::getenv("HOME"); home && *home) dir = fs::path(home) / ".local/state";
  else return {};
  return (dir / "warplab" / "history").string();
}

LineEditor::LineEditor(std::string history_file, Completer completer)
    : history_file_(std::move(history_file)), completer_(std::move(completer)) {
  HistEvent ev;
  hist_ = ::history_init();
  ::history(hist_, &ev, H_SETSIZE, kHistorySize);
  ::history(hist_, &ev, H_SETUNIQUE, 1);
  if (!history_file_.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(history_file_).parent_path(), ec);
    ::history(hist_, &ev, H_LOAD, history_file_.c_str());  // a first run has none: fine
  }
  el_ = ::el_init("warplab", stdin, stdout, stderr);
  ::el_set(el_, EL_CLIENTDATA, this);
  ::el_set(el_, EL_EDITOR, "emacs");
  ::el_set(el_, EL_PROMPT, &LineEditor::on_prompt);
  ::el_set(el_, EL_HIST, ::history, hist_);
  ::el_set(el_, EL_ADDFN, "warplab-complete", "complete a Lua name", &LineEditor::on_tab);
  ::el_set(el_, EL_BIND, "^I", "warplab-complete", nullptr);
  ::el_source(el_, nullptr);  // the user's ~/.editrc may rebind keys
}

LineEditor::~LineEditor() {
  ::el_end(el_);
  ::history_end(hist_);
}

LineEditor::Status LineEditor::read(const std::string& prompt, std::string& line) {
  prompt_ = prompt;
  int count = 0;
  errno = 0;
  const char* text = ::el_gets(el_, &count);
  if (!text) {
    const bool interrupted = (count < 0 && errno == EINTR) || take_interrupts() > 0;
    take_interrupts();
    return interrupted ? Status::kInterrupted : Status::kEof;
  }
  line.assign(text, static_cast<size_t>(count));
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return Status::kLine;
}

void LineEditor::remember(const std::string& line) {
  if (line.find_first_not_of(" \t") == std::string::npos) return;
  HistEvent ev;
  ::history(hist_, &ev, H_ENTER, line.c_str());
  if (!history_file_.empty()) ::history(hist_, &ev, H_SAVE, history_file_.c_str());
}

const char* LineEditor::on_prompt(editline* el) {
  LineEditor* self = nullptr;
  ::el_get(el, EL_CLIENTDATA, &self);
  return self ? self->prompt_.c_str() : "> ";
}

unsigned char LineEditor::on_tab(editline* el, int) {
  LineEditor* self = nullptr;
  ::el_get(el, EL_CLIENTDATA, &self);
  return self ? self->tab() : CC_ERROR;
}

// Inserts the longest common extension of the candidates; lists them when there is
// nothing to insert and more than one remains.
unsigned char LineEditor::tab() {
  const LineInfo* li = ::el_line(el_);
  const std::string before(li->buffer, li->cursor);
  const CompletionWord w = completion_word(before);
  if (!w.valid) return CC_REFRESH_BEEP;
  const Completion c = completer_(before);
  if (!c.note.empty()) {
    std::fprintf(stdout, "\n%s\n", c.note.c_str());
    return CC_REDISPLAY;
  }
  if (c.candidates.empty()) return CC_REFRESH_BEEP;
  const std::string common = common_prefix(c.candidates);
  if (common.size() > w.partial.size()) {
    ::el_insertstr(el_, common.substr(w.partial.size()).c_str());
    return CC_REFRESH;
  }
  if (c.candidates.size() == 1) return CC_REFRESH;  // already complete
  list_columns(c.candidates);
  return CC_REDISPLAY;
}

}  // namespace warplab::app::repl
