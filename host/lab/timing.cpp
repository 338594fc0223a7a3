// timing.cpp: see timing.hpp.
#include "lab/timing.hpp"

#include <algorithm>
#include <cmath>

namespace warplab::lab {

TimingStats timing_stats(std::vector<double> ms) {
  TimingStats t;
  double sum = 0;
  for (double x : ms) sum += x;
  t.mean = sum / static_cast<double>(ms.size());
  double var = 0;
  for (double x : ms) var += (x - t.mean) * (x - t.mean);
  std::sort(ms.begin(), ms.end());
  const std::size_t n = ms.size();
  t.n = n;
  t.median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  t.min = ms.front();
  t.max = ms.back();
  t.stdev = n > 1 ? std::sqrt(var / static_cast<double>(n - 1)) : 0.0;
  return t;
}

}  // namespace warplab::lab
