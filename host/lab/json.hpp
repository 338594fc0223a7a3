// json.hpp: the parsing half of warplab.json.decode, without Lua: JSON text to a document,
// or Error (bad_input) with the script's one sentence ("json.decode: invalid JSON at line 1,
// column 3: ...", "json.decode: nested deeper than 200 levels"). bind/json.cpp turns the
// document into Lua values.
#pragma once
#include <nlohmann/json.hpp>

#include <string_view>

namespace warplab::lab {

inline constexpr int kMaxJsonDepth = 200;

// The nesting depth of j, counted no further than kMaxJsonDepth + 1 (so the walk stays
// short and shallow whatever the input).
int json_depth(const nlohmann::json& j, int depth = 0);

// The document in `text`; throws Error (bad_input) on a syntax error, a number that overflows a
// double, or nesting deeper than kMaxJsonDepth.
nlohmann::json decode_json(std::string_view text);

}  // namespace warplab::lab
