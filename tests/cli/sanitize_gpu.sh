#!/usr/bin/env bash
# sanitize_gpu.sh: `warplab run --sanitize` with the real compute-sanitizer on a GPU. Each
# planted bug of examples/sanitize/planted.lua must be found by its tool, in its planted
# kernel, at one of the lines planted.cu marks "// sanitize: <bug>", with exit status 9,
# while the four clean twins (run in the same process) add nothing and pass their checks;
# bug=none must be clean (exit 0) under all four tools. One PASS/FAIL line per run.
# Skips (77) without a GPU or without compute-sanitizer. About a minute.
# Usage: bash sanitize_gpu.sh <warplab binary> <source root>
set -u
W=$(realpath "$1")
cd "$2" || exit 1
unset WARPLAB_PROFILE WARPLAB_NO_DRIVER
export NO_COLOR=1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
echo 'print(cuda.device().live)' >"$T/probe.lua"
[ "$("$W" -q run "$T/probe.lua" 2>/dev/null)" = "true" ] || { echo "skip: no GPU"; exit 77; }
passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() {
  echo "FAIL: $*"
  sed 's/^/    /' "$T/out" "$T/err" | tail -n 30
  [ -s "$T/raw.log" ] && { echo "    --- compute-sanitizer's log (first 40 lines)"; head -n 40 "$T/raw.log" | sed 's/^/    /'; }
  failed=$((failed + 1))
}
# run TOOL BUG: rc, seconds; the raw log kept in $T/raw.log.
run() {
  rm -f "$T/raw.log"
  local start=$SECONDS
  WARPLAB_SANITIZE_LOG=$T/raw.log timeout 150 "$W" run --sanitize "$1" examples/sanitize/planted.lua -p bug="$2" \
    >"$T/out" 2>"$T/err"
  rc=$? took=$((SECONDS - start))
  if [ $rc -eq 8 ]; then echo "skip: $(cat "$T/err")"; exit 77; fi
}

for pair in race:racecheck barrier:synccheck oob:memcheck uninit:initcheck; do
  bug=${pair%%:*} tool=${pair#*:}
  run "$tool" "$bug"
  marked=$(grep -n "// sanitize: $bug " kernels_src/sanitize/planted.cu | cut -d: -f1 | tr '\n' ' ')
  # Table rows: "<count>  <kernel>  <file>:<line>  <what>".
  rows=$(sed -n '/^== sanitize: /,$p' "$T/out" | grep -E '^[0-9]+ +[A-Za-z_-]')
  lines=$(echo "$rows" | grep -oE '[^ ]*planted\.cu:[0-9]+' | sed 's/.*://' | sort -u | tr '\n' ' ')
  others=$(echo "$rows" | awk -v k="planted_$bug" '$2 != k' | head -n 3)
  hit=""
  for l in $lines; do [[ " $marked " == *" $l "* ]] && hit=$l; done
  if [ $rc -ne 9 ]; then fail "$bug/$tool: exit $rc, want 9 ($took s)"
  elif [ -z "$rows" ]; then fail "$bug/$tool: no finding in the table ($took s)"
  elif [ -n "$others" ]; then fail "$bug/$tool: findings outside planted_$bug: $others"
  elif [ -z "$hit" ]; then fail "$bug/$tool: reported at line(s) '$lines', planted at '$marked'"
  elif ! grep -q '^planted: [0-9]* passed, 0 failed$' "$T/out"; then fail "$bug/$tool: the clean twins' checks"
  else pass "$bug/$tool: $(grep -E "^$tool: " "$T/out" | head -n 1) ($took s)"
  fi
done

for tool in memcheck racecheck synccheck initcheck; do
  run "$tool" none
  if [ $rc -ne 0 ]; then fail "none/$tool: exit $rc, want 0 ($took s)"
  elif ! grep -qxF "$tool: no errors" "$T/out"; then fail "none/$tool: no '$tool: no errors' line"
  else pass "none/$tool: clean ($took s)"
  fi
done
echo "sanitize_gpu: $passed passed, $failed failed"
[ $failed -eq 0 ]
