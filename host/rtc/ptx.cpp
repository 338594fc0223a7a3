// ptx.cpp: see ptx.hpp. A small scanner over the PTX NVRTC emits: each .entry starts its
// line (after linkage words), its parameter list is in parentheses, performance
// directives sit between the list and the body, and the body's closing brace is the
// first "}" at the start of a line after its "{".
#include "rtc/ptx.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <sstream>

#include "sys/regex_span.hpp"

namespace warplab::rtc {
namespace {

// Bytes of a PTX scalar type token (".u64" -> 8); 0 when it is not one.
std::size_t type_bytes(const std::string& t) {
  if (t.size() < 3 || t[0] != '.' || !std::strchr("usbf", t[1])) return 0;
  const int bits = std::atoi(t.c_str() + 2);
  return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? static_cast<std::size_t>(bits / 8) : 0;
}

// One ".param" declaration: ".param .u64 x", ".param .align 8 .b8 x[16]",
// ".param .u64 .ptr .global .align 4 x" (an .align after .ptr is the pointee's).
PtxParam read_param(const std::string& decl) {
  std::istringstream in(decl);
  std::string tok;
  std::size_t align = 0, elem = 0, count = 1;
  bool ptr = false;
  while (in >> tok) {
    if (tok == ".align" && !ptr && elem == 0)
      in >> align;
    else if (tok == ".ptr")
      ptr = true;
    else if (!elem && type_bytes(tok))
      elem = type_bytes(tok);
    else if (elem && tok.find('[') != std::string::npos)
      count = static_cast<std::size_t>(std::strtoull(tok.c_str() + tok.find('[') + 1, nullptr, 10));
  }
  return {align ? align : elem, elem * count};
}

// ".maxntid 256, 1, 1" in the directives between the parameter list and the body.
void read_dims(const std::string& dirs, const char* name, std::array<unsigned, 3>& out) {
  const std::size_t p = dirs.find(name);
  if (p == std::string::npos) return;
  std::istringstream nums(dirs.substr(p + std::strlen(name)));
  for (std::size_t i = 0; i < 3; ++i) {
    long long v = 0;
    if (!(nums >> v)) break;
    out[i] = static_cast<unsigned>(std::clamp<long long>(v, 0, 1 << 30));
    if (nums.peek() == ',') nums.get();
  }
}

long long product(const std::array<unsigned, 3>& d) {
  if (d[0] == 0) return 0;
  return 1LL * d[0] * std::max(1u, d[1]) * std::max(1u, d[2]);
}

}  // namespace

long long PtxEntry::max_threads() const {
  const long long a = product(maxntid), b = product(reqntid);
  return a && b ? std::min(a, b) : std::max(a, b);
}

std::vector<PtxEntry> ptx_entry_list(const std::string& ptx) {
  // Linkage directives may precede .entry: .visible for kernels, .weak for template
  // instantiations, .extern for declarations (no body: skipped).
  // The pattern reads the line's first sys::regex_span bytes, up to the name; the name, of
  // any length, is read from the whole line.
  static const std::regex header(R"re(^\s*((?:\.(?:visible|weak|extern)\s+)*)\.entry\s+(?=[A-Za-z_$%]))re");
  const auto name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%';
  };
  std::vector<PtxEntry> out;
  for (std::size_t at = ptx.find(".entry"); at != std::string::npos;) {
    const std::size_t bol = ptx.rfind('\n', at);
    const std::size_t start = bol == std::string::npos ? 0 : bol + 1;
    std::size_t eol = ptx.find('\n', at);
    if (eol == std::string::npos) eol = ptx.size();
    const std::string line = ptx.substr(start, eol - start);
    const std::string head = sys::regex_head(line);
    std::smatch m;
    at = ptx.find(".entry", eol);
    if (!std::regex_search(head, m, header) || m[1].str().find(".extern") != std::string::npos) continue;
    PtxEntry e;
    std::size_t name_end = static_cast<std::size_t>(m.length(0));
    while (name_end < line.size() && name_char(line[name_end])) ++name_end;
    e.name =
        line.substr(static_cast<std::size_t>(m.length(0)), name_end - static_cast<std::size_t>(m.length(0)));
    e.begin = start;
    const std::size_t open = ptx.find('(', start + name_end);
    const std::size_t close = open == std::string::npos ? open : ptx.find(')', open);
    const std::size_t body = close == std::string::npos ? close : ptx.find('{', close);
    e.end = eol;
    if (close != std::string::npos) {
      std::istringstream params(ptx.substr(open + 1, close - open - 1));
      for (std::string decl; std::getline(params, decl, ',');)
        if (decl.find(".param") != std::string::npos) e.params.push_back(read_param(decl));
      e.end = close + 1;
    }
    // The directives and the body belong to this entry only if no other .entry comes first.
    const std::size_t next = close == std::string::npos ? std::string::npos : ptx.find(".entry", close);
    if (body != std::string::npos && body < next) {
      const std::string dirs = ptx.substr(close, body - close);
      read_dims(dirs, ".maxntid", e.maxntid);
      read_dims(dirs, ".reqntid", e.reqntid);
      read_dims(dirs, ".reqnctapercluster", e.cluster);
      if (e.cluster[0])  // PTX may give fewer than three sizes: the rest are 1
        for (unsigned& v : e.cluster) v = std::max(v, 1u);
      std::array<unsigned, 3> rank{};
      read_dims(dirs, ".maxclusterrank", rank);
      e.max_cluster_rank = rank[0];
      std::array<unsigned, 3> min_blocks{};
      read_dims(dirs, ".minnctapersm", min_blocks);
      e.min_blocks = min_blocks[0];
      // A compile-time cluster size implies the explicit cluster (NVRTC writes both).
      e.explicit_cluster = dirs.find(".explicitcluster") != std::string::npos || e.cluster[0] != 0;
      const std::size_t last = ptx.find("\n}", body);
      e.end = last == std::string::npos ? ptx.size() : last + 2;
    }
    at = ptx.find(".entry", std::max(e.end, eol));
    out.push_back(std::move(e));
  }
  return out;
}

std::optional<PtxEntry> ptx_entry(const std::string& ptx, const std::string& name) {
  for (PtxEntry& e : ptx_entry_list(ptx))
    if (e.name == name) return std::move(e);
  return std::nullopt;
}

std::vector<std::string> ptx_entries(const std::string& ptx) {
  std::vector<std::string> out;
  for (const PtxEntry& e : ptx_entry_list(ptx)) out.push_back(e.name);
  return out;
}

}  // namespace warplab::rtc
