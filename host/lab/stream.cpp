// stream.cpp: see stream.hpp.
#include "lab/stream.hpp"

#include <cmath>
#include <string>

#include "lab/array.hpp"  // lab::num
#include "lab/module.hpp"

namespace warplab::lab {

int check_priority(double p, const cu::PriorityRange& r) {
  const std::string range =
      std::to_string(r.greatest) + " (highest) to " + std::to_string(r.least) + " (lowest)";
  if (!(p == std::floor(p)) || std::isinf(p))  // NaN fails the comparison
    throw Error("cuda.stream: priority must be an integer from " + range + ", got " +
                (std::isnan(p) ? std::string("nan") : num(p)));
  if (p > r.least || p < r.greatest)
    throw Error("cuda.stream: priority " + num(p) + " is outside this device's range, " + range +
                "; a smaller number runs first");
  return static_cast<int>(p);
}

}  // namespace warplab::lab
