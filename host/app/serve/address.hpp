// serve/address.hpp: where the page listens and which Host headers reach it. An address is
// an IP literal (or "localhost", which is 127.0.0.1); a Host header must name it with the
// port served, or, on the loopback address, "localhost" or another loopback literal; on
// another address any IP literal (a DNS name is what a rebinding attack needs). POSIX.
#pragma once
#include <sys/socket.h>

#include <optional>
#include <string>

namespace warplab::app::serve {

struct Address {
  sockaddr_storage addr{};
  socklen_t len = 0;
  bool loopback = false;  // 127.0.0.0/8 or ::1
  std::string host;       // as a URL writes it: "127.0.0.1", "[::1]"
};

// nullopt when `text` is not an IP literal nor "localhost".
std::optional<Address> parse_address(const std::string& text);

// A listening socket (close-on-exec, non-blocking) at `port` (0: any), or -1 with errno.
// `bound` receives the port it got.
int listen_at(const Address& a, int port, int* bound);

// Whether a request's Host header names this server.
bool host_allowed(const std::string& host, const Address& a, int port);

}  // namespace warplab::app::serve
