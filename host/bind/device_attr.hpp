// device_attr.hpp: dev.attr, the table of a device's attributes (bind_device_attr.cpp),
// for bind_device.cpp.
#pragma once
#include <lua.hpp>

#include "cu/device.hpp"

namespace warplab::bind {

// Creates the metatable of attribute tables (an unknown name raises, with a suggestion).
void add_attr_meta(lua_State* L);
// Pushes a new attribute table of d.
void push_attr_table(lua_State* L, const cu::DeviceSnapshot& d);

}  // namespace warplab::bind
