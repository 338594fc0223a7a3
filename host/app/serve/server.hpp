// serve/server.hpp: the page's HTTP server: libevent's evhttp (libevent-dev, linked
// statically) on a thread of its own, listening on one address. Every request must name the
// address served in its Host header (no DNS rebinding) and carry the token (another local
// user cannot read the runs); only fixed paths answer, each with what the runs produced:
//   /?token=T            the page (html.hpp)
//   /api/state?token=T   the runs kept (record.hpp's state)
//   /api/run?token=T&run=N&from=K   run N's items from K on
//   /api/svg?token=T&run=N&id=K     a picture, as image/svg+xml that cannot run script
//   /api/events?token=T  server-sent events: {"version": V} after every change
// Requests are bounded (headers, no body, a 10 s read timeout), pages open at once too (64
// event streams), and a page that stops reading is dropped (it reconnects by itself); the
// answers not yet sent, all together, too (256 MiB: past it, 503 and the page asks again).
#pragma once
#include <memory>
#include <string>

namespace warplab::app::serve {

class Runs;

class Server {
 public:
  // Listens on `address` (an IPv4 or IPv6 literal, or "localhost") at `port`, or at the next
  // free one of the 20 from there when it is taken (0: any free port); then serves `runs`
  // on a thread until destroyed. Throws Error (bad_input) with the sentence when it
  // cannot listen.
  Server(Runs& runs, const std::string& address, int port);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  int port() const;
  const std::string& token() const;
  std::string url() const;  // http://127.0.0.1:PORT/?token=...
  // Why the port is not the one asked for ("port 8000 is in use: serving on 8001"), or "".
  const std::string& moved() const;
  // Whether the address reaches beyond this machine (the caller warns).
  bool exposed() const;
  // After a change of the runs: the open pages are told (at most every 10 ms); nothing
  // happens while no page is open.
  void wake();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// A fresh random token: 32 hex digits from the system's random source.
std::string random_token();

}  // namespace warplab::app::serve
