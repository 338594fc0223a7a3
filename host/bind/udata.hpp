// udata.hpp: warplab's userdata as files other than their own see them: each metatable's
// name, the checkers and pushers a type's file defines for the others (a copy takes either
// array kind, a launch takes arrays and streams, a stream waits for events, a module makes
// kernels, a capture keeps what its work uses), and fast_testudata, which tells a userdata by its metatable's
// address on the launch path.
#pragma once
#include <lua.hpp>

#include <optional>

#include "bind/record.hpp"
#include "cu/stream.hpp"
#include "lab/array.hpp"
#include "lab/module.hpp"
#include "lab/tensor_map.hpp"

namespace warplab::bind {

inline constexpr const char* kArrayMeta = "warplab.array";
inline constexpr const char* kHostArrayMeta = "warplab.host_array";
inline constexpr const char* kModuleMeta = "warplab.module";
inline constexpr const char* kKernelMeta = "warplab.kernel";
inline constexpr const char* kStreamMeta = "warplab.stream";
inline constexpr const char* kEventMeta = "warplab.event";
inline constexpr const char* kGraphMeta = "warplab.graph";
inline constexpr const char* kTensorMapMeta = "warplab.tensor_map";

// array.cpp: the array at idx, raising "attempt to use a freed array" when released; a
// new empty array userdata on the stack.
lab::DeviceArray& check_array(lua_State* L, int idx);
lab::DeviceArray& push_array(lua_State* L);
// host_array.cpp: the same for host arrays ("attempt to use a freed host array"), and
// nullptr unless the value at idx is a host array (live or freed).
lab::HostArray& check_host_array(lua_State* L, int idx);
lab::HostArray& push_host_array(lua_State* L);
lab::HostArray* test_host_array(lua_State* L, int idx);
// kernel.cpp: pushes a new kernel handle (m:kernel and m.name make them).
void push_kernel(lua_State* L, lab::KernelRef k);
// stream.cpp: the CUstream of the stream at idx (raises when freed); nullptr for nil/none.
CUstream opt_stream(lua_State* L, int idx);
// event.cpp: the event at idx, raising "attempt to use a destroyed event" when released.
cu::Event& check_event(lua_State* L, int idx);
// stream.cpp: a stream's userdata: the stream, its number in the run (lab::StreamBook, which
// faults and the watchdog name), and whether it is non-blocking. push_stream makes one
// (with the device's default priority when `priority` is empty) and adds it to the book.
struct StreamHandle {
  cu::Stream stream;
  int number = 0;
  bool non_blocking = false;
  // Holds by calls that run Lua code while they use the stream (StreamHold), and whether a
  // s:free() came meanwhile: the stream then reads as destroyed, and goes when they end.
  int holds = 0;
  const char* held_by = nullptr;  // the first holder's name ("cuda.bench"), for the note
  bool released = false;
  bool live() const noexcept { return stream.valid() && !released; }
};
StreamHandle& push_stream(lua_State* L, const cu::ContextPtr& ctx, bool non_blocking,
                          std::optional<int> priority);
// stream.cpp: the stream at idx (checked as opt_stream checks it), held by `who`, a call
// that runs Lua code while it uses the stream (cuda.bench's function): a s:free() during
// the call marks the stream released (it reads as destroyed at once), says so on stderr,
// and the stream is destroyed when the last hold ends. The value at idx must stay on the
// stack while the hold lives, so the stream cannot be collected. nil holds nothing.
class StreamHold {
 public:
  StreamHold(lua_State* L, int idx, const char* who);
  ~StreamHold();
  StreamHold(const StreamHold&) = delete;
  StreamHold& operator=(const StreamHold&) = delete;
  CUstream get() const noexcept { return h_ ? h_->stream.get() : nullptr; }

 private:
  lua_State* L_;
  StreamHandle* h_ = nullptr;
};
// tensor_map.cpp: the tensor map at idx, or nullptr when the value is not one (a released
// handle's map is null too: the launch names that).
struct TensorMapHandle {
  std::shared_ptr<lab::TensorMap> map;
};
TensorMapHandle* test_tensor_map(lua_State* L, int idx);
// graph.cpp: while a capture runs, keeps the value at idx alive as long as the graph it
// makes (an array its work uses, a stream that joined it); nothing otherwise.
void keep_in_capture(lua_State* L, int idx);
// graph.cpp: after a launch during a capture, the arrays its arguments passed that were
// new to the capture (as marshal found them: StateRecord::new_uses) are reported to it
// (lab::Capture::use) and kept alive.
void keep_launch_args(lua_State* L, StateRecord& st);

// The userdata at idx when its metatable is registry[name], else nullptr. luaL_testudata
// looks the metatable up by name on every call (a string lookup with a strcmp); the
// registry keeps each metatable for the life of the state, so its address, read once into
// `meta`, identifies it with one pointer comparison.
inline void* fast_testudata(lua_State* L, int idx, const void*& meta, const char* name) {
  if (lua_type(L, idx) != LUA_TUSERDATA || !lua_getmetatable(L, idx)) return nullptr;  // +1 meta
  if (!meta) {
    luaL_getmetatable(L, name);  // +1
    meta = lua_topointer(L, -1);
    lua_pop(L, 1);  // -1
  }
  const bool same = lua_topointer(L, -1) == meta;
  lua_pop(L, 1);  // -1 meta
  return same ? lua_touserdata(L, idx) : nullptr;
}

// The userdata at idx when `memo` (record.hpp) holds its address, else when test(L, idx)
// tells it (fast_testudata, or test_udata for a type with metatables of its own), which
// the memo then holds. A held address is a live object of the type, so the value need not
// be told a full userdata first: a light userdata can equal it only by pointing at that
// very object.
template <class Test>
inline void* memo_testudata(lua_State* L, int idx, UdataMemo& memo, Test&& test) {
  void* p = lua_touserdata(L, idx);
  if (p && memo.has(p)) [[likely]]
    return p;
  if ((p = test(L, idx))) memo.add(p);
  return p;
}

}  // namespace warplab::bind
