// cache_json.hpp: a CompileResult (without its CUBIN, stored beside it) to and from JSON,
// for the on-disk cache.
#pragma once
#include <nlohmann/json.hpp>

namespace warplab::rtc {

struct CompileResult;
nlohmann::json to_cache_json(const CompileResult& r);
// Throws on a missing or mistyped field (the caller treats that as a corrupt entry).
void from_cache_json(const nlohmann::json& j, CompileResult& r);

}  // namespace warplab::rtc
