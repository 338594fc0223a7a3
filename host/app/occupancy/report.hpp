// occupancy/report.hpp: what `warplab occupancy` found, and how it prints it: per target
// (a GPU or a profile), per kernel, one row per block size with k:occupancy's answer
// (lab/kernel_info.hpp). One block size: the five limits, each on its own line; several:
// a sweep table with a column per limit. --json: the same numbers under k:occupancy's names.
#pragma once
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "cu/device.hpp"
#include "cu/limits.hpp"
#include "lab/kernel_info.hpp"

namespace warplab::app {

struct OccupancyRow {
  int block = 0;
  lab::OccupancyReport report;
};

struct OccupancyKernel {
  std::string name;       // "reduce<256>", or an extern "C" kernel's own name
  std::string signature;  // "reduce<256>(const float*, float*)"; "" for extern "C"
  std::string mangled;
  cu::KernelLimits limits;  // registers, static shared, max threads, barriers
  std::vector<OccupancyRow> rows;
};

struct OccupancyTarget {
  cu::DeviceSnapshot device;
  cu::DeviceLimits limits;
  std::string arch;  // the code's: "sm_90"
  std::vector<OccupancyKernel> kernels;
};

struct OccupancyAnswer {
  std::string file;
  long long shared = 0;  // dynamic shared bytes per block (--shared)
  int carveout = -1;     // --carveout, -1: the driver's choice
  bool sweep = false;    // several block sizes: one table per kernel
  std::vector<OccupancyTarget> targets;
};

// The text: per target a heading, per kernel its resources, then the detail of one block
// size or the sweep table; the limiting resources marked.
void print_occupancy(std::ostream& os, const OccupancyAnswer& a);

// {file, shared, carveout, targets: [{device, source, live, arch, compute_capability,
// kernels: [{name, signature, mangled, regs, static_shared, max_threads, barriers,
// rows: [{block, shared, blocks_per_sm, ..., limiter, limiting, by_*, reason,
// driver_blocks_per_sm}]}]}]}: k:occupancy's field names, null for a limit that does not
// apply (docs/cli.md).
nlohmann::ordered_json occupancy_json(const OccupancyAnswer& a);

}  // namespace warplab::app
