// ptx.hpp: facts read from PTX text without a GPU: the kernels (.entry) it defines.
#pragma once
#include <string>
#include <vector>

namespace warplab::rtc {

// The names of every .entry (kernel) in PTX order: mangled for C++ kernels, plain for
// extern "C" ones. Covers ".visible .entry" and the ".weak .entry" of template
// instantiations.
std::vector<std::string> ptx_entries(const std::string& ptx);

}  // namespace warplab::rtc
