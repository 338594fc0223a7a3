// script.hpp: a script file checked and read before Lua loads it (no Lua here): a
// regular file of at most kMaxScriptBytes, or one sentence why not; a #! first line
// turned into a Lua comment. bind/sandbox.cpp loads the text.
#pragma once
#include <optional>
#include <string>

namespace warplab::lab {

inline constexpr long long kMaxScriptBytes = 64ll << 20;
// nullopt when `path` can be run, else one sentence: "script 'x': a folder, not a script".
std::optional<std::string> script_problem(const std::string& path);
// The script's text in `text` (a #! first line commented out for Lua): nullopt, or the
// sentence why it cannot be run or read.
std::optional<std::string> read_script(const std::string& path, std::string& text);

}  // namespace warplab::lab
