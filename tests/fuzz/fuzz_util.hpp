// fuzz_util.hpp: what the libFuzzer harnesses in tests/fuzz share. A harness catches
// only the exception type its target documents for bad input; anything else escaping
// (std::out_of_range from a substr, a nlohmann type_error, ...) is a finding, reported
// as a crash with the exception's text, because the program would turn it into exit 70.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

namespace warplab::fuzz {

// For targets that document no exception at all: nothing is caught.
struct Never {};

inline std::string text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A broken invariant of the target: print it and abort, so libFuzzer keeps the input.
[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz finding: %s\n", what.c_str());
  std::abort();
}

// Runs f(); the documented error type E is a normal outcome, any other exception a finding.
template <class E, class F>
void expect_only(const char* target, F&& f) {
  try {
    f();
  } catch (const E&) {
  } catch (const std::exception& e) {
    finding(std::string(target) + " let an undocumented exception escape: " + e.what());
  }
}

}  // namespace warplab::fuzz
