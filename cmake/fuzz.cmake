# fuzz.cmake: one libFuzzer executable per tests/fuzz/*_fuzz.cpp (with -DWARPLAB_FUZZ=ON,
# Clang; the instrumentation flags come from cmake/sanitize.cmake) and the target
# `fuzzers` that builds them all. scripts/fuzz builds and runs them with the seed corpora
# in tests/data/corpus/<name>/ and the dictionaries tests/data/corpus/<name>.dict.
if(NOT WARPLAB_FUZZ)
  return()
endif()
file(GLOB WARPLAB_FUZZ_SRC CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/fuzz/*_fuzz.cpp)
add_custom_target(fuzzers)
foreach(src ${WARPLAB_FUZZ_SRC})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
  target_link_libraries(${name} PRIVATE warplab_bind)
  target_include_directories(${name} SYSTEM PRIVATE ${XXHASH_INCLUDE_DIR})
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  add_dependencies(fuzzers ${name})
endforeach()
