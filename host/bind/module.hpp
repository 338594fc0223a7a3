// module.hpp: the Lua side of `cuda.compile` modules and their kernels (lab/module.hpp
// holds the objects), shared by bind_module.cpp and module_methods.cpp (compiling, lookup),
// bind_kernel.cpp (fields, occupancy) and kernel_launch.cpp (marshaling, launching).
#pragma once
#include <lua.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lab/launch.hpp"
#include "lab/module.hpp"

namespace warplab::bind {

inline constexpr const char* kModuleMeta = "warplab.module";
inline constexpr const char* kKernelMeta = "warplab.kernel";

// The objects themselves are lab's (lab/module.hpp): no Lua in them.
using lab::ArgSlot;
using lab::KernelObj;
using lab::KernelRef;
using lab::ModuleObj;
using lab::ModuleRef;
using lab::ModuleSpec;
using lab::offline_max_threads;
using lab::ptx_layout;

struct Runtime;

ModuleRef& check_module(lua_State* L, int idx);
KernelRef& check_kernel(lua_State* L, int idx);
// The same, with the state's runtime at hand (the launch path: one runtime() per launch).
KernelRef& check_kernel(lua_State* L, int idx, Runtime& rt);
// Builds the kernel `mangled` of module m (layout, limits, function handle when live).
KernelRef make_kernel(lua_State* L, const ModuleRef& m, const std::string& mangled,
                      std::optional<rtc::Signature> sig);
void push_kernel(lua_State* L, KernelRef k);

// The device limits of the runtime's target, computed once per state.
const cu::DeviceLimits& device_limits(lua_State* L);

// kernel_args.cpp: the arguments at stack [first, first + n) into k's parameter buffer,
// checked against the signature (types and ranges only when rt.opts.check).
void marshal(lua_State* L, Runtime& rt, KernelObj& k, int first, int n);
// Fills k.slots from k.sig and the layout (lab/launch.hpp); make_kernel calls it.
using lab::plan_args;

// kernel_launch.cpp: k:launch(...), k{...}, k:bench{...}, k:check{...}
void add_kernel_launch(lua_State* L);  // adds methods to the table on top of the stack
void push_kernel_call(lua_State* L);   // pushes __call (a closure over the launch table's keys)

}  // namespace warplab::bind
