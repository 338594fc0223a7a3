#!/usr/bin/env bash
# attrs_usage.sh: command-line mistakes in `warplab attrs` exit 2 (usage) and name the
# option; --help exits 0 and lists the options.
# Usage: bash attrs_usage.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
run() { "$BIN" "$@" >"$T/out" 2>"$T/err"; rc=$?; }
fail() { echo "FAIL: $*"; cat "$T/err"; failures=$((failures + 1)); }
# usage WORD ARGS...: exit 2 and stderr mentions WORD
usage() {
  local word=$1; shift
  run "$@"
  [ "$rc" -eq 2 ] || fail "attrs ${*:2}: exit $rc, want 2"
  grep -qF -- "$word" "$T/err" || fail "attrs ${*:2}: stderr does not mention $word"
}
usage "--json" attrs --profile "$FIX" --json --csv
usage "--diff" attrs --diff "$FIX"
usage "--device" attrs --device x
usage "--profile" attrs --device 0 --profile "$FIX"
usage "--diff" attrs --diff "$FIX" "$FIX" --csv
usage "--bogus" attrs --profile "$FIX" --bogus

run attrs --help
[ "$rc" -eq 0 ] || fail "attrs --help: exit $rc"
for opt in --device --profile --json --csv --diff --no-color; do
  grep -qF -- "$opt" "$T/out" || fail "attrs --help lacks $opt"
done
exit $((failures > 0))
