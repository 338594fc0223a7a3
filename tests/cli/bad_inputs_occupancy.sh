#!/usr/bin/env bash
# bad_inputs_occupancy.sh: the cases of tests/bad_inputs/occupancy.cases (run by tests/bad_inputs/run_cases.sh).
# Usage: bash bad_inputs_occupancy.sh <warplab binary> <source root>
exec bash "$2/tests/bad_inputs/run_cases.sh" "$1" "$2" "$2/tests/bad_inputs/occupancy.cases"
