// occupancy/command.cpp: `warplab occupancy FILE.cu`: how many blocks of each kernel fit
// on one SM and which resource stops the next one, for one block size or a sweep, on the
// GPU or on profiles (--profile a100,rtx4090), without a script. The file is compiled for
// each target's architecture and each kernel is made as cuda.compile makes it
// (lab/module.hpp), so the numbers are k:occupancy's (lab/kernel_info.hpp). report.cpp prints.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "app/cli/command.hpp"
#include "app/occupancy/report.hpp"
#include "cu/profile.hpp"
#include "lab/module_find.hpp"
#include "lab/module_spec.hpp"
#include "lab/run.hpp"
#include "rtc/signature.hpp"
#include "sys/shown.hpp"
#include "sys/text.hpp"

namespace warplab::app {
namespace {

struct OccupancyArgs {
  std::string file;
  std::vector<std::string> kernels;   // --kernel: names, or template expressions to instantiate
  std::string block;                  // --block: "256", "64..1024", "64..1024:64", "128,256"
  std::string shared;                 // --shared: dynamic bytes per block, "4K"
  int carveout = -1;                  // --carveout: percent, -1 the driver's choice
  std::vector<std::string> profiles;  // --profile a100,rtx4090 (its own: a list)
  std::vector<std::string> defines, include_dirs;
  bool json = false;
};

constexpr long kMaxThreads = 1 << 20;  // past any GPU; each target's own limit is checked later
constexpr std::size_t kMaxSizes = 4096;

// A whole number from 1 to `max`, digits only ("+5", "1.5", "1e3" are not).
bool whole(const std::string& s, long max, long& v) {
  if (s.empty() || s.size() > 12 || s.find_first_not_of("0123456789") != std::string::npos) return false;
  v = std::strtol(s.c_str(), nullptr, 10);
  return v >= 1 && v <= max;
}

// --block's sizes: a number, a range A..B (steps of 32, or A..B:STEP), or a comma list of
// those; the sentence why not when `text` is none of them.
std::string block_sizes(const std::string& text, std::vector<int>& out) {
  const std::string usage =
      "threads per block: a whole number from 1 (256), a range 64..1024 (steps of 32; "
      "64..1024:64 for others) or a list 128,256,512 (got '" +
      sys::shown(text) + "')";
  out.clear();
  for (const std::string& raw : sys::split(text, ',')) {
    const std::string piece = sys::trim(raw);
    const std::size_t dots = piece.find("..");
    long a = 0, b = 0, step = 32;
    if (dots == std::string::npos) {
      if (!whole(piece, kMaxThreads, a)) return usage;
      out.push_back(static_cast<int>(a));
    } else {
      const std::string tail = piece.substr(dots + 2);
      const std::size_t colon = tail.find(':');
      if (!whole(piece.substr(0, dots), kMaxThreads, a) || !whole(tail.substr(0, colon), kMaxThreads, b) ||
          (colon != std::string::npos && !whole(tail.substr(colon + 1), kMaxThreads, step)))
        return usage;
      if (a > b)
        return "a range of block sizes runs upward, A..B with A <= B (got '" + sys::shown(piece) + "')";
      for (long v = a; v <= b && out.size() <= kMaxSizes; v += step) out.push_back(static_cast<int>(v));
    }
    if (out.size() > kMaxSizes)
      return "at most " + std::to_string(kMaxSizes) + " block sizes at once (got '" + sys::shown(text) + "')";
  }
  return {};
}

// --shared's bytes: a number with an optional unit, B, K/KB/KiB (1024), M/MB/MiB.
std::string shared_bytes(const std::string& text, long long& out) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  const std::string unit = sys::lower(text.substr(digits));
  long long scale = 0;
  if (unit.empty() || unit == "b") scale = 1;
  if (unit == "k" || unit == "kb" || unit == "kib") scale = 1024;
  if (unit == "m" || unit == "mb" || unit == "mib") scale = 1024 * 1024;
  if (digits == 0 || digits > 10 || scale == 0)
    return "dynamic shared memory per block in bytes: 4096, 4K, 48KiB, 0 (got '" + sys::shown(text) + "')";
  out = std::strtoll(text.substr(0, digits).c_str(), nullptr, 10) * scale;
  if (out > (1ll << 30)) return "more shared memory than any GPU has (got '" + sys::shown(text) + "')";
  return {};
}

// The default sweep: one warp, then every second warp up to the largest block the device
// takes (32, 64, 128, ..., 1024).
std::vector<int> default_sizes(const cu::DeviceLimits& d) {
  std::vector<int> out = {d.warp_size};
  for (int b = 2 * d.warp_size; b <= d.max_threads_per_block; b += 2 * d.warp_size) out.push_back(b);
  return out;
}

// The targets: each --profile (a name or file; a comma list), else the live GPU, else the
// default profile with the one offline note (select_target).
std::vector<lab::Target> targets(const OccupancyArgs& a, const Globals& g) {
  std::vector<std::string> lists = a.profiles;                             // each --profile after the command
  if (lists.empty() && !g.opts.profile.empty()) lists = {g.opts.profile};  // before it, WARPLAB_PROFILE
  std::vector<lab::Target> out;
  for (const std::string& list : lists) {
    std::error_code ec;  // a shipped name or a file with a comma in its name is one profile
    const bool one = cu::find_embedded_profile(list) || std::filesystem::exists(list, ec);
    for (const std::string& n : one ? std::vector{list} : sys::split(list, ',')) {
      if (sys::trim(n).empty())
        throw Error(ErrorKind::usage,
                    "--profile: an empty name in '" + sys::shown(list) + "' (a list reads a100,rtx4090)");
      out.push_back({cu::load_profile(sys::trim(n)), true, "--profile"});
    }
  }
  if (!out.empty()) return out;
  cu::DeviceSnapshot d = select_target(g, /*fallback=*/true);
  const bool live = d.live();
  out.push_back({std::move(d), !live, live ? "" : offline_reason(g).value_or("")});
  return out;
}

// The entries to answer for: each --kernel's, else every kernel of the file.
std::vector<std::string> chosen(const lab::ModuleObj& m, const OccupancyArgs& a) {
  if (a.kernels.empty()) {
    if (m.result.entries.empty())
      throw Error(ErrorKind::bad_input, a.file +
                                            " has no kernel (a template kernel is instantiated with "
                                            "--kernel 'NAME<ARGS>')");
    return m.result.entries;
  }
  std::vector<std::string> out;
  for (const std::string& name : a.kernels) {
    try {
      out.push_back(lab::find_entry(m, name));
    } catch (const Error& e) {  // the module's sentence, with the nearest name
      std::string best;
      std::size_t best_d = std::max<std::size_t>(2, name.size() / 3) + 1;
      for (const std::string& n : lab::kernel_names(m.result))
        if (const std::size_t d = sys::edit_distance(name, n); d < best_d) best = n, best_d = d;
      throw Error(e.kind(), std::string(e.what()) + (best.empty() ? "" : "; did you mean '" + best + "'?"));
    }
  }
  return out;
}

// One target: the file compiled for it, each kernel made, each block size answered.
// Returns false when the file did not compile (the diagnostics are on stderr).
bool answer_target(const OccupancyArgs& a, const Globals& g, lab::Target t, const std::vector<int>& given,
                   OccupancyAnswer& out) {
  lab::Run run(g.opts, std::move(t));
  const cu::DeviceLimits& d = run.limits();
  const cu::DeviceSnapshot& dev = run.target();
  const std::string where = dev.source;
  for (int b : given)
    if (b > d.max_threads_per_block)
      throw Error(ErrorKind::bad_input, "--block " + std::to_string(b) + ": a block on " + where +
                                            " has at most " + std::to_string(d.max_threads_per_block) +
                                            " threads (max_threads_per_block)");
  if (out.shared > d.max_shared_per_block_optin)
    throw Error(ErrorKind::bad_input, "--shared " + a.shared + " (" + std::to_string(out.shared) +
                                          " bytes): a block on " + where + " has at most " +
                                          std::to_string(d.max_shared_per_block_optin) +
                                          " bytes of shared memory (max_shared_memory_per_block_optin)");
  lab::ModuleSpec spec;
  spec.options.arch = dev.arch();
  spec.options.include_dirs = a.include_dirs;
  try {
    for (const std::string& def : a.defines) spec.options.defines.push_back(rtc::parse_define(def));
  } catch (const rtc::Error& e) {
    throw Error(ErrorKind::usage, std::string("-D: ") + e.what());
  }
  for (const std::string& k : a.kernels)  // a template named with its arguments is instantiated
    if (k.find('<') != std::string::npos) spec.options.name_expressions.push_back(k);
  if (const auto why = lab::spec_from_file(spec, a.file, "")) throw Error(ErrorKind::bad_input, *why);
  const lab::ModuleRef m = run.build(std::move(spec));
  if (!m->result.ok) {
    std::cerr << rtc::format_diagnostics(m->result, 10, g.opts.color && isatty(STDERR_FILENO));
    std::cerr << "warplab: " << a.file << " did not compile for " << m->result.arch << " ("
              << sys::plural(m->result.errors(), "error") << ")\n";
    return false;
  }
  OccupancyTarget target{dev, d, m->result.arch, {}};
  for (const std::string& mangled : chosen(*m, a)) {
    const lab::KernelRef k = lab::make_kernel(m, mangled, rtc::demangle(mangled), m->live ? nullptr : &d);
    OccupancyKernel ok{k->display, k->sig ? k->sig->to_string() : "", mangled, k->limits, {}};
    // The sweep stops at the kernel's own cap; sizes asked for are answered, 0 blocks above it.
    std::vector<int> sizes = given;
    if (sizes.empty())
      for (int b : default_sizes(d))
        if (k->limits.max_threads_per_block <= 0 || b <= k->limits.max_threads_per_block) sizes.push_back(b);
    for (int b : sizes) {
      const lab::OccupancyRequest req{b, out.shared, out.carveout};
      if (const auto why = lab::occupancy_error(*k, req, d)) throw Error(ErrorKind::bad_input, *why);
      ok.rows.push_back({b, lab::occupancy_report(*k, req, d)});
    }
    target.kernels.push_back(std::move(ok));
  }
  out.targets.push_back(std::move(target));
  return true;
}

int run_occupancy(const OccupancyArgs& a, const Globals& g) {
  std::vector<int> given;
  if (!a.block.empty()) block_sizes(a.block, given);  // checked when parsed (exit 2)
  OccupancyAnswer out;
  out.file = a.file;
  out.carveout = a.carveout;
  out.sweep = given.size() != 1;
  if (!a.shared.empty()) shared_bytes(a.shared, out.shared);
  for (lab::Target& t : targets(a, g))
    if (!answer_target(a, g, std::move(t), given, out)) return kCompileError;
  if (a.json)
    std::cout << occupancy_json(out).dump(2) << "\n";
  else
    print_occupancy(std::cout, out);
  return kOk;
}

// A CLI11 check from one of the parsers above (a bad value: exit 2 with the sentence).
template <class T, class Parse>
CLI::Validator checked(Parse parse, const char* name) {
  return CLI::Validator(
      [parse](std::string& v) -> std::string {
        T out{};
        return parse(v, out);
      },
      name);
}

}  // namespace

