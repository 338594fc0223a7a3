// serve/address.cpp: see address.hpp.
#include "app/serve/address.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace warplab::app::serve {
namespace {

bool is_loopback(const sockaddr_storage& ss) {
  if (ss.ss_family == AF_INET)
    return (ntohl(reinterpret_cast<const sockaddr_in&>(ss).sin_addr.s_addr) >> 24) == 127;
  if (ss.ss_family == AF_INET6) {
    const in6_addr& a = reinterpret_cast<const sockaddr_in6&>(ss).sin6_addr;
    return IN6_IS_ADDR_LOOPBACK(&a) ||
           (IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr[12] == 127);  // ::ffff:127.x.y.z
  }
  return false;
}

}  // namespace

std::optional<Address> parse_address(const std::string& given) {
  const std::string text = given == "localhost" ? "127.0.0.1" : given;
  Address a;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&a.addr);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&a.addr);
  if (::inet_pton(AF_INET, text.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    a.len = sizeof(sockaddr_in);
    a.host = text;
  } else if (::inet_pton(AF_INET6, text.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    a.len = sizeof(sockaddr_in6);
    a.host = "[" + text + "]";
  } else {
    return std::nullopt;
  }
  a.loopback = is_loopback(a.addr);
  return a;
}

int listen_at(const Address& a, int port, int* bound) {
  sockaddr_storage ss = a.addr;
  if (ss.ss_family == AF_INET)
    reinterpret_cast<sockaddr_in&>(ss).sin_port = htons(static_cast<uint16_t>(port));
  else
    reinterpret_cast<sockaddr_in6&>(ss).sin6_port = htons(static_cast<uint16_t>(port));
  const int fd = ::socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  const int one = 1;
  // SO_REUSEADDR: a port whose last connections linger in TIME_WAIT can be listened on
  // again at once (Linux still refuses one that another socket listens on).
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (ss.ss_family == AF_INET6) ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&ss), a.len) != 0 || ::listen(fd, 1024) != 0) {
    const int err = errno;
    ::close(fd);
    errno = err;
    return -1;
  }
  socklen_t len = sizeof ss;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  *bound = ntohs(ss.ss_family == AF_INET ? reinterpret_cast<sockaddr_in&>(ss).sin_port
                                         : reinterpret_cast<sockaddr_in6&>(ss).sin6_port);
  return fd;
}

bool host_allowed(const std::string& host, const Address& a, int port) {
  // NAME[:PORT] or [V6][:PORT]; the port must be ours (absent only for port 80).
  std::string name = host, port_text;
  if (!name.empty() && name[0] == '[') {
    const std::size_t close = name.find(']');
    if (close == std::string::npos) return false;
    port_text = close + 1 < name.size() && name[close + 1] == ':' ? name.substr(close + 2) : "";
    if (close + 1 < name.size() && name[close + 1] != ':') return false;
    name = name.substr(1, close - 1);
  } else if (const std::size_t colon = name.find(':'); colon != std::string::npos) {
    port_text = name.substr(colon + 1);
    name = name.substr(0, colon);
  }
  if (port_text.empty() ? port != 80 : port_text != std::to_string(port)) return false;
  if (name == "localhost") return a.loopback;
  const std::optional<Address> named = parse_address(name);
  if (!named || name == "localhost") return false;
  return a.loopback ? named->loopback : true;
}

}  // namespace warplab::app::serve
