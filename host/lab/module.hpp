// module.hpp: warplab's compiled module and typed kernel, without Lua: compile -> load ->
// record (build), a kernel's resources, limits, parameter layout and launch plan
// (make_kernel; offline from the PTX: kernel_offline.cpp). Specs: module_spec.hpp; kernels
// by name: module_find.hpp; recompiling: module_reload.hpp.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cu/context.hpp"
#include "cu/limits.hpp"
#include "cu/module.hpp"
#include "lab/live.hpp"
#include "lab/watch_feed.hpp"
#include "rtc/cache.hpp"
#include "rtc/compile.hpp"
#include "sys/error.hpp"

namespace warplab::lab {

// How a module was compiled, kept so a reload can compile it again.
struct ModuleSpec {
  rtc::Source source;
  rtc::Options options;
  std::string path;  // the file, empty for an inline source
};

struct ModuleObj {
  ModuleSpec spec;
  rtc::CompileResult result;  // ptx, cubin, entries, resources, lowered names, deps
  cu::ModulePtr live;         // loaded on the GPU; null offline
  bool freed = false;
  std::vector<FileStamp> stamps;  // the files it was built from (live.hpp)
};
using ModuleRef = std::shared_ptr<ModuleObj>;

// One parameter as a launch fills it, derived once from the signature and the layout
// (lab/launch.hpp plan_args) so that a launch compares numbers, never spellings.
struct ArgSlot {
  rtc::ParamType::Kind kind = rtc::ParamType::Kind::Other;
  std::size_t offset = 0, size = 0;  // in the parameter buffer
  std::uint32_t dtypes = 0;          // pointer: the cuda.array element types it accepts (bit per DType)
  long long lo = 0, hi = 0;          // integer: the range of its type (unsigned 64-bit: hi = -1, any >= 0)
  int bits = 0;                      // integer: width in bits
  bool size_mismatch = false;        // the signature's size differs from the layout's
  bool tensor_map = false;           // a CUtensorMap (by value): takes a cuda.tensor_map
};

struct KernelObj {
  KernelObj() = default;
  KernelObj(const KernelObj&) = delete;
  KernelObj& operator=(const KernelObj&) = delete;
  ~KernelObj();  // feeds a watching parent the last launch (watch_feed.hpp feed_launch)

  ModuleRef module;
  std::string mangled;
  std::string display;                // "saxpy", "reduce<256>": for messages
  std::optional<rtc::Signature> sig;  // demangled or declared; none: extern "C" undeclared
  rtc::KernelResources res;           // from the CUBIN (and the ptxas report's spills)
  std::shared_ptr<cu::Function> fn;   // live only
  cu::KernelLimits limits;
  std::vector<std::size_t> offsets;  // parameter layout (driver's, or computed)
  std::vector<std::size_t> sizes;
  // Preallocated argument storage, so a launch allocates nothing.
  std::vector<unsigned char> argbuf;
  std::vector<void*> argptrs;
  std::vector<ArgSlot> slots;  // per parameter, when the signature is known
  // Noted by the launch path (one store per launch), fed only when the kernel is released.
  LastLaunch last_launch;
  // The last configuration the launch check passed for this kernel against `passed_for`
  // (a run's device limits): the check is a pure function of the two, so a launch with the
  // same shape (grid, block, shared, cooperative; no cluster, whose check asks the
  // driver) is not checked again (launch.hpp preflight).
  cu::LaunchConfig passed;
  const cu::DeviceLimits* passed_for = nullptr;
};
using KernelRef = std::shared_ptr<KernelObj>;

// Compiles `spec` (through `cache` when given), tells a watching parent which files it
// read and what code it made (watch_feed.hpp), stamps those files (live.hpp), and on success
// loads the CUBIN into `ctx` (null: offline, nothing is loaded). A source that does not
// compile is a module whose result says so, not an error.
ModuleRef build(ModuleSpec spec, rtc::Cache* cache, const cu::ContextPtr& ctx);
// Compiles a spec into a module: build with a run's cache and context (Run::builder), or a
// test's stand-in; module_reload.hpp recompiles with one.
using Builder = std::function<ModuleRef(ModuleSpec)>;

// Kernel `mangled` of module m: resources, limits and parameter layout, from the driver
// when m is live, else from the CUBIN and PTX against `offline_limits`, and the launch plan
// (launch.hpp plan_args). Throws Error (bad_input) when a declared signature's parameter count
// differs from the kernel's.
KernelRef make_kernel(const ModuleRef& m, const std::string& mangled, std::optional<rtc::Signature> sig,
                      const cu::DeviceLimits* offline_limits);

// When no driver can be asked (kernel_offline.cpp, from the module's PTX): the kernel's
// max threads per block (registers and launch bounds), and its parameter layout.
void offline_max_threads(KernelObj& k, const cu::DeviceLimits& d);
// The same from a compile alone (`compile --json`): kernel `mangled` of `r`, using `k`'s
// registers, shared memory and barriers on `d`; the largest block it can be launched with.
int compiled_max_threads(const rtc::CompileResult& r, const std::string& mangled, const cu::KernelLimits& k,
                         const cu::DeviceLimits& d);
void ptx_layout(KernelObj& k);
// Live or not: the rules the kernel's code carries into k.limits (the launch check's):
// its architecture, and its PTX's cluster directives (__cluster_dims__, .maxclusterrank).
void code_rules(KernelObj& k);
// The architecture part: k.code_arch and code_arch_variant for `arch` ("sm_90a": 90, 'a').
void set_code_arch(cu::KernelLimits& k, const std::string& arch);

// Feeds a watching parent the files this compile read (watch_feed.hpp).
void feed_dependencies(const ModuleSpec& spec, const rtc::CompileResult& r);

}  // namespace warplab::lab
