// module.hpp: the objects behind `cuda.compile` modules and their kernels, shared by
// bind_module.cpp (compiling, lookup), bind_kernel.cpp (fields, occupancy) and
// kernel_launch.cpp (marshaling, launching). Depends on rtc/compile.hpp, cu/module.hpp.
#pragma once
#include <lua.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bind/module_live.hpp"
#include "cu/module.hpp"
#include "cu/occupancy.hpp"
#include "rtc/compile.hpp"

namespace warplab::bind {

inline constexpr const char* kModuleMeta = "warplab.module";
inline constexpr const char* kKernelMeta = "warplab.kernel";

// How a module was compiled, kept so :reload() can compile it again.
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
  std::vector<FileStamp> stamps;  // the files it was built from (module_live.hpp)
};
using ModuleRef = std::shared_ptr<ModuleObj>;

// One parameter as a launch fills it, derived once from the signature and the layout
// (kernel_args.cpp plan_args) so that a launch compares numbers, never spellings.
struct ArgSlot {
  rtc::ParamType::Kind kind = rtc::ParamType::Kind::Other;
  std::size_t offset = 0, size = 0;  // in the parameter buffer
  std::uint32_t dtypes = 0;          // pointer: the cuda.array element types it accepts (bit per DType)
  long long lo = 0, hi = 0;          // integer: the range of its type (unsigned 64-bit: hi = -1, any >= 0)
  int bits = 0;                      // integer: width in bits
  bool size_mismatch = false;        // the signature's size differs from the layout's
};

struct KernelObj {
  ModuleRef module;
  std::string mangled;
  std::string display;                  // "saxpy", "reduce<256>": for messages
  std::optional<rtc::Signature> sig;    // demangled or declared; none: extern "C" undeclared
  rtc::KernelResources res;             // from the ptxas report
  std::shared_ptr<cu::Function> fn;     // live only
  cu::KernelLimits limits;
  std::vector<std::size_t> offsets;     // parameter layout (driver's, or computed)
  std::vector<std::size_t> sizes;
  // Preallocated argument storage, so a launch allocates nothing.
  std::vector<unsigned char> argbuf;
  std::vector<void*> argptrs;
  std::vector<ArgSlot> slots;  // per parameter, when the signature is known
};
using KernelRef = std::shared_ptr<KernelObj>;

struct Runtime;

ModuleRef& check_module(lua_State* L, int idx);
KernelRef& check_kernel(lua_State* L, int idx);
// The same, with the state's runtime at hand (the launch path: one runtime() per launch).
KernelRef& check_kernel(lua_State* L, int idx, Runtime& rt);
// Builds the kernel `mangled` of module m (layout, limits, function handle when live).
KernelRef make_kernel(lua_State* L, const ModuleRef& m, const std::string& mangled,
                      std::optional<rtc::Signature> sig);
void push_kernel(lua_State* L, KernelRef k);

// When no driver can be asked (kernel_offline.cpp, from the module's PTX): the kernel's
// max threads per block (registers and launch bounds), and its parameter layout.
void offline_max_threads(KernelObj& k, const cu::DeviceLimits& d);
void ptx_layout(KernelObj& k);

// The device limits of the runtime's target, computed once per state.
const cu::DeviceLimits& device_limits(lua_State* L);

// kernel_args.cpp: the arguments at stack [first, first + n) into k's parameter buffer,
// checked against the signature (types and ranges only when rt.opts.check).
void marshal(lua_State* L, Runtime& rt, KernelObj& k, int first, int n);
// Fills k.slots from k.sig and the layout (k.offsets, k.sizes); make_kernel calls it.
void plan_args(KernelObj& k);

// kernel_launch.cpp: k:launch(...), k{...}, k:bench{...}, k:check{...}
void add_kernel_launch(lua_State* L);  // adds methods to the table on top of the stack
void push_kernel_call(lua_State* L);   // pushes __call (a closure over the launch table's keys)

}  // namespace warplab::bind
