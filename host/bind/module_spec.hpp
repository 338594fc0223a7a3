// module_spec.hpp: turning cuda.compile's arguments into an rtc::Source and rtc::Options:
// the file= / source= / defines / include / options / arch / kernels fields read from Lua
// (module_args.hpp); file lookup, inline line mapping and define checks are lab's
// (lab/module_spec.hpp).
#pragma once
#include <lua.hpp>

#include <optional>
#include <string>

#include "bind/module.hpp"

namespace warplab::bind {

// Misuse (wrong field types, unknown fields) raises; a file that cannot be read returns
// nullopt with `why` set (an environment failure the script may handle).
std::optional<ModuleSpec> spec_from_args(lua_State* L, int idx, std::string& why);

}  // namespace warplab::bind