void add_occupancy_command(CLI::App& app, const Globals& g, Commands& out) {
  auto a = std::make_shared<OccupancyArgs>();
  auto* sub = app.add_subcommand(
      "occupancy",
      "how many blocks of each kernel fit on an SM, and which resource limits them (no GPU needed)");
  sub->add_option("file", a->file, "CUDA source file")->required()->type_name("FILE.cu");
  sub->add_option("--kernel", a->kernels,
                  "the kernel to answer for (repeatable; default: every kernel of the file); 'NAME<ARGS>' "
                  "instantiates a template")
      ->allow_extra_args(false)
      ->type_name("KERNEL");
  sub->add_option("--block", a->block,
                  "threads per block: 256, a range 64..1024 (steps of 32; 64..1024:64) or a list 128,256; "
                  "default: a sweep of 32, 64, 128, ... up to the kernel's max")
      ->check(checked<std::vector<int>>(block_sizes, "BLOCK"))
      ->type_name("BLOCK");
  sub->add_option("--shared", a->shared, "dynamic shared memory per block: 4096, 4K, 48KiB (default 0)")
      ->check(checked<long long>(shared_bytes, "BYTES"))
      ->type_name("BYTES");
  sub->add_option("--carveout", a->carveout,
                  "the preferred shared-memory carveout in percent, 0..100 (default: the driver's choice)")
      ->check(count_upto(100))
      ->type_name("PERCENT");
  sub->add_option("--profile", a->profiles,
                  profile_help("answer for these profiles, comma-separated (a100,rtx4090), one table each"))
      ->allow_extra_args(false)
      ->check(profile_name())
      ->type_name("PROFILE");
  sub->add_option("-D", a->defines, "define a macro: NAME or NAME=VALUE")
      ->allow_extra_args(false)
      ->type_name("NAME[=VALUE]");
  sub->add_option("-I", a->include_dirs, "add a directory for #include \"...\"")
      ->allow_extra_args(false)
      ->type_name("DIR");
  sub->add_flag("--json", a->json, "print the answers as JSON, with k:occupancy's field names");
  set_help(sub,
           {"warplab occupancy reductions/ladder.cu --kernel reduce_shuffle --block 256",
            "warplab occupancy memory/banks.cu --block 64..1024 --shared 4K --profile a100,rtx4090",
            "warplab occupancy warps/thread_ids.cu --block 128,256 --json"},
           "Without --profile: the GPU, else the default profile (with a note). Exit status: 0; 2 a bad "
           "--block, --shared or --carveout value; 4 a file or kernel not found, an unknown profile, a block "
           "or shared memory larger than the device allows; 5 the file did not compile.\n");
  out.push_back({sub, [a, &g] { return run_occupancy(*a, g); }});
}

}  // namespace warplab::app
