// serve/server.cpp: Server (server.hpp) on libevent: one event loop on its own thread (so the
// watcher's loop never waits for a page), woken through an eventfd when the runs change.
// libevent's own messages are silenced: the terminal is the runs'. The thread is parked
// whenever this process forks (fork_park.hpp).
#include "app/serve/server.hpp"

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <list>
#include <memory>
#include <thread>

#include "app/cli/exit_codes.hpp"
#include "app/serve/address.hpp"
#include "app/serve/fork_park.hpp"
#include "app/serve/html.hpp"
#include "app/serve/record.hpp"
#include "sys/shown.hpp"

namespace warplab::app::serve {
namespace {

constexpr int kPortsTried = 20;
constexpr std::size_t kMaxStreams = 64;
constexpr std::size_t kStalled = 256 * 1024;  // bytes a page has not read: it is dropped
constexpr long kMinGapUs = 10000;             // between two events to the pages
// Bytes of answers not yet sent, all connections together: past this a request for more is
// told to come back (503; the page retries), so clients that ask and do not read cannot
// make watch hold without bound.
constexpr std::size_t kMaxPending = 256u << 20;

const char* const kHeaders[][2] = {
    {"Cache-Control", "no-store"},
    {"X-Content-Type-Options", "nosniff"},
    {"Referrer-Policy", "no-referrer"},
    {"X-Frame-Options", "DENY"},
    {"Cross-Origin-Resource-Policy", "same-origin"},
};

bool same_token(const char* given, const std::string& token) {
  const std::size_t n = std::strlen(given);
  unsigned diff = n != token.size();
  for (std::size_t i = 0; i < token.size(); ++i)
    diff |= static_cast<unsigned char>(i < n ? given[i] : 0) ^ token[i];
  return diff == 0;
}

// A whole decimal number 0..1e9, or -1.
long long number(const char* s) {
  if (!s || !*s || std::strlen(s) > 9) return -1;
  long long v = 0;
  for (; *s; ++s) {
    if (*s < '0' || *s > '9') return -1;
    v = v * 10 + (*s - '0');
  }
  return v;
}

}  // namespace

struct Server::Impl {
  Runs& runs;
  Address address;
  int port = 0;
  std::string token, moved;
  int wake_fd = -1;
  event_base* base = nullptr;
  evhttp* http = nullptr;
  evhttp_bound_socket* bound = nullptr;
  event *wake_ev = nullptr, *flush_ev = nullptr, *ping_ev = nullptr, *accept_ev = nullptr;
  std::thread thread;
  ForkPark park{[this] { poke(); }};
  std::atomic<bool> stopping{false};
  std::atomic<int> open_streams{0};
  struct Stream {
    evhttp_request* req;
    evhttp_connection* con;
  };
  std::list<Stream> streams;  // the loop's thread only
  std::uint64_t sent = ~0ull;
  timeval last{};
  bool flush_armed = false;

  Impl(Runs& r, Address a) : runs(r), address(std::move(a)) {}

  // Wakes the loop's thread (on_wake); allocates nothing.
  void poke() const {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t w = ::write(wake_fd, &one, sizeof one);
  }

  // Each answer's body is held by reference until sent (a picture is not copied per
  // connection), its bytes counted in `pending` until then.
  std::size_t pending = 0;  // the loop's thread only
  struct Held {
    std::shared_ptr<const std::string> bytes;
    Impl* server;
  };
  static void release(const void*, size_t, void* arg) {
    auto* h = static_cast<Held*>(arg);
    h->server->pending -= h->bytes->size();
    delete h;
  }

  void reply(evhttp_request* req, int code, const char* reason, const char* type,
             std::shared_ptr<const std::string> body,
             const char* csp = "default-src 'none'; frame-ancestors 'none'") {
    evkeyvalq* out = evhttp_request_get_output_headers(req);
    evhttp_add_header(out, "Content-Type", type);
    for (const auto& h : kHeaders) evhttp_add_header(out, h[0], h[1]);
    evhttp_add_header(out, "Content-Security-Policy", csp);
    if (code == 503) evhttp_add_header(out, "Retry-After", "1");
    evbuffer* b = evbuffer_new();
    if (!body->empty()) {
      pending += body->size();
      auto* held = new Held{std::move(body), this};
      evbuffer_add_reference(b, held->bytes->data(), held->bytes->size(), &Impl::release, held);
    }
    evhttp_send_reply(req, code, reason, b);
    evbuffer_free(b);
  }
  void reply(evhttp_request* req, int code, const char* reason, const char* type, std::string body,
             const char* csp = "default-src 'none'; frame-ancestors 'none'") {
    reply(req, code, reason, type, std::make_shared<const std::string>(std::move(body)), csp);
  }

