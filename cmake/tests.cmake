# tests.cmake: every test is its own CTest test with labels, so `ctest -N -L <label>` says
# what exists and `ctest -L offline` / `ctest -L gpu` say what ran:
#   offline  runs without a GPU (CI)          gpu   needs a GPU (exit 77, "skipped", without)
#   unit     GoogleTest, no Lua               lua   a Lua test file run by warplab
#   lib      the pure-Lua library's tests     cli   a shell script driving the binary
#   example  an example script (offline: its predictions; on a GPU: its checks)
#   bad_inputs  the hostile-input suite (tests/bad_inputs): exit code, sentence, no crash
# A Lua test file may carry directives, read here at configure time:
#   -- run-with: ARGS    arguments after the file (offline runs only)
#   -- profile: NAME     the profile of the offline run (default h200)
#   -- global: OPTS      options before `run` (live runs)
include(GoogleTest)
set(WARPLAB_LUA_RUNNER ${CMAKE_SOURCE_DIR}/tests/run_lua.sh)

# ---- C++: one CTest test per GoogleTest case ----------------------------------------
file(GLOB WARPLAB_UNIT_SRC CONFIGURE_DEPENDS tests/unit/*.cpp)
add_executable(warplab_unit_tests ${WARPLAB_UNIT_SRC})
target_link_libraries(warplab_unit_tests PRIVATE warplab_bind GTest::gtest_main)
target_compile_definitions(warplab_unit_tests PRIVATE
  WARPLAB_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
  WARPLAB_CUDA_H="${CUDAToolkit_INCLUDE_DIRS}/cuda.h")
gtest_discover_tests(warplab_unit_tests TEST_PREFIX "unit." DISCOVERY_TIMEOUT 60)

# The driver paths of host/cu and host/lab (streams, capture, graphs, managed memory)
# against the stand-in driver (bench/fake_driver.cpp), offline: the binary's RUNPATH names
# build/fake_driver, so its dlopen("libcuda.so.1") finds the stand-in before any real one.
file(GLOB WARPLAB_FAKE_DRIVER_TEST_SRC CONFIGURE_DEPENDS tests/fake_driver/*.cpp)
add_executable(warplab_fake_driver_tests ${WARPLAB_FAKE_DRIVER_TEST_SRC})
target_link_libraries(warplab_fake_driver_tests PRIVATE warplab_lab GTest::gtest_main)
set_target_properties(warplab_fake_driver_tests PROPERTIES BUILD_RPATH ${CMAKE_BINARY_DIR}/fake_driver)
target_link_options(warplab_fake_driver_tests PRIVATE -Wl,--enable-new-dtags)
add_dependencies(warplab_fake_driver_tests warplab_fake_driver)
gtest_discover_tests(warplab_fake_driver_tests TEST_PREFIX "fake." DISCOVERY_TIMEOUT 60)

# GPU tests: listing works anywhere; each case exits 77 (skipped) without a device.
file(GLOB WARPLAB_GPU_SRC CONFIGURE_DEPENDS tests/gpu/*.cpp)
add_executable(warplab_gpu_tests ${WARPLAB_GPU_SRC})
target_link_libraries(warplab_gpu_tests PRIVATE warplab_bind GTest::gtest)
gtest_discover_tests(warplab_gpu_tests TEST_PREFIX "gpu." DISCOVERY_TIMEOUT 60)
# Labels for the discovered cases, set once they are known: gtest_discover_tests splits a
# PROPERTIES list, so two labels cannot pass through it. This file runs after its lists.
file(WRITE ${CMAKE_BINARY_DIR}/warplab_test_labels.cmake [=[
foreach(t IN LISTS warplab_unit_tests_TESTS)
  set_tests_properties(${t} PROPERTIES LABELS "offline;unit")
endforeach()
foreach(t IN LISTS warplab_fake_driver_tests_TESTS)
  set_tests_properties(${t} PROPERTIES LABELS "offline;unit" ENVIRONMENT_MODIFICATION "WARPLAB_NO_DRIVER=unset:")
endforeach()
foreach(t IN LISTS warplab_gpu_tests_TESTS)
  set_tests_properties(${t} PROPERTIES LABELS "gpu" SKIP_RETURN_CODE 77 TIMEOUT 600)
endforeach()
]=])
set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${CMAKE_BINARY_DIR}/warplab_test_labels.cmake)

# The REPL engine, the watcher core and the sanitizer log reader live in host/app (they are
# the program's, not a library's), yet have unit tests: compile those pieces in as well,
# without the command definitions (each folder's command.cpp), which need the whole program.
file(GLOB WARPLAB_APP_UNIT_SRC CONFIGURE_DEPENDS host/app/repl/*.cpp host/app/watch/*.cpp
     host/app/sanitize/*.cpp host/app/serve/*.cpp host/app/cli/child_group.cpp host/app/cli/cleanup.cpp)
# serve/run.cpp is `run --serve`: it runs scripts, which needs the whole program.
list(FILTER WARPLAB_APP_UNIT_SRC EXCLUDE REGEX "/command\\.cpp$|/serve/run\\.cpp$")
target_sources(warplab_unit_tests PRIVATE ${WARPLAB_APP_UNIT_SRC} ${WARPLAB_PAGE_CPP})
target_link_libraries(warplab_unit_tests PRIVATE PkgConfig::LIBEDIT CLI11::CLI11 warplab_libevent)

# ---- Lua test files ---------------------------------------------------------------
# warplab_directive(FILE NAME OUT): the words of the file's "-- NAME: ..." line, a list.
function(warplab_directive file name out)
  file(STRINGS ${file} line REGEX "^-- ${name}: " LIMIT_COUNT 1)
  string(REGEX REPLACE "^-- ${name}: " "" line "${line}")
  separate_arguments(line UNIX_COMMAND "${line}")
  set(${out} "${line}" PARENT_SCOPE)
endfunction()

# The cuda API offline (profile h200 unless the file names one), and the same file live.
file(GLOB WARPLAB_LUA_API_TESTS CONFIGURE_DEPENDS tests/lua/api_*.lua)
foreach(t ${WARPLAB_LUA_API_TESTS})
  get_filename_component(name ${t} NAME_WE)
  warplab_directive(${t} run-with args)
  warplab_directive(${t} profile profile)
  warplab_directive(${t} env env)  # "-- env: NAME=VALUE ...": the test's environment
  if(NOT profile)
    set(profile h200)
  endif()
  add_test(NAME lua.${name} COMMAND bash ${WARPLAB_LUA_RUNNER} offline $<TARGET_FILE:warplab>
           ${CMAKE_SOURCE_DIR} ${t} ${profile} ${args})
  set_tests_properties(lua.${name} PROPERTIES LABELS "offline;lua" ENVIRONMENT "${env}")
  add_test(NAME lua.${name}.gpu COMMAND bash ${WARPLAB_LUA_RUNNER} live $<TARGET_FILE:warplab>
           ${CMAKE_SOURCE_DIR} ${t})
  set_tests_properties(lua.${name}.gpu PROPERTIES LABELS "gpu;lua" SKIP_RETURN_CODE 77 TIMEOUT 600
                       ENVIRONMENT "${env}")
endforeach()

# The pure-Lua library (lua/warplab), run by warplab with no GPU needed.
file(GLOB WARPLAB_LUA_LIB_TESTS CONFIGURE_DEPENDS tests/lua/lib_*.lua)
foreach(t ${WARPLAB_LUA_LIB_TESTS})
  get_filename_component(name ${t} NAME_WE)
  add_test(NAME lib.${name} COMMAND bash ${WARPLAB_LUA_RUNNER} lib $<TARGET_FILE:warplab>
           ${CMAKE_SOURCE_DIR} ${t})
  set_tests_properties(lib.${name} PROPERTIES LABELS "offline;lib")
endforeach()

# The cuda API on a GPU only.
file(GLOB WARPLAB_LUA_GPU_TESTS CONFIGURE_DEPENDS tests/gpu_lua/*.lua)
foreach(t ${WARPLAB_LUA_GPU_TESTS})
  get_filename_component(name ${t} NAME_WE)
  warplab_directive(${t} global global)
  warplab_directive(${t} run-with args)
  add_test(NAME lua.gpu.${name} COMMAND bash ${WARPLAB_LUA_RUNNER} live $<TARGET_FILE:warplab>
           ${CMAKE_SOURCE_DIR} ${t} ${global} -- ${args})
  set_tests_properties(lua.gpu.${name} PROPERTIES LABELS "gpu;lua" SKIP_RETURN_CODE 77 TIMEOUT 600)
endforeach()

# The bad-input suite's Lua files (tests/bad_inputs/lua; its *.cases run as cli tests
# below): the cuda API offline on the h100 profile, every misuse one sentence.
file(GLOB WARPLAB_BAD_LUA CONFIGURE_DEPENDS tests/bad_inputs/lua/*.lua)
foreach(t ${WARPLAB_BAD_LUA})
  get_filename_component(name ${t} NAME_WE)
  add_test(NAME bad_inputs.lua.${name} COMMAND bash ${WARPLAB_LUA_RUNNER} offline $<TARGET_FILE:warplab>
           ${CMAKE_SOURCE_DIR} ${t} h100)
  set_tests_properties(bad_inputs.lua.${name} PROPERTIES LABELS "offline;lua;bad_inputs")
endforeach()

# ---- CLI tests: bash scripts; *_gpu.sh need a GPU -----------------------------------
file(GLOB WARPLAB_CLI_TESTS CONFIGURE_DEPENDS tests/cli/*.sh)
foreach(t ${WARPLAB_CLI_TESTS})
  get_filename_component(name ${t} NAME_WE)
  add_test(NAME cli.${name} COMMAND bash ${t} $<TARGET_FILE:warplab> ${CMAKE_SOURCE_DIR})
  if(name MATCHES "_gpu$")
    set_tests_properties(cli.${name} PROPERTIES LABELS "gpu;cli" SKIP_RETURN_CODE 77 TIMEOUT 600)
  else()
    set_tests_properties(cli.${name} PROPERTIES LABELS "offline;cli" SKIP_RETURN_CODE 77)
  endif()
  if(name MATCHES "^bad_inputs")  # tests/bad_inputs: also run under the sanitizers (.ci/run)
    set_property(TEST cli.${name} APPEND PROPERTY LABELS bad_inputs)
  endif()
endforeach()

# Offline tests that load CUPTI (counter names and replay passes come from libnvperf_host),
# which AddressSanitizer cannot (libcupti opens it with RTLD_DEEPBIND): .ci/run's sanitizer
# stage leaves the label `cupti` out; the unit tests skip themselves in a sanitizer build.
set_property(TEST lua.api_counters cli.counters APPEND PROPERTY LABELS cupti)

# ---- examples: offline they print predictions and exit 0; on a GPU they check ------
file(GLOB_RECURSE WARPLAB_EXAMPLES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/examples/*.lua)
foreach(e ${WARPLAB_EXAMPLES})
  file(RELATIVE_PATH rel ${CMAKE_SOURCE_DIR}/examples ${e})
  string(REGEX REPLACE "\\.lua$" "" rel "${rel}")
  string(REPLACE "/" "." name "${rel}")
  add_test(NAME example.${name} COMMAND bash ${WARPLAB_LUA_RUNNER} example-offline
           $<TARGET_FILE:warplab> ${CMAKE_SOURCE_DIR} ${e})
  set_tests_properties(example.${name} PROPERTIES LABELS "offline;example")
  add_test(NAME example.${name}.gpu COMMAND bash ${WARPLAB_LUA_RUNNER} example-live
           $<TARGET_FILE:warplab> ${CMAKE_SOURCE_DIR} ${e})
  set_tests_properties(example.${name}.gpu PROPERTIES LABELS "gpu;example" SKIP_RETURN_CODE 77
                       TIMEOUT 600)
endforeach()

# Benchmarks (scripts/bench): the raw cuLaunchKernel baseline for the launch path, and the
# raw stream-launch / graph-replay baseline for the graphs section.
add_executable(warplab_bench_launch bench/launch_raw.cpp)
target_link_libraries(warplab_bench_launch PRIVATE warplab_cu warplab_rtc)
add_executable(warplab_bench_graphs bench/graphs_raw.cpp)
target_link_libraries(warplab_bench_graphs PRIVATE warplab_cu warplab_rtc)

# A stand-in libcuda.so.1 (bench/fake_driver.cpp, fake_graph.cpp): with
# LD_LIBRARY_PATH=build/fake_driver warplab takes its live paths without a GPU, for
# host-side measurements and tests of the driver paths offline.
add_library(warplab_fake_driver SHARED bench/fake_driver.cpp bench/fake_graph.cpp)
target_include_directories(warplab_fake_driver SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
set_target_properties(warplab_fake_driver PROPERTIES OUTPUT_NAME cuda PREFIX lib SUFFIX .so.1
  CXX_VISIBILITY_PRESET hidden LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fake_driver)

# A stand-in libcupti.so.13 (bench/fake_cupti.cpp) beside it: with WARPLAB_CUPTI_DIR=
# build/fake_cupti hardware counters take their whole path on the stand-in driver; the
# libnvperf_host.so warplab preloads is a link to the same file.
add_library(warplab_fake_cupti SHARED bench/fake_cupti.cpp)
target_include_directories(warplab_fake_cupti SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
target_link_libraries(warplab_fake_cupti PRIVATE ${CMAKE_DL_LIBS})
set_target_properties(warplab_fake_cupti PROPERTIES OUTPUT_NAME cupti PREFIX lib SUFFIX .so.13
  CXX_VISIBILITY_PRESET hidden LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fake_cupti)
add_custom_command(TARGET warplab_fake_cupti POST_BUILD
  COMMAND ${CMAKE_COMMAND} -E create_symlink libcupti.so.13 ${CMAKE_BINARY_DIR}/fake_cupti/libnvperf_host.so)
