// kernel_offline.cpp: what a kernel's PTX entry tells when no driver can be asked (a
// profile, no GPU): its parameter layout (the .param list) and its own thread cap
// (.maxntid / .reqntid from __launch_bounds__, combined with the register limit), so
// offline launch checks see what the driver would report. Pure text; no Lua stack use.
// Depends on bind/module.hpp, cu/occupancy.hpp. (The parser would sit well in rtc/ptx.)
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "bind/module.hpp"

namespace warplab::bind {
namespace {

struct PtxEntry {
  bool found = false;
  long long max_threads = 0;                        // .maxntid/.reqntid product; 0: none
  std::vector<std::pair<std::size_t, std::size_t>> params;  // {alignment, bytes}
};

// Bytes of a PTX scalar type token (".u64" -> 8); 0 when it is not one.
std::size_t type_bytes(const std::string& t) {
  if (t.size() < 3 || t[0] != '.' || !std::strchr("usbf", t[1])) return 0;
  const int bits = std::atoi(t.c_str() + 2);
  return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? static_cast<std::size_t>(bits / 8) : 0;
}

// One ".param" declaration: ".param .u64 x", ".param .align 8 .b8 x[16]",
// ".param .u64 .ptr .global .align 4 x" (an .align after .ptr is the pointee's).
std::pair<std::size_t, std::size_t> read_param(const std::string& decl) {
  std::istringstream in(decl);
  std::string tok;
  std::size_t align = 0, elem = 0, count = 1;
  bool ptr = false;
  while (in >> tok) {
    if (tok == ".align" && !ptr && elem == 0) in >> align;
    else if (tok == ".ptr") ptr = true;
    else if (!elem && type_bytes(tok)) elem = type_bytes(tok);
    else if (elem && tok.find('[') != std::string::npos)
      count = static_cast<std::size_t>(std::strtoull(tok.c_str() + tok.find('[') + 1, nullptr, 10));
  }
  return {align ? align : elem, elem * count};
}

PtxEntry read_entry(const std::string& ptx, const std::string& name) {
  PtxEntry e;
  const std::string key = ".entry " + name + "(";
  const std::size_t at = ptx.find(key);
  if (at == std::string::npos) return e;
  const std::size_t open = at + key.size(), close = ptx.find(')', open);
  const std::size_t body = ptx.find('{', close);
  if (close == std::string::npos || body == std::string::npos) return e;
  e.found = true;
  std::istringstream params(ptx.substr(open, close - open));
  std::string decl;
  while (std::getline(params, decl, ','))
    if (decl.find(".param") != std::string::npos) e.params.push_back(read_param(decl));
  // Performance directives sit between the parameter list and the body.
  const std::string dirs = ptx.substr(close, body - close);
  for (const char* d : {".maxntid", ".reqntid"}) {
    const std::size_t p = dirs.find(d);
    if (p == std::string::npos) continue;
    long long product = 1;
    std::istringstream nums(dirs.substr(p + std::strlen(d)));
    for (long long v; nums >> v;) {
      product *= v;
      if (nums.peek() == ',') nums.get();
    }
    e.max_threads = e.max_threads ? std::min(e.max_threads, product) : product;
  }
  return e;
}

// The largest block (a multiple of the warp size) whose registers fit on an SM: the
// register part of what the driver reports as the kernel's max_threads_per_block.
int register_max_threads(const cu::KernelLimits& k, const cu::DeviceLimits& d) {
  int best = 0;
  for (int b = d.warp_size; b <= d.max_threads_per_block; b += d.warp_size)
    if (cu::occupancy(k, b, 0, d).blocks_per_sm > 0) best = b;
  return best;
}

}  // namespace

void offline_max_threads(KernelObj& k, const cu::DeviceLimits& d) {
  const PtxEntry e = read_entry(k.module->result.ptx, k.mangled);
  cu::KernelLimits bare = k.limits;
  bare.max_threads_per_block = 0;
  int cap = register_max_threads(bare, d);
  if (e.max_threads > 0) cap = static_cast<int>(std::min<long long>(cap, e.max_threads));
  k.limits.max_threads_per_block = cap;
}

void ptx_layout(KernelObj& k) {
  // Each parameter at the next multiple of its alignment, as the driver lays out the
  // parameter buffer. Without the entry, natural alignment from the signature's sizes.
  const PtxEntry e = read_entry(k.module->result.ptx, k.mangled);
  std::size_t next = 0;
  auto place = [&](std::size_t align, std::size_t size) {
    align = std::max<std::size_t>(1, std::min<std::size_t>(align, 16));
    next = (next + align - 1) / align * align;
    k.offsets.push_back(next);
    k.sizes.push_back(size);
    next += size;
  };
  if (e.found) {
    for (const auto& [align, size] : e.params) place(align, size);
  } else if (k.sig) {
    for (const auto& p : k.sig->params) {
      const std::size_t size = p.size > 0 ? static_cast<std::size_t>(p.size) : 8;
      place(std::min<std::size_t>(size, 8), size);
    }
  }
}

}  // namespace warplab::bind
