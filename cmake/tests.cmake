# tests.cmake: unit tests (GoogleTest, no GPU), GPU tests (label gpu, exit 77 without a
# device), CLI tests (bash scripts driving the binary) and Lua tests (run by warplab).
file(GLOB WARPLAB_UNIT_SRC CONFIGURE_DEPENDS tests/unit/*.cpp)
add_executable(warplab_unit_tests ${WARPLAB_UNIT_SRC})
target_link_libraries(warplab_unit_tests PRIVATE warplab_bind GTest::gtest_main)
target_compile_definitions(warplab_unit_tests PRIVATE
  WARPLAB_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
  WARPLAB_CUDA_H="${CUDAToolkit_INCLUDE_DIRS}/cuda.h")
add_test(NAME unit COMMAND warplab_unit_tests)

# GPU tests: one binary; its main() returns 77 when no device is present. gpu-check
# runs it directly on the GPU machine (no CTest there: paths differ).
file(GLOB WARPLAB_GPU_SRC CONFIGURE_DEPENDS tests/gpu/*.cpp)
if(WARPLAB_GPU_SRC)
  add_executable(warplab_gpu_tests ${WARPLAB_GPU_SRC})
  target_link_libraries(warplab_gpu_tests PRIVATE warplab_bind GTest::gtest)
  add_test(NAME gpu COMMAND warplab_gpu_tests)
  set_tests_properties(gpu PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
endif()

file(GLOB WARPLAB_CLI_TESTS CONFIGURE_DEPENDS tests/cli/*.sh)
foreach(t ${WARPLAB_CLI_TESTS})
  get_filename_component(name ${t} NAME_WE)
  add_test(NAME cli.${name} COMMAND bash ${t} $<TARGET_FILE:warplab> ${CMAKE_SOURCE_DIR})
  set_tests_properties(cli.${name} PROPERTIES SKIP_RETURN_CODE 77)
endforeach()

# The REPL engine and the watcher core live in host/app (they are the program's, not a
# library's), yet have unit tests: compile those pieces into the test binary as well.
file(GLOB WARPLAB_APP_UNIT_SRC CONFIGURE_DEPENDS host/app/repl_*.cpp host/app/watch_*.cpp)
target_sources(warplab_unit_tests PRIVATE ${WARPLAB_APP_UNIT_SRC})
target_link_libraries(warplab_unit_tests PRIVATE PkgConfig::LIBEDIT)

# Benchmarks (scripts/bench): the raw cuLaunchKernel baseline for the launch path.
add_executable(warplab_bench_launch bench/launch_raw.cpp)
target_link_libraries(warplab_bench_launch PRIVATE warplab_cu warplab_rtc)
