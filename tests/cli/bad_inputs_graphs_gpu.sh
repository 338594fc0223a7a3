#!/usr/bin/env bash
# bad_inputs_graphs_gpu.sh: the cases of tests/bad_inputs/graphs.cases on a live GPU (the
# real driver: a capture, a replay after a free, an update and every refusal as the
# driver has them); exit 77 (skipped) without one.
# Usage: bash bad_inputs_graphs_gpu.sh <warplab binary> <source root>
unset WARPLAB_NO_DRIVER
probe="${TMPDIR:-/tmp}/bad_inputs_graphs_probe.$$.lua"
echo 'print(cuda.device().live and not tostring(cuda.device()):find("fake driver", 1, true))' >"$probe"
live=$("$1" -q run "$probe" 2>/dev/null)
rm -f "$probe"
[ "$live" = true ] || { echo "skip: no GPU"; exit 77; }
W="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
WARPLAB_LIVE=1 exec bash "$2/tests/bad_inputs/run_cases.sh" "$W" "$2" "$2/tests/bad_inputs/graphs.cases"
