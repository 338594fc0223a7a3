// type_words.hpp: internal to rtc/ (param_type.cpp): the builtin type words, typedef
// aliases and vector types a kernel parameter may be spelled with, and their sizes.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rtc/signature.hpp"

namespace warplab::rtc::detail {

struct BuiltinType {
  ParamType::Kind kind;
  int size;  // bytes
};

// "size_t" -> "unsigned long", "half" -> "__half", ... (keys without "std::").
const std::map<std::string, std::string>& type_aliases();
// "unsigned int" -> {Unsigned, 4}, "__half" -> {Float, 2}, ... by the compiler's spelling.
const std::map<std::string, BuiltinType>& builtin_types();
// Size of a CUDA vector type ("float2" -> 8, "uchar3" -> 3); 0 when `name` is not one.
int vector_type_size(const std::string& name);
// Builtin type words in any order -> the compiler's spelling ("long unsigned int" ->
// "unsigned long") in `out`: nullopt, or the reason when they do not form a type.
std::optional<std::string> combine_type_words(const std::vector<std::string>& words, std::string& out);
// "unsigned", "long", "char", ...: words that combine into a builtin type.
bool is_type_word(const std::string& w);
// struct/class/typename/__restrict__...: words that do not change a parameter's type.
bool is_ignored_word(const std::string& w);

}  // namespace warplab::rtc::detail
