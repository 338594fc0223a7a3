// json.cpp: JSON text to a document for warplab.json.decode, with its error sentences.
#include "lab/json.hpp"

#include <algorithm>
#include <string>

#include "sys/error.hpp"

namespace warplab::lab {

int json_depth(const nlohmann::json& j, int depth) {
  if (depth > kMaxJsonDepth || !j.is_structured()) return depth;
  int deepest = depth;
  for (const auto& v : j) {
    deepest = std::max(deepest, json_depth(v, depth + 1));
    if (deepest > kMaxJsonDepth) break;
  }
  return deepest;
}

nlohmann::json decode_json(std::string_view text) {
  nlohmann::json j;
  std::string why;
  try {
    j = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    const std::string msg =
        e.what();  // "[json.exception.parse_error.101] parse error at line 1, column 3: ..."
    const auto at = msg.find("at line ");
    why = "invalid JSON " + (at == std::string::npos ? msg : msg.substr(at));
  } catch (const nlohmann::json::exception& e) {  // out_of_range.406: a number overflows a double
    const std::string msg = e.what();
    const auto at = msg.find("] ");
    why = at == std::string::npos ? msg : msg.substr(at + 2);
  }
  if (why.empty() && json_depth(j) > kMaxJsonDepth)
    why = "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels";
  if (!why.empty()) throw Error(ErrorKind::bad_input, "json.decode: " + why);
  return j;
}

}  // namespace warplab::lab
