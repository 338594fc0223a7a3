// ptx.hpp: facts read from PTX text without a GPU, in one place: the kernels (.entry) it
// defines, each with its parameter layout (.param alignment and size, as the driver lays
// out the parameter buffer), its thread caps (.maxntid / .reqntid, from
// __launch_bounds__), its cluster directives (.reqnctapercluster / .explicitcluster from
// __cluster_dims__, .maxclusterrank from __launch_bounds__' third value) and where its text
// starts and ends. Used by compile (entries), every kernel (layout, caps, clusters) and
// `watch --diff` (per-kernel bodies).
#pragma once
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace warplab::rtc {

struct PtxParam {
  std::size_t align = 0;  // bytes (.align N, else the element size)
  std::size_t bytes = 0;  // element size x count
};

struct PtxEntry {
  std::string name;                   // mangled for C++ kernels, plain for extern "C"
  std::vector<PtxParam> params;       // in declaration order
  std::array<unsigned, 3> maxntid{};  // zeros: not declared
  std::array<unsigned, 3> reqntid{};
  std::array<unsigned, 3> cluster{};  // .reqnctapercluster: the compile-time cluster; zeros: none
  bool explicit_cluster = false;      // .explicitcluster: launched only as clusters
  unsigned max_cluster_rank = 0;      // .maxclusterrank: blocks per cluster at most; 0: not declared
  unsigned min_blocks = 0;            // .minnctapersm: __launch_bounds__' blocks per SM; 0: not declared
  std::size_t begin = 0, end = 0;     // the entry's text: [begin, end) of the PTX
  // The smaller of the .maxntid and .reqntid products; 0 when neither is declared.
  long long max_threads() const;
};

// Every .entry in PTX order, with ".visible" and the ".weak" of template instantiations
// (declarations without a body, ".extern", are left out).
std::vector<PtxEntry> ptx_entry_list(const std::string& ptx);
// One entry by name; nullopt when the PTX has none of that name.
std::optional<PtxEntry> ptx_entry(const std::string& ptx, const std::string& name);
// Just the names, in PTX order.
std::vector<std::string> ptx_entries(const std::string& ptx);

}  // namespace warplab::rtc
