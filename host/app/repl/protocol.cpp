// repl/protocol.cpp: framing of the prompt <-> worker messages (protocol.hpp): whole frames
// over send/read, retried on EINTR; a short read or write means the peer is gone. POSIX.
#include "app/repl/protocol.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace warplab::app::repl {
namespace {

// send() with MSG_NOSIGNAL so a dead peer gives EPIPE instead of killing us with SIGPIPE.
bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool read_all(int fd, char* p, size_t n) {
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

}  // namespace

// Header and payload are written separately; the reader reassembles by length, so a
// stream socket splitting them differently does not matter.
bool write_message(int fd, char type, const std::string& payload) {
  if (payload.size() > kMaxPayload) return false;
  const auto n = static_cast<std::uint32_t>(payload.size());
  const char header[5] = {type, static_cast<char>(n & 0xff), static_cast<char>((n >> 8) & 0xff),
                          static_cast<char>((n >> 16) & 0xff), static_cast<char>(n >> 24)};
  return write_all(fd, header, sizeof header) && write_all(fd, payload.data(), payload.size());
}

// A short read at any point means the peer is gone: the caller treats nullopt as "the
// worker died" (or, in the worker, "the prompt left").
std::optional<Message> read_message(int fd) {
  unsigned char header[5];
  if (!read_all(fd, reinterpret_cast<char*>(header), sizeof header)) return std::nullopt;
  const std::uint32_t n =
      header[1] | (header[2] << 8) | (header[3] << 16) | (static_cast<std::uint32_t>(header[4]) << 24);
  if (n > kMaxPayload) return std::nullopt;
  Message m;
  m.type = static_cast<char>(header[0]);
  m.payload.resize(n);
  if (!read_all(fd, m.payload.data(), n)) return std::nullopt;
  return m;
}

std::string lost_payload(const Reply& r) {
  std::string out;
  for (const unsigned long long n : r.faulted) out += (out.empty() ? "" : " ") + std::to_string(n);
  return out + "\n" + r.text;
}

Reply lost_reply(const std::string& payload) {
  Reply r{Status::kLost, payload, 0, {}};
  const std::size_t nl = payload.find('\n');
  if (nl == std::string::npos) return r;  // not this shape: all text
  r.text = payload.substr(nl + 1);
  const char* p = payload.c_str();
  const char* end = p + nl;
  while (p < end) {
    char* next = nullptr;
    const unsigned long long n = std::strtoull(p, &next, 10);
    if (next == p || next > end) break;
    r.faulted.push_back(n);
    p = next;
  }
  return r;
}

}  // namespace warplab::app::repl
