// record.hpp: the record each Lua state keeps (in its registry, as redis keeps per-run
// state under a named key; found through the thread's extra space, so the launch path
// looks nothing up): the run (lab/run.hpp) and what only Lua needs on the launch path.
// Created by open_state (state.cpp).
#pragma once
#include <lua.hpp>

#include <string>
#include <utility>
#include <vector>

#include "lab/run.hpp"

namespace warplab::bind {

struct StateRecord {
  // `target`: a lab::Target, or a lab::TargetChooser for a target chosen on first use.
  template <class T>
  StateRecord(const lab::Options& opts, T target) : run(opts, std::move(target)) {}

  lab::Run run;
  // Metatables the launch path tells userdata by, at their registry addresses (udata.hpp).
  const void* kernel_meta = nullptr;
  const void* array_meta = nullptr;
  const void* graph_meta = nullptr;
  const void* launch_keys[7] = {};  // the launch table's key strings (launch_args.cpp)
  // The chunk name of the function that launched last, by the function's address: the
  // function is kept in the registry while it is remembered, so the address stays its.
  const void* source_fn = nullptr;
  char source[LUA_IDSIZE] = {};
  // Each failed cuda.compile's (or m:reload's) diagnostics text and its one-line summary
  // ("k.cu did not compile for sm_90 (2 errors)"): an error that escapes the script and
  // carries one of these texts (assert(cuda.compile{...}), error(diag)) is that compile
  // failing, which run_file reports as such (state.hpp RunResult::compile_error).
  std::vector<std::pair<std::string, std::string>> compile_failures;
};

// This state's record. open_state sets it before any binding can run, and it is the first
// object with a finalizer, so lua_close finalizes it last: every __gc still finds it.
inline StateRecord& record_of(lua_State* L) { return **static_cast<StateRecord**>(lua_getextraspace(L)); }

}  // namespace warplab::bind
