// repl/prompt.cpp: the libedit line editor of the REPL (prompt.hpp). Ctrl-C: our character
// reader returns -1 with errno EINTR when the interrupt pipe (worker.hpp) wakes it; el_gets
// then returns NULL and the next line starts empty.
#include "app/repl/prompt.hpp"

#include <histedit.h>
#include <langinfo.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cwchar>
#include <filesystem>
#include <iostream>
#include <string_view>

#include "app/repl/complete.hpp"
#include "app/repl/worker.hpp"
#include "sys/write.hpp"

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
    if ((i + 1) % per_line == 0 || i + 1 == shown)
      out += "\n";
    else
      out += std::string(col - words[i].size(), ' ');
  }
  if (shown < words.size()) out += "... (" + std::to_string(words.size() - shown) + " more)\n";
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
}

// True for a regular file (a link to one too); false for a FIFO, a device, a folder, none.
bool regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Bytes read from the terminal and not yet decoded: a paste arrives in one read(2) of up
// to 64 KiB instead of two system calls per byte.
struct Pending {
  unsigned char bytes[1 << 16];
  std::size_t at = 0, end = 0;
  std::size_t left() const { return end - at; }
};
Pending g_in;
// What the line being read held that is not text in the terminal's encoding: the count of
// such bytes and the first of them, said once the line is read (LineEditor::read).
std::size_t g_bad_bytes = 0;
unsigned char g_first_bad = 0;

// Waits for stdin or Ctrl-C and appends what stdin has to g_in. 1: read something; 0: end
// of file; -1: Ctrl-C (errno EINTR) or a failed read.
int fill() {
  for (;;) {
    pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {interrupt_fd(), POLLIN, 0}};
    if (::poll(fds, interrupt_fd() >= 0 ? 2 : 1, -1) < 0) {
      if (errno == EINTR) continue;  // the pipe tells whether it was Ctrl-C
      return -1;
    }
    if (fds[1].revents & POLLIN) {
      errno = EINTR;
      return -1;
    }
    if (g_in.at > 0) {  // keep an unfinished character at the front
      std::memmove(g_in.bytes, g_in.bytes + g_in.at, g_in.left());
      g_in.end -= g_in.at;
      g_in.at = 0;
    }
    const ssize_t n = ::read(STDIN_FILENO, g_in.bytes + g_in.end, sizeof g_in.bytes - g_in.end);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return static_cast<int>(n);
    g_in.end += static_cast<std::size_t>(n);
    return 1;
  }
}

// libedit's own reader misses a Ctrl-C that comes between printing the prompt and the
// first read (the terminal is still in cooked mode then, so the signal arrives before
// read() can return EINTR). This reader waits on stdin and on the interrupt pipe, so a
// Ctrl-C at any moment ends the line. Characters are decoded in the locale's encoding, as
// libedit would; a byte that is not one (a Latin-1 "\xe9" typed in a UTF-8 terminal, a
// lone "\xff") reads as U+FFFD (or '?'), counted for the note after the line, and the
// byte after it is read on its own: one bad byte used to end the REPL as if at end of
// file, the session lost.
int read_char(editline*, wchar_t* out) {
  static const bool utf8 = std::strcmp(::nl_langinfo(CODESET), "UTF-8") == 0;
  for (;;) {
    if (g_in.left() == 0) {
      const int r = fill();
      if (r <= 0) return r;
    }
    std::mbstate_t st{};
    wchar_t c = 0;
    const std::size_t n =
        std::mbrtowc(&c, reinterpret_cast<const char*>(g_in.bytes + g_in.at), g_in.left(), &st);
    if (n == static_cast<std::size_t>(-2)) {  // a character cut by the read: wait for its rest
      if (g_in.left() < MB_LEN_MAX) {
        pollfd p{STDIN_FILENO, POLLIN, 0};
        // What a terminal sends at once arrives together; a lead byte with nothing after
        // it for a moment (a lone "\xc3" then Enter was already read) is a bad byte.
        if (::poll(&p, 1, 50) == 1) {
          const int r = fill();
          if (r < 0) return r;
          if (r > 0) continue;
        }
      }
    } else if (n != static_cast<std::size_t>(-1)) {
      g_in.at += n == 0 ? 1 : n;  // 0: a NUL byte
      *out = c;
      return 1;
    }
    if (g_bad_bytes++ == 0) g_first_bad = g_in.bytes[g_in.at];
    ++g_in.at;
    *out = utf8 ? static_cast<wchar_t>(0xfffd) : L'?';
    return 1;
  }
}

}  // namespace

std::string history_path() {
  namespace fs = std::filesystem;
  fs::path dir;
  const char* state = std::getenv("XDG_STATE_HOME");
  if (state && *state == '/')
    dir = state;  // the XDG spec ignores relative paths
  else if (const char* home = std::getenv("HOME"); home && *home)
    dir = fs::path(home) / ".local/state";
  else
    return {};
  return (dir / "warplab" / "history").string();
}