  void handle(evhttp_request* req) {
    const char* host = evhttp_find_header(evhttp_request_get_input_headers(req), "Host");
    if (!host || !host_allowed(host, address, port))
      return reply(req, 403, "Forbidden", "text/plain; charset=utf-8",
                   "warplab: this page answers only at the address warplab printed\n");
    const evhttp_uri* uri = evhttp_request_get_evhttp_uri(req);
    const char* path = uri ? evhttp_uri_get_path(uri) : nullptr;
    const char* query = uri ? evhttp_uri_get_query(uri) : nullptr;
    // Our values (a token, numbers) are never escaped: an escape (a NUL, which would end a
    // value early where it is read) is no request of ours.
    if (query && std::strchr(query, '%'))
      return reply(req, 400, "Bad Request", "text/plain; charset=utf-8", "warplab: bad request\n");
    evkeyvalq q;
    q.tqh_first = nullptr;  // an empty list (TAILQ_INIT)
    q.tqh_last = &q.tqh_first;
    if (query && evhttp_parse_query_str(query, &q) != 0) evhttp_clear_headers(&q);
    const char* tok = evhttp_find_header(&q, "token");
    const bool ok = tok && same_token(tok, token);
    const long long run = number(evhttp_find_header(&q, "run"));
    const long long from = number(evhttp_find_header(&q, "from"));
    const long long id = number(evhttp_find_header(&q, "id"));
    evhttp_clear_headers(&q);
    if (!ok)
      return reply(req, 403, "Forbidden", "text/plain; charset=utf-8",
                   "warplab: wrong or missing token: open the URL warplab printed\n");
    const std::string p = path ? path : "";
    if (pending > kMaxPending && p != "/api/events")
      return reply(req, 503, "Service Unavailable", "text/plain; charset=utf-8",
                   "warplab: busy sending other answers: try again\n");
    if (p == "/") {
      const std::string nonce = random_token();
      return reply(req, 200, "OK", "text/html; charset=utf-8", page_html(nonce, nullptr),
                   page_csp(nonce, false).c_str());
    }
    if (p == "/api/state") return reply(req, 200, "OK", "application/json", runs.state_json());
    if (p == "/api/run" && run >= 0) {
      std::string body = runs.run_json(static_cast<int>(run), from < 0 ? 0 : static_cast<std::size_t>(from));
      if (!body.empty()) return reply(req, 200, "OK", "application/json", std::move(body));
    } else if (p == "/api/svg" && run >= 0 && id >= 0) {
      if (auto svg = runs.picture(static_cast<int>(run), static_cast<std::size_t>(id)))
        // As a document of its own (opened in a tab) it runs no script either.
        return reply(req, 200, "OK", "image/svg+xml", std::move(svg),
                     "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox");
    } else if (p == "/api/events") {
      return stream(req);
    }
    reply(req, 404, "Not Found", "text/plain; charset=utf-8", "warplab: no such page\n");
  }

  // A page's event stream: the headers now, an event now and after each change.
  void stream(evhttp_request* req) {
    if (streams.size() >= kMaxStreams)
      return reply(req, 503, "Service Unavailable", "text/plain; charset=utf-8",
                   "warplab: too many pages open at once\n");
    evkeyvalq* out = evhttp_request_get_output_headers(req);
    evhttp_add_header(out, "Content-Type", "text/event-stream");
    for (const auto& h : kHeaders) evhttp_add_header(out, h[0], h[1]);
    evhttp_send_reply_start(req, 200, "OK");
    evhttp_connection* con = evhttp_request_get_connection(req);
    evhttp_connection_set_timeout(con, 24 * 3600);  // a page stays open; pings find the dead ones
    evhttp_connection_set_closecb(con, &Impl::on_stream_closed, this);
    streams.push_back({req, con});
    open_streams = static_cast<int>(streams.size());
    send(streams.back(), "retry: 1000\ndata: {\"version\":" + std::to_string(runs.version()) + "}\n\n");
  }

