// kernel_occupancy.cpp: k:occupancy's answer as a Lua table: warplab's calculator's numbers
// (plus the driver's when a GPU is present). bind_kernel.cpp reads the options; the checks
// and the computing are lab's (lab/kernel_info.hpp).
#include <string>
#include <utility>

#include "bind/kernel_methods.hpp"
#include "lab/kernel_info.hpp"

namespace warplab::bind {
namespace {

void set_int(lua_State* L, const char* k, long long v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}

}  // namespace

void push_occupancy(lua_State* L, int block, const lab::OccupancyReport& rep) {
  const cu::OccupancyResult& r = rep.calc;
  lua_createtable(L, 0, 20);  // +1 result
  set_int(L, "block", block);
  set_int(L, "blocks_per_sm", r.blocks_per_sm);
  set_int(L, "warps_per_block", r.warps_per_block);
  set_int(L, "active_warps", r.active_warps_per_sm);
  set_int(L, "max_warps", r.max_warps_per_sm);
  lua_pushnumber(L, r.occupancy);
  lua_setfield(L, -2, "occupancy");                                     // +1 -1
  lua_pushstring(L, std::string(cu::limiter_name(r.limiter)).c_str());  // +1
  lua_setfield(L, -2, "limiter");                                       // -1
  const std::pair<const char*, int> by[] = {{"by_warps", r.by_warps},
                                            {"by_registers", r.by_registers},
                                            {"by_shared", r.by_shared},
                                            {"by_blocks", r.by_blocks},
                                            {"by_barriers", r.by_barriers}};
  for (const auto& [name, v] : by) v == cu::kNoLimit ? (void)0 : set_int(L, name, v);
  set_int(L, "regs_per_block", r.regs_per_block);
  set_int(L, "shared_per_block", r.shared_per_block);
  set_int(L, "shared_per_sm", r.shared_per_sm);
  if (!r.reason.empty()) {
    lua_pushstring(L, r.reason.c_str());
    lua_setfield(L, -2, "reason");
  }
  if (rep.has_driver) {
    set_int(L, "driver_blocks_per_sm", rep.driver_blocks);
    if (!rep.driver_error.empty()) {
      lua_pushstring(L, rep.driver_error.c_str());
      lua_setfield(L, -2, "driver_error");
    }  // +1 -1
  }
}

}  // namespace warplab::bind
