// run.cpp: a run's GPU context, error sentences and module builds, and what it sets up
// around its script (see run.hpp).
#include "lab/run.hpp"

#include "cu/launch.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;

namespace warplab::lab {

Run::Run(const Options& o, Target t) : opts(o), cache(open_cache(o)), target_(std::move(t)) {
  opts.color = stdout_color(o);
}

Run::Run(const Options& o, TargetChooser choose) : opts(o), cache(open_cache(o)), choose_(std::move(choose)) {
  opts.color = stdout_color(o);
}

// The chooser is kept until it answers: one that throws (a driver failure) throws again on
// the next use rather than leave an empty target behind.
[[gnu::cold]] [[gnu::noinline]] void Run::choose() {
  Target t = choose_();
  choose_ = nullptr;
  target_ = std::move(t);
}

void Run::require_gpu(const char* what) {
  if (offline())
    throw Error(ErrorKind::no_gpu,
                "no CUDA device: " + std::string(what) + " needs a GPU (" + offline_reason() + ")");
}

const cu::ContextPtr& Run::gpu_context(const char* what) {
  require_gpu(what);
  if (!context) context = cu::primary_context(target_.device.ordinal);  // chosen by require_gpu
  context->make_current();
  return context;
}

std::string Run::describe(const cu::Error& e) {
  if (!is_async_fault(e.code())) return e.what();
  context_lost = true;  // every later call on this context fails the same way
  if (faults.since_sync == 0) return e.what();
  return fault_text(faults, e.code(), e.call());
}

ModuleRef Run::build(ModuleSpec spec) {
  static const cu::ContextPtr none;
  if (offline()) {
    ModuleRef m = lab::build(std::move(spec), cache.get(), none);
    if (built) built->push_back(m);
    return m;
  }
  // Code for another compute capability is compiled but not loaded (the driver would only
  // refuse it): its kernels answer from the compile, and the launch check, k:check and
  // k:occupancy refuse them with the architecture's sentence (cu::check_code).
  cu::KernelLimits code;
  set_code_arch(code, spec.options.arch);
  const cu::ContextPtr& ctx = gpu_context("cuda.compile");
  return lab::build(std::move(spec), cache.get(), cu::check_code(code, limits()) ? none : ctx);
}

std::string exe_dir() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.parent_path().string();
}

std::vector<std::string> lua_library_dirs(const std::string& source_dir) {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("WARPLAB_LUA_DIR")) dirs.emplace_back(env);
  const std::string exe = exe_dir();
  if (!exe.empty()) {
    dirs.push_back(exe + "/../lua");                // build/ inside the source tree
    dirs.push_back(exe + "/../share/warplab/lua");  // installed layout
  }
  dirs.push_back(source_dir + "/lua");
  std::vector<std::string> found;
  for (const auto& d : dirs) {
    std::error_code ec;
    if (fs::is_directory(d + "/warplab", ec)) found.push_back(fs::weakly_canonical(d).string());
  }
  return found;
}

std::unique_ptr<rtc::Cache> open_cache(const Options& opts) {
  if (!opts.cache) return nullptr;
  auto cache = std::make_unique<rtc::Cache>(rtc::Cache::default_dir());
  static bool warned = false;  // once per process, however many scripts it runs
  if (!cache->warning().empty() && !warned) {
    warned = true;
    std::fprintf(stderr, "warplab: %s\n", cache->warning().c_str());
  }
  return cache;
}

bool stdout_color(const Options& opts) {
  return opts.color && isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR");
}

}  // namespace warplab::lab
