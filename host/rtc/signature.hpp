// signature.hpp: kernel parameter types. A C++ kernel's mangled name carries them
// ("_Z1kPKfPfi" = k(const float*, float*, int)); demangle() recovers them so launches can
// be type-checked. extern "C" kernels get a declared signature via parse_signature().
// Uses libstdc++'s abi::__cxa_demangle and our own parser; no NVRTC.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warplab::rtc {

struct ParamType {
  enum class Kind { Pointer, Signed, Unsigned, Float, Bool, Other };
  // Normalized C++ spelling: const first, library typedefs resolved to what the compiler
  // mangles: "const float*", "unsigned long" (size_t, uint64_t), "__half" (half).
  std::string spelling;
  Kind kind = Kind::Other;
  // Pointers: the pointed-to type without its own const/volatile ("float", "__half",
  // "const float*" for a float const**); empty otherwise.
  std::string pointee;
  bool pointee_const = false;
  int size = 0;  // bytes as passed; 0 when unknown (a struct we know nothing about)
};

struct Signature {
  std::string name;       // qualified, with template arguments: "reduce<256>", "ns::inner"
  std::string base;       // unqualified, without template arguments: "reduce", "inner"
  std::string demangled;  // as __cxa_demangle prints it, or name(params) when declared
  std::vector<ParamType> params;
  // "reduce<256>(float*)": name and the normalized spellings.
  std::string to_string() const;
};

std::string_view to_string(ParamType::Kind k);

// The signature of a mangled C++ kernel name; nullopt for names that are not mangled
// (extern "C" kernels) or that the demangler rejects. Never throws.
std::optional<Signature> demangle(const std::string& mangled);

// A declared signature: `params_text` like "const float*, float*, int" (parameter names
// allowed: "const float* x, int n"; "" or "void": none). Throws rtc::Error with one
// sentence naming the parameter for bad text.
Signature parse_signature(const std::string& name, const std::string& params_text);

// One parameter's type from its spelling ("float const*", "unsigned", "int4"). Throws
// rtc::Error for text that is not a type.
ParamType parse_param_type(const std::string& text);

}  // namespace warplab::rtc

namespace warplab::rtc::detail {
// parse_param_type without the throw: the type in `out` (nullopt), or the reason ("names
// no type"). `allow_name` accepts a trailing parameter name ("int n").
std::optional<std::string> parse_type(std::string_view text, bool allow_name, ParamType& out);
// A parameter list split at its top-level commas; <...> counts as nesting except inside
// (...), where '<' and '>' may be operators of a template argument expression.
std::vector<std::string> split_top(std::string_view s);
// "> >" -> ">>" (the demangler's old spelling of nested template arguments).
std::string tidy_angles(std::string s);
}  // namespace warplab::rtc::detail