  void send(const Stream& s, const std::string& text) {
    evbuffer* b = evbuffer_new();
    evbuffer_add(b, text.data(), text.size());
    evhttp_send_reply_chunk(s.req, b);
    evbuffer_free(b);
  }

  // To every page: the runs' version (when it moved), or a ping; a page that has left
  // `kStalled` bytes unread is dropped (its connection freed: on_stream_closed forgets it).
  void broadcast(bool ping) {
    const std::uint64_t v = runs.version();
    if (!ping && v == sent) return;
    sent = v;
    const std::string text = ping ? ": ping\n\n" : "data: {\"version\":" + std::to_string(v) + "}\n\n";
    std::vector<evhttp_connection*> stalled;
    for (const Stream& s : streams) {
      bufferevent* bev = evhttp_connection_get_bufferevent(s.con);
      if (bev && evbuffer_get_length(bufferevent_get_output(bev)) > kStalled)
        stalled.push_back(s.con);
      else
        send(s, text);
    }
    for (evhttp_connection* c : stalled) evhttp_connection_free(c);
    evutil_gettimeofday(&last, nullptr);
  }

  // A stream's connection is going. When the page went away (libevent then hands the
  // request, still being sent, over to us: it has no connection any more) the request is
  // ended here, which frees it; else it goes with its connection.
  static void on_stream_closed(evhttp_connection* con, void* arg) {
    auto* self = static_cast<Impl*>(arg);
    self->streams.remove_if([con](const Stream& s) {
      if (s.con != con) return false;
      if (!evhttp_request_get_connection(s.req)) evhttp_send_reply_end(s.req);
      return true;
    });
    self->open_streams = static_cast<int>(self->streams.size());
  }
  static void on_request(evhttp_request* req, void* arg) { static_cast<Impl*>(arg)->handle(req); }
  // The watcher changed the runs: tell the pages now, or when 10 ms have passed since the
  // last time (a run printing fast is one event per 10 ms, not one per line).
  static void on_wake(evutil_socket_t fd, short, void* arg) {
    auto* self = static_cast<Impl*>(arg);
    std::uint64_t n;
    [[maybe_unused]] const ssize_t r = ::read(fd, &n, sizeof n);
    self->park.hold();  // a fork waiting for this thread to be still
    if (self->stopping) {
      event_base_loopbreak(self->base);
      return;
    }
    if (self->flush_armed) return;
    timeval now{}, gap{};
    evutil_gettimeofday(&now, nullptr);
    evutil_timersub(&now, &self->last, &gap);
    const long us = gap.tv_sec > 0 ? kMinGapUs : gap.tv_usec;
    if (gap.tv_sec < 0 || us >= kMinGapUs) return self->broadcast(false);
    const timeval wait{0, kMinGapUs - us};
    self->flush_armed = true;
    evtimer_add(self->flush_ev, &wait);
  }
  static void on_flush(evutil_socket_t, short, void* arg) {
    auto* self = static_cast<Impl*>(arg);
    self->flush_armed = false;
    self->broadcast(false);
  }
  static void on_ping(evutil_socket_t, short, void* arg) { static_cast<Impl*>(arg)->broadcast(true); }
  // accept() failed (out of descriptors): stop accepting for 100 ms rather than spin.
  static void on_accept_error(evconnlistener* lev, void* arg) {
    auto* self = static_cast<Impl*>(arg);
    evconnlistener_disable(lev);
    const timeval wait{0, 100000};
    evtimer_add(self->accept_ev, &wait);
  }
  static void on_accept_again(evutil_socket_t, short, void* arg) {
    auto* self = static_cast<Impl*>(arg);
    if (self->bound) evconnlistener_enable(evhttp_bound_socket_get_listener(self->bound));
  }
};

std::string random_token() {
  unsigned char bytes[16] = {};
  const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  std::size_t got = 0;
  while (fd >= 0 && got < sizeof bytes) {
    const ssize_t n = ::read(fd, bytes + got, sizeof bytes - got);
    if (n <= 0 && errno != EINTR) break;
    if (n > 0) got += static_cast<std::size_t>(n);
  }
  if (fd >= 0) ::close(fd);
  if (got < sizeof bytes) throw Error(ErrorKind::internal, "cannot read /dev/urandom for the page's token");
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (const unsigned char b : bytes) out += {hex[b >> 4], hex[b & 15]};
  return out;
}

Server::Server(Runs& runs, const std::string& address_text, int port) {
  const std::optional<Address> a = parse_address(address_text);
  if (!a)
    throw Error(ErrorKind::bad_input,
                "--listen: '" + sys::shown(address_text) +
                    "' is not an IP address (127.0.0.1, ::1, 0.0.0.0 or a machine's own address)");
  impl_ = std::make_unique<Impl>(runs, *a);
  Impl& s = *impl_;
  s.token = random_token();
  int fd = -1, err = 0;
  for (int i = 0; i < (port == 0 ? 1 : kPortsTried) && port + i <= 65535; ++i) {
    fd = listen_at(s.address, port + i, &s.port);
    err = errno;
    if (fd >= 0 || err != EADDRINUSE) break;
  }
  if (fd < 0) {
    const std::string where = a->host + ":" + std::to_string(port);
    throw Error(ErrorKind::bad_input,
                err == EADDRINUSE
                    ? "ports " + std::to_string(port) + " to " + std::to_string(port + kPortsTried - 1) +
                          " are all in use on " + a->host + ": choose another with --port"
                    : "cannot listen on " + where + ": " + std::strerror(err));
  }
  if (port != 0 && s.port != port)
    s.moved = "port " + std::to_string(port) + " is in use: serving on " + std::to_string(s.port);
  event_set_log_callback([](int, const char*) {});
  s.base = event_base_new();
  s.http = s.base ? evhttp_new(s.base) : nullptr;
  s.wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (!s.http || s.wake_fd < 0) {
    ::close(fd);
    if (s.wake_fd >= 0) ::close(s.wake_fd);
    if (s.base) event_base_free(s.base);
    throw Error(ErrorKind::internal, "cannot start the page's server");
  }
  evhttp_set_allowed_methods(s.http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD);
  evhttp_set_max_headers_size(s.http, 16 * 1024);
  evhttp_set_max_body_size(s.http, 0);
  evhttp_set_timeout(s.http, 10);
  evhttp_set_gencb(s.http, &Impl::on_request, &s);
  s.bound = evhttp_accept_socket_with_handle(s.http, fd);  // closes fd when freed
  evconnlistener_set_error_cb(evhttp_bound_socket_get_listener(s.bound), &Impl::on_accept_error);
  s.wake_ev = event_new(s.base, s.wake_fd, EV_READ | EV_PERSIST, &Impl::on_wake, &s);
  s.flush_ev = evtimer_new(s.base, &Impl::on_flush, &s);
  s.accept_ev = evtimer_new(s.base, &Impl::on_accept_again, &s);
  s.ping_ev = event_new(s.base, -1, EV_PERSIST, &Impl::on_ping, &s);
  event_add(s.wake_ev, nullptr);
  const timeval ping{15, 0};
  event_add(s.ping_ev, &ping);
  s.thread = std::thread([&s] {
    // A page closed while we write to it: EPIPE for the write, not SIGPIPE for the process.
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
    event_base_dispatch(s.base);
  });
  s.park.start(s.thread.get_id());
}

Server::~Server() {
  Impl& s = *impl_;
  s.park.stop();
  s.stopping = true;
  s.poke();
  s.thread.join();
  // Freeing the server frees every connection (closing the event streams: their callback
  // must not touch a list being torn down).
  for (const Impl::Stream& st : s.streams) evhttp_connection_set_closecb(st.con, nullptr, nullptr);
  s.streams.clear();
  evhttp_free(s.http);
  for (event* e : {s.wake_ev, s.flush_ev, s.ping_ev, s.accept_ev}) event_free(e);
  event_base_free(s.base);
  ::close(s.wake_fd);
}

int Server::port() const { return impl_->port; }
const std::string& Server::token() const { return impl_->token; }
const std::string& Server::moved() const { return impl_->moved; }
bool Server::exposed() const { return !impl_->address.loopback; }
std::string Server::url() const {
  std::string host = impl_->address.host;
  if (host == "0.0.0.0") host = "127.0.0.1";  // every address: this machine's own answers too
  if (host == "[::]") host = "[::1]";
  return "http://" + host + ":" + std::to_string(impl_->port) + "/?token=" + impl_->token;
}

void Server::wake() {
  if (impl_->open_streams.load(std::memory_order_relaxed) == 0) return;  // no page open: nothing to do
  impl_->poke();
}

}  // namespace warplab::app::serve
