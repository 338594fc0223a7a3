// lab_test_util.hpp: what the host/lab unit tests share: the sentence a lab call throws.
#pragma once
#include <string>

#include "sys/error.hpp"

namespace warplab::test {

// The sentence of the warplab::Error that f throws ("" when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace warplab::test
