// stream.hpp: cuda.stream's options without Lua: a priority checked against the device's
// range (cuCtxGetStreamPriorityRange; the driver would clamp an out-of-range one silently),
// with the sentence that gives the range and which end runs first.
// Depends on cu/stream.hpp, lab/module.hpp (lab::Error).
#pragma once
#include "cu/stream.hpp"

namespace warplab::lab {

// The priority `p` as the driver takes it. Throws lab::Error unless p is an integer within
// r: "cuda.stream: priority 3 is outside this device's range, -5 (highest) to 0 (lowest)",
// "cuda.stream: priority must be an integer from -5 (highest) to 0 (lowest), got nan".
int check_priority(double p, const cu::PriorityRange& r);

}  // namespace warplab::lab
