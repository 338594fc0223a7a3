#!/usr/bin/env bash
# bad_inputs_graphs.sh: the cases of tests/bad_inputs/graphs.cases (streams, events,
# asynchronous copies, graphs, managed memory misused) with no GPU, through the stand-in
# driver build/fake_driver/libcuda.so.1 (bench/fake_driver.cpp), which takes warplab's live
# paths; bad_inputs_graphs_gpu.sh runs the same cases on a GPU.
# Usage: bash bad_inputs_graphs.sh <warplab binary> <source root>
LIB="$(cd "$(dirname "$1")" && pwd)/fake_driver"
[ -f "$LIB/libcuda.so.1" ] || { echo "skipped: no $LIB/libcuda.so.1 (target warplab_fake_driver)"; exit 77; }
unset WARPLAB_NO_DRIVER
export LD_LIBRARY_PATH="$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
W="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
WARPLAB_LIVE=1 exec bash "$2/tests/bad_inputs/run_cases.sh" "$W" "$2" "$2/tests/bad_inputs/graphs.cases"
