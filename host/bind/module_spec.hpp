// module_spec.hpp: turning cuda.compile's arguments into an rtc::Source and rtc::Options:
// file lookup (cwd, the script's folder, kernels_src), inline sources mapped to the Lua
// file's lines, defines/include/options/arch/kernels fields.
#pragma once
#include <lua.hpp>

#include <optional>
#include <string>

#include "bind/module.hpp"

namespace warplab::bind {

// Misuse (wrong field types, unknown fields) raises; a file that cannot be read returns
// nullopt with `why` set (an environment failure the script may handle).
std::optional<ModuleSpec> spec_from_args(lua_State* L, int idx, std::string& why);
// Reads spec.path again into spec.source.text; false with `why` when unreadable.
bool reread_source(ModuleSpec& spec, std::string& why);

}  // namespace warplab::bind
