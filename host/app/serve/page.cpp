// serve/page.cpp: Page (cli/page.hpp): the runs, the server when live and its URL, the page
// written as a file, the page's command-line options, and the browser opened.
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

#include "app/cli/exit_codes.hpp"
#include "app/serve/html.hpp"
#include "app/serve/page.hpp"
#include "sys/write.hpp"

namespace warplab::app {

void add_page_options(CLI::App* sub, PageOptions& o, bool html) {
  sub->add_flag("--serve", o.serve,
                "also show the runs on a live local page (the URL is printed: 127.0.0.1, a random token)");
  sub->add_flag("--open", o.open, "--serve, and open the page in the browser");
  sub->add_option("--port", o.port,
                  "the page's port with --serve (0: any free one; a taken port: the next free one)")
      ->check(CLI::Range(0, 65535))
      ->type_name("N");
  sub->add_option("--listen", o.listen,
                  "the address the page listens on with --serve (default 127.0.0.1; another reaches other "
                  "machines: a warning says so)")
      ->type_name("ADDRESS");
  if (html)
    sub->add_option_function<std::string>(
           "--html",
           [&o](const std::string& v) {
             o.html = v;
             o.html_given = true;
           },
           "write the run's page to FILE, one self-contained HTML file")
        ->type_name("FILE");
}

void check_page_options(const PageOptions& o) {
  if (!o.live() && (o.port != 0 || o.listen != PageOptions().listen))
    throw Error(ErrorKind::usage, "--port and --listen are for the page: add --serve");
}

Page::Page(const PageOptions& o, const std::string& script, const std::string& private_dir)
    : impl_(std::make_unique<Impl>(o, script)) {
  Impl& p = *impl_;
  p.marker = serve::random_token();
  if (!o.live()) return;
  // Room for many connections at once (1024 descriptors is the usual soft limit); each run
  // gets the limit back (PageCapture::in_child).
  if (::getrlimit(RLIMIT_NOFILE, &p.files) == 0 && p.files.rlim_cur < p.files.rlim_max) {
    rlimit more = p.files;
    more.rlim_cur = std::min<rlim_t>(p.files.rlim_max, 65536);
    p.raised = ::setrlimit(RLIMIT_NOFILE, &more) == 0;
  }
  p.server = std::make_unique<serve::Server>(p.runs, o.listen, o.port);
  serve::Server* s = p.server.get();
  p.runs.on_change([s] { s->wake(); });
  p.url = s->url();
  std::fflush(stdout);
  if (!s->moved().empty()) std::fprintf(stderr, "warplab: %s\n", s->moved().c_str());
  if (s->exposed())
    std::fprintf(stderr,
                 "warplab: warning: --listen %s: other machines can reach the page; anyone who has its URL "
                 "(with the token) can read your runs\n",
                 o.listen.c_str());
  std::fprintf(stderr, "warplab: the page is at %s\n", p.url.c_str());
  if (o.open)
    if (const std::string why = serve::open_browser(p.url, private_dir); !why.empty())
      std::fprintf(stderr, "warplab: --open: %s; open the URL yourself\n", why.c_str());
}

Page::~Page() {
  Impl& p = *impl_;
  p.runs.on_change(nullptr);
  p.server.reset();  // stopped and joined before the runs it reads go
  if (p.raised) ::setrlimit(RLIMIT_NOFILE, &p.files);
}

const std::string& Page::url() const { return impl_->url; }

void Page::begin_run(int run, const std::string& header) { impl_->runs.begin(run, header); }
void Page::note(const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  impl_->runs.note(t);
}
void Page::counters(const std::string& json) {
  const nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
  if (!j.is_discarded()) impl_->runs.counters(j);
}
void Page::end_run(const std::string& outcome, const std::string& line) { impl_->runs.end(outcome, line); }

std::string Page::write_html(const std::string& path) const {
  const std::string data = impl_->runs.all_json();
  const sys::WriteResult w =
      sys::write_file(path, serve::page_html(serve::random_token(), &data), sys::Replace::allowed);
  return w ? "" : w.message;
}

bool page_event(const nlohmann::json& event) {
  const char* marker = std::getenv("WARPLAB_PAGE");
  if (!marker || std::strlen(marker) != 32 || std::strspn(marker, "0123456789abcdef") != 32) return false;
  const std::string line = serve::event_prefix(marker) + serve::dump(event) + "\n";
  if (line.size() > (12u << 20)) return false;  // as page.lua's: the watcher takes none over 16 MiB
  std::fflush(stdout);
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fflush(stdout);
  return true;
}

namespace serve {

std::string event_prefix(const std::string& marker) { return "\x1e" + marker + "\x1f"; }

void close_inet_sockets() {
  DIR* d = ::opendir("/proc/self/fd");
  if (!d) return;
  const int own = ::dirfd(d);
  std::vector<int> fds;
  while (const dirent* e = ::readdir(d)) {
    const int fd = std::atoi(e->d_name);
    struct stat st {};
    if (fd <= 2 || fd == own || ::fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) == 0 &&
        (ss.ss_family == AF_INET || ss.ss_family == AF_INET6))
      fds.push_back(fd);
  }
  ::closedir(d);
  for (const int fd : fds) ::close(fd);
}

namespace {

// "file://" and the path, each byte but a few plain ones written %XX.
std::string file_url(const std::string& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out = "file://";
  for (const char c : path) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || std::strchr("/._-~", c))
      out += c;
    else
      out += {'%', hex[u >> 4], hex[u & 15]};
  }
  return out;
}

}  // namespace

std::string open_browser(const std::string& page_url, const std::string& private_dir) {
  std::string url = page_url;
  if (!private_dir.empty()) {
    const std::string file = private_dir + "/open-page.html";
    const std::string html =
        "<!DOCTYPE html>\n<meta charset=\"utf-8\">\n<meta http-equiv=\"refresh\" content=\"0;url=" +
        page_url + "\">\n<title>warplab</title>\n<a href=\"" + page_url + "\">warplab's page</a>\n";
    if (const sys::WriteResult w =
            sys::write_file(file, html, sys::WriteOptions{sys::Replace::allowed, sys::Sync::none, 0600}))
      url = file_url(file);
  }
  const char* browser = std::getenv("BROWSER");
  std::string command = browser && *browser ? std::string(browser) : "";
  if (const std::size_t colon = command.find(':'); colon != std::string::npos) command.resize(colon);
  if (command.empty()) {
    bool found = false;
    const char* path = std::getenv("PATH");
    for (std::string dirs = path ? path : "/usr/bin:/bin"; !dirs.empty() && !found;) {
      const std::size_t c = dirs.find(':');
      const std::string dir = dirs.substr(0, c);
      dirs = c == std::string::npos ? "" : dirs.substr(c + 1);
      found = ::access((dir + "/xdg-open").c_str(), X_OK) == 0;
    }
    if (!found) return "no xdg-open here and $BROWSER is not set";
    command = "xdg-open";
  }
  // Twice forked: the opener belongs to no process of ours (nothing to reap, nothing to
  // kill when we end) and holds none of our descriptors.
  const pid_t pid = ::fork();
  if (pid < 0) return "cannot start a process";
  if (pid == 0) {
    ::setsid();
    if (::fork() != 0) ::_exit(0);
    const int null = ::open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3; ++fd) ::dup2(null, fd);
#ifdef SYS_close_range
    if (::syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
#endif
      for (int fd = 3; fd < 65536; ++fd) ::close(fd);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execl("/bin/sh", "sh", "-c", "exec $0 \"$1\"", command.c_str(), url.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return "";
}

}  // namespace serve
}  // namespace warplab::app
