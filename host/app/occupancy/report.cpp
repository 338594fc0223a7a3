// occupancy/report.cpp: the text and the JSON of `warplab occupancy` (report.hpp).
#include "app/occupancy/report.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "sys/text.hpp"

namespace warplab::app {
namespace {

using cu::Limiter;

// "48 KiB" when exact, else bytes.
std::string bytes(long long b) {
  if (b >= 1024 && b % 1024 == 0) return std::to_string(b / 1024) + " KiB";
  return std::to_string(b) + " B";
}

std::string percent(double v) {
  std::ostringstream o;
  o << std::lround(v * 100) << "%";
  return o.str();
}

// The blocks one resource allows: a number, or "-" for a resource the kernel does not use.
std::string allows(int v) { return v == cu::kNoLimit ? "-" : std::to_string(v); }

// The five limits in the calculator's order (cu/occupancy.hpp), with what one block takes
// and what the SM has of each.
struct LimitRow {
  Limiter which;
  const char* name;
  int blocks;
  std::string takes, has;
};
std::vector<LimitRow> limit_rows(const OccupancyKernel& k, const cu::OccupancyResult& r,
                                 const cu::DeviceLimits& d) {
  return {
      {Limiter::warps, "warps", r.by_warps, sys::plural(r.warps_per_block, "warp"),
       sys::plural(r.max_warps_per_sm, "warp")},
      {Limiter::registers, "registers", r.by_registers, std::to_string(r.regs_per_block),
       std::to_string(d.max_regs_per_sm)},
      {Limiter::shared_memory, "shared memory", r.by_shared, bytes(r.shared_per_block),
       r.shared_per_sm > 0 ? bytes(r.shared_per_sm) : "-"},
      {Limiter::blocks, "blocks", r.by_blocks, "1", std::to_string(r.by_blocks)},
      {Limiter::barriers, "barriers", r.by_barriers, std::to_string(k.limits.barriers), "-"},
  };
}

// The resources whose limit is the answer: "warps", "warps, registers".
std::vector<std::string> limiting(const cu::OccupancyResult& r) {
  std::vector<std::string> out;
  for (Limiter l :
       {Limiter::warps, Limiter::registers, Limiter::shared_memory, Limiter::blocks, Limiter::barriers})
    if (r.limiting_mask & static_cast<unsigned>(l)) out.emplace_back(cu::limiter_name(l));
  return out;
}

void print_heading(std::ostream& os, const OccupancyKernel& k) {
  const cu::KernelLimits& l = k.limits;
  os << (k.signature.empty() ? k.name : k.signature) << "  [" << sys::plural(l.regs, "register")
     << " per thread, " << bytes(l.static_shared) << " static shared, max " << l.max_threads_per_block
     << " threads]\n";
}

// One block size: the answer in a sentence, then a line per limit.
void print_detail(std::ostream& os, const OccupancyAnswer& a, const OccupancyTarget& t,
                  const OccupancyKernel& k, const OccupancyRow& row) {
  const cu::OccupancyResult& r = row.report.calc;
  const int idle = r.warps_per_block * t.limits.warp_size - row.block;
  os << "  block " << row.block << " (" << sys::plural(r.warps_per_block, "warp")
     << (idle > 0 ? ", " + std::to_string(idle) + " idle lanes" : "") << "), " << bytes(a.shared)
     << " dynamic shared";
  if (a.carveout >= 0) os << ", carveout " << a.carveout << "%";
  os << ": " << sys::plural(r.blocks_per_sm, "block") << " per SM, " << r.active_warps_per_sm << " of "
     << sys::plural(r.max_warps_per_sm, "warp") << " (" << percent(r.occupancy) << "), limited by "
     << sys::join(limiting(r), " and ") << "\n";
  if (!r.reason.empty()) os << "  " << r.reason << "\n";
  if (row.report.has_driver)
    os << "  driver: "
       << (row.report.driver_error.empty() ? sys::plural(row.report.driver_blocks, "block") + " per SM"
                                           : row.report.driver_error)
       << "\n";
  const std::vector<LimitRow> rows = limit_rows(k, r, t.limits);
  os << "    limit          allows  a block takes  the SM has\n";
  for (const LimitRow& l : rows) {
    std::ostringstream line;
    line << "    " << std::left << std::setw(13) << l.name << std::right << std::setw(8) << allows(l.blocks)
         << "  " << std::left << std::setw(13) << l.takes << "  " << std::setw(10) << l.has
         << ((r.limiting_mask & static_cast<unsigned>(l.which)) ? "  <- limit" : "");
    std::string text = line.str();
    text.erase(text.find_last_not_of(' ') + 1);  // no padding after the last column
    os << text << "\n";
  }
}

// Several block sizes: a row each, with the blocks each limit allows.
void print_sweep(std::ostream& os, const OccupancyKernel& k) {
  std::vector<std::string> by;  // the "limited by" column, as wide as its widest entry
  std::size_t width = 11;
  for (const OccupancyRow& row : k.rows) {
    const cu::OccupancyResult& r = row.report.calc;
    by.push_back(r.blocks_per_sm > 0 ? sys::join(limiting(r), ", ") : "(none fits)");
    width = std::max(width, by.back().size());
  }
  // The right-hand columns' caption, over them: what each number there counts.
  const std::string left = "  block  warps  blocks/SM  warps/SM  occupancy  ";
  os << std::string(left.size() + width, ' ') << " |  blocks per SM each limit allows\n";
  os << left << std::left << std::setw(static_cast<int>(width)) << "limited by" << std::right
     << " |  warps  registers  shared  blocks  barriers\n";
  std::vector<std::string> notes;
  for (std::size_t i = 0; i < k.rows.size(); ++i) {
    const OccupancyRow& row = k.rows[i];
    const cu::OccupancyResult& r = row.report.calc;
    os << std::right << std::setw(7) << row.block << std::setw(7) << r.warps_per_block << std::setw(11)
       << r.blocks_per_sm << std::setw(10) << r.active_warps_per_sm << std::setw(11) << percent(r.occupancy)
       << "  " << std::left << std::setw(static_cast<int>(width)) << by[i] << std::right << " |"
       << std::setw(7) << allows(r.by_warps) << std::setw(11) << allows(r.by_registers) << std::setw(8)
       << allows(r.by_shared) << std::setw(8) << allows(r.by_blocks) << std::setw(10)
       << allows(r.by_barriers);
    if (row.report.has_driver)
      os << "   driver "
         << (row.report.driver_error.empty() ? std::to_string(row.report.driver_blocks) : "refused");
    os << "\n";
    if (!r.reason.empty() && r.blocks_per_sm == 0)
      notes.push_back("block " + std::to_string(row.block) + ": " + r.reason);
  }
  for (const std::string& n : notes) os << "  note: " << n << "\n";
}

nlohmann::ordered_json limit_json(int v) {
  return v == cu::kNoLimit ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(v);
}

}  // namespace

void print_occupancy(std::ostream& os, const OccupancyAnswer& a) {
  bool first = true;
  for (const OccupancyTarget& t : a.targets) {
    os << (first ? "" : "\n") << a.file << " on " << t.device.source << ": " << t.device.summary() << "\n";
    first = false;
    if (a.sweep)
      os << bytes(a.shared) << " dynamic shared per block"
         << (a.carveout >= 0 ? ", carveout " + std::to_string(a.carveout) + "%" : "") << "\n";
    for (const OccupancyKernel& k : t.kernels) {
      os << "\n";
      print_heading(os, k);
      if (a.sweep)
        print_sweep(os, k);
      else
        for (const OccupancyRow& row : k.rows) print_detail(os, a, t, k, row);
    }
  }
}

nlohmann::ordered_json occupancy_json(const OccupancyAnswer& a) {
  nlohmann::ordered_json j;
  j["file"] = a.file;
  j["shared"] = a.shared;
  j["carveout"] = a.carveout >= 0 ? nlohmann::ordered_json(a.carveout) : nlohmann::ordered_json(nullptr);
  j["targets"] = nlohmann::ordered_json::array();
  for (const OccupancyTarget& t : a.targets) {
    nlohmann::ordered_json tj;
    tj["device"] = t.device.name;
    tj["source"] = t.device.source;
    tj["live"] = t.device.live();
    tj["arch"] = t.arch;
    tj["compute_capability"] = std::to_string(t.device.cc_major) + "." + std::to_string(t.device.cc_minor);
    tj["kernels"] = nlohmann::ordered_json::array();
    for (const OccupancyKernel& k : t.kernels) {
      nlohmann::ordered_json kj;
      kj["name"] = k.name;
      kj["signature"] =
          k.signature.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(k.signature);
      kj["mangled"] = k.mangled;
      kj["regs"] = k.limits.regs;
      kj["static_shared"] = k.limits.static_shared;
      kj["max_threads"] = k.limits.max_threads_per_block;
      kj["barriers"] = k.limits.barriers;
      kj["rows"] = nlohmann::ordered_json::array();
      for (const OccupancyRow& row : k.rows) {
        const cu::OccupancyResult& r = row.report.calc;
        nlohmann::ordered_json rj;
        rj["block"] = row.block;
        rj["shared"] = a.shared;
        rj["blocks_per_sm"] = r.blocks_per_sm;
        rj["warps_per_block"] = r.warps_per_block;
        rj["active_warps"] = r.active_warps_per_sm;
        rj["max_warps"] = r.max_warps_per_sm;
        rj["occupancy"] = r.occupancy;
        rj["limiter"] = std::string(cu::limiter_name(r.limiter));
        rj["limiting"] = limiting(r);
        rj["by_warps"] = limit_json(r.by_warps);
        rj["by_registers"] = limit_json(r.by_registers);
        rj["by_shared"] = limit_json(r.by_shared);
        rj["by_blocks"] = limit_json(r.by_blocks);
        rj["by_barriers"] = limit_json(r.by_barriers);
        rj["regs_per_block"] = r.regs_per_block;
        rj["shared_per_block"] = r.shared_per_block;
        rj["shared_per_sm"] = r.shared_per_sm;
        rj["reason"] = r.reason.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.reason);
        const lab::OccupancyReport& rep = row.report;
        rj["driver_blocks_per_sm"] = rep.has_driver && rep.driver_error.empty()
                                         ? nlohmann::ordered_json(rep.driver_blocks)
                                         : nlohmann::ordered_json(nullptr);
        if (rep.has_driver && !rep.driver_error.empty()) rj["driver_error"] = rep.driver_error;
        kj["rows"].push_back(rj);
      }
      tj["kernels"].push_back(kj);
    }
    j["targets"].push_back(tj);
  }
  return j;
}

}  // namespace warplab::app