// History first (el_set(EL_HIST) needs it), then the editor bound to it. H_SETUNIQUE
// keeps a repeated line once, as shells do.
LineEditor::LineEditor(std::string history_file, Completer completer)
    : history_file_(std::move(history_file)), completer_(std::move(completer)) {
  HistEvent ev;
  hist_ = ::history_init();
  ::history(hist_, &ev, H_SETSIZE, kHistorySize);
  ::history(hist_, &ev, H_SETUNIQUE, 1);
  if (!history_file_.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(history_file_).parent_path(), ec);
    // Only a regular file: libedit opens it for reading, and a FIFO there would wait for a
    // writer before the first prompt.
    if (regular_file(history_file_)) ::history(hist_, &ev, H_LOAD, history_file_.c_str());
  }
  // libedit edits wide characters through the C library, so it needs the user's
  // LC_CTYPE; from the plain "C" locale we move to C.UTF-8 so UTF-8 input still works.
  ::setlocale(LC_CTYPE, "");
  if (std::strcmp(::nl_langinfo(CODESET), "ANSI_X3.4-1968") == 0) ::setlocale(LC_CTYPE, "C.UTF-8");
  el_ = ::el_init("warplab", stdin, stdout, stderr);
  ::el_set(el_, EL_CLIENTDATA, this);
  ::el_set(el_, EL_EDITOR, "emacs");
  ::el_set(el_, EL_PROMPT, &LineEditor::on_prompt);
  ::el_set(el_, EL_HIST, ::history, hist_);
  ::el_set(el_, EL_GETCFN, &read_char);
  ::el_set(el_, EL_ADDFN, "warplab-complete", "complete a Lua name", &LineEditor::on_tab);
  ::el_set(el_, EL_BIND, "^I", "warplab-complete", nullptr);
  // The user's ~/.editrc ($EDITRC) may rebind keys: read as libedit would find it, when it
  // is a regular file (el_source opens it with fopen: a FIFO would hang the prompt).
  std::string editrc;
  if (const char* e = std::getenv("EDITRC"); e && *e)
    editrc = e;
  else if (const char* home = std::getenv("HOME"); home && *home)
    editrc = std::string(home) + "/.editrc";
  if (!editrc.empty() && regular_file(editrc)) ::el_source(el_, editrc.c_str());
}

LineEditor::~LineEditor() {
  ::el_end(el_);
  ::history_end(hist_);
}

// el_gets returns NULL for end of file (count 0) and for a failed read (count -1): ours
// fails only for Ctrl-C, with errno EINTR.
LineEditor::Input LineEditor::read(const std::string& prompt, std::string& line) {
  prompt_ = prompt;
  int count = 0;
  errno = 0;
  const char* text = ::el_gets(el_, &count);
  if (!text) {
    const bool interrupted = (count < 0 && errno == EINTR) || take_interrupts() > 0;
    take_interrupts();
    return interrupted ? Input::kInterrupted : Input::kEof;
  }
  line.assign(text, static_cast<size_t>(count));
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  if (g_bad_bytes > 0) {
    std::fflush(stdout);
    std::fprintf(stderr,
                 "warplab: the terminal sent %zu byte%s that %s not %s (the first: 0x%02x), read as %s; "
                 "is the terminal's encoding the locale's (%s)?\n",
                 g_bad_bytes, g_bad_bytes == 1 ? "" : "s", g_bad_bytes == 1 ? "is" : "are",
                 ::nl_langinfo(CODESET), g_first_bad,
                 std::strcmp(::nl_langinfo(CODESET), "UTF-8") == 0 ? "U+FFFD" : "'?'",
                 ::nl_langinfo(CODESET));
    g_bad_bytes = 0;
  }
  return Input::kLine;
}

void LineEditor::remember(const std::string& line) {
  if (line.find_first_not_of(" \t") == std::string::npos) return;
  HistEvent ev;
  ::history(hist_, &ev, H_ENTER, line.c_str());
  if (history_file_.empty()) return;
  // What is there and is no regular file (a FIFO, a folder) is not ours to replace.
  if (struct stat st{}; ::stat(history_file_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return;
  // Through the one writer (sys/write.hpp), not libedit's H_SAVE (which opens the path
  // itself, through a symbolic link too, and truncates before writing): the history is
  // made in an anonymous memory file (H_SAVE_FP needs a real descriptor: it fchmods it),
  // then replaces the file whole. Best effort: a prompt never stops for it.
  const int fd = ::memfd_create("warplab-history", MFD_CLOEXEC);
  std::FILE* mem = fd >= 0 ? ::fdopen(fd, "w+") : nullptr;
  if (!mem) {
    if (fd >= 0) ::close(fd);
    return;
  }
  std::string text;
  if (::history(hist_, &ev, H_SAVE_FP, mem) >= 0 && std::fflush(mem) == 0) {
    std::rewind(mem);
    char buf[8192];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, mem)) > 0;) text.append(buf, n);
    (void)sys::write_file(history_file_, text, sys::Replace::allowed);
  }
  std::fclose(mem);
}

void LineEditor::prefill(const std::string& text) { ::el_push(el_, text.c_str()); }

bool input_waiting(bool terminal) {
  pollfd p{STDIN_FILENO, POLLIN, 0};
  if (!terminal) return std::cin.rdbuf()->in_avail() != 0 || ::poll(&p, 1, 0) == 1;
  return g_in.left() > 0 || ::poll(&p, 1, 0) == 1;
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
