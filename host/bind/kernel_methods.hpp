// kernel_methods.hpp: the kernel handle's pieces that live outside bind_kernel.cpp and
// kernel_launch.cpp (which build the method table): k:occupancy's answer table
// (kernel_occupancy.cpp), k:check and k:clusters (kernel_check.cpp).
#pragma once
#include <lua.hpp>

#include "lab/kernel_info.hpp"

namespace warplab::bind {

// Pushes k:occupancy's answer for a block of `block` threads (kernel_occupancy.cpp).
void push_occupancy(lua_State* L, int block, const lab::OccupancyReport& rep);
// k:check{...} and k:clusters{...}: registered by kernel_launch.cpp among its methods, as
// closures over the launch table's keys (launch_table.hpp).
int kernel_check(lua_State* L);
int kernel_clusters(lua_State* L);

}  // namespace warplab::bind
