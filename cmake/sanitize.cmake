# sanitize.cmake: instrumented builds, each in its own build folder.
#   -DWARPLAB_SANITIZE=ON  ASan + UBSan (GCC or Clang): what .ci/run runs the unit, Lua
#                          and bad-input suites under (build-asan/). Any UBSan report
#                          ends the process (no recovery), so a test cannot pass past one.
#   -DWARPLAB_FUZZ=ON      Clang only: the same sanitizers plus libFuzzer's coverage
#                          instrumentation on every library, so the harnesses in
#                          tests/fuzz (cmake/fuzz.cmake, scripts/fuzz) see warplab's code.
# Included before any target is defined: the flags apply to all of them.
option(WARPLAB_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(WARPLAB_FUZZ "Build the libFuzzer harnesses in tests/fuzz (Clang only)" OFF)

set(WARPLAB_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all
    -fno-omit-frame-pointer)
if(WARPLAB_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "WARPLAB_FUZZ needs Clang (libFuzzer): configure with "
                        "-DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang (scripts/fuzz does)")
  endif()
  add_compile_options(${WARPLAB_SANITIZER_FLAGS} -fsanitize=fuzzer-no-link)
  add_link_options(${WARPLAB_SANITIZER_FLAGS})
elseif(WARPLAB_SANITIZE)
  add_compile_options(${WARPLAB_SANITIZER_FLAGS})
  add_link_options(${WARPLAB_SANITIZER_FLAGS})
endif()
