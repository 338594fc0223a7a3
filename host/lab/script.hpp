// script.hpp: a script file checked and read before Lua loads it (no Lua here): a
// regular file of at most kMaxScriptBytes, or one sentence why not; a #! first line
// turned into a Lua comment. bind/sandbox.cpp loads the text.
#pragma once
#include <string>

namespace warplab::lab {

inline constexpr long long kMaxScriptBytes = 64ll << 20;
// "" when `path` can be run, else one sentence: "script 'x': a folder, not a script".
std::string script_problem(const std::string& path);
// The script's text (a #! first line commented out for Lua); false with `why` when it
// cannot be run or read.
bool read_script(const std::string& path, std::string& text, std::string& why);

}  // namespace warplab::lab
