#!/usr/bin/env bash
# run_cases.sh: runs table-driven bad-input cases (tests/bad_inputs/*.cases). One case a
# line: `EXIT | SUBSTRING | COMMAND`. COMMAND is bash, run in a fresh scratch folder $T
# with stdin from /dev/null (a case may pipe its own) and no driver (WARPLAB_NO_DRIVER=1;
# WARPLAB_LIVE=1 keeps it, for gpu.cases), with these names: $W the warplab binary, $R
# the source root, $F tests/bad_inputs (the case files), $D tests/data (the fixture files),
# $P the synthetic profile ($D/profiles/synthetic_profile.json), $K a kernel that compiles
# (kernels_src/warps/thread_ids.cu), $C a compile cache shared by the cases of one run,
# and the helpers mutate, drop and watch_for (below).
# A case passes when COMMAND exits EXIT, its output (stdout and stderr together) contains
# SUBSTRING (plain text), and nothing says the process died: no exit status >= 124 (124:
# our time limit, a hang), no report by bash of a command killed by a signal, no
# sanitizer report or "internal error", and no message line ("warplab: ..." or CLI11's
# "--option: ...") longer than 320 characters (one sentence, not a dump; compiler
# diagnostics echo source lines of any length). `# ...` lines and blank lines are
# comments. A line starting `xfail ` is a known open defect (fixed elsewhere): its failure
# is reported and tolerated, and its passing is an error (remove the mark).
# RUN_CASES_LINT=1 reads the cases and runs none: a line that is not a case fails (for
# gpu.cases, which runs only on a GPU). Usage: run_cases.sh BIN ROOT FILE.cases...
set -u
BIN=$1 ROOT=$2
shift 2
export W=$BIN R=$ROOT F=$ROOT/tests/bad_inputs D=$ROOT/tests/data P=$ROOT/tests/data/profiles/synthetic_profile.json
export K=$ROOT/kernels_src/warps/thread_ids.cu
export NO_COLOR=1
# gpu.cases (tests/cli/bad_inputs_gpu.sh) sets WARPLAB_LIVE=1: the real driver and GPU.
[ "${WARPLAB_LIVE:-}" = 1 ] || export WARPLAB_NO_DRIVER=1
unset WARPLAB_PROFILE WARPLAB_PARAMS WARPLAB_CACHE_MAX_MB WARPLAB_LINEINFO
base=$(mktemp -d) && trap 'chmod -R u+rwX "$base" 2>/dev/null; rm -rf "$base"' EXIT
export C=$base/cache WARPLAB_CACHE_DIR=$base/cache XDG_STATE_HOME=$base/state
# Sanitizer reports end the process and name themselves (build-asan, .ci/run).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
# bash reports a command of a pipeline killed by a signal as "bash: line 1: PID Segmentation
# fault ..." (a watch reporting its run's signal is not such a line).
DIED='^bash: line [0-9]+: +[0-9]+ |Sanitizer|runtime error:|warplab: internal error|terminate called'

# mutate FIELD VALUE [OUT]: the synthetic profile with FIELD's value (JSON text) replaced,
# written to OUT (default p.json); drop FIELD [OUT]: without FIELD's line. For profiles.cases.
mutate() {
  sed -E "s/(\"$1\": )(\"[^\"]*\"|[^,}]*)/\1$2/" "$P" >"${3:-p.json}"
  grep -qF "\"$1\": $2" "${3:-p.json}" || { echo "mutate: the fixture has no field '$1'" >&2; return 1; }
}
drop() {
  grep -q "\"$1\":" "$P" || { echo "drop: the fixture has no field '$1'" >&2; return 1; }
  sed "/\"$1\":/d" "$P" >"${2:-p.json}"
}
# watch_for SECONDS ARGS...: `$W ARGS...` (a watch) for SECONDS, then Ctrl-C (SIGINT);
# its exit status. For watch.cases.
watch_for() {
  local secs=$1
  shift
  "$W" "$@" &
  local pid=$!
  sleep "$secs"
  kill -INT $pid 2>/dev/null
  wait $pid
}
export -f mutate drop watch_for
trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; printf '%s' "${s%"${s##*[![:space:]]}"}"; }
passed=0 failed=0 xfailed=0 n=0
for file in "$@"; do
  lineno=0
  while IFS= read -r line || [ -n "$line" ]; do
    lineno=$((lineno + 1))
    [[ $line =~ ^[[:space:]]*(#|$) ]] && continue
    xfail=0
    [[ $line == "xfail "* ]] && { xfail=1; line=${line#xfail }; }
    want=$(trim "${line%%|*}")
    rest=${line#*|}
    text=$(trim "${rest%%|*}")
    cmd=${rest#*|}
    where="$(basename "$file"):$lineno"
    if ! [[ $want =~ ^[0-9]+$ ]] || [ -z "$text" ] || [ "$cmd" = "$rest" ]; then
      echo "BAD CASE $where: want 'EXIT | SUBSTRING | COMMAND': $line"
      failed=$((failed + 1))
      continue
    fi
    n=$((n + 1))
    [ "${RUN_CASES_LINT:-}" = 1 ] && { passed=$((passed + 1)); continue; }
    export T=$base/t$n
    mkdir -p "$T"
    (cd "$T" && timeout -k 5 60 bash -c "$cmd" </dev/null >"$base/out" 2>&1)
    rc=$?
    why=""
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then why="hung (still running after 60 s)"
    elif [ $rc -ge 128 ]; then why="died of signal $((rc - 128))"
    elif grep -Eq "$DIED" "$base/out"; then why="the output says the process died: $(grep -Em1 "$DIED" "$base/out")"
    elif [ $rc -ne "$want" ]; then why="exit $rc, want $want"
    elif ! grep -qF -- "$text" "$base/out"; then why="no '$text' in the output"
    elif awk '/^(warplab: |-)/ && length > 320 { found = 1 } END { exit !found }' "$base/out"; then
      why="a message line is longer than 320 characters"
    fi
    if [ -z "$why" ] && [ $xfail -eq 1 ]; then
      echo "XPASS $where: a case marked xfail passes now: remove the mark"
      failed=$((failed + 1))
    elif [ -z "$why" ]; then
      passed=$((passed + 1))
    elif [ $xfail -eq 1 ]; then
      echo "xfail $where ($why): $cmd"
      xfailed=$((xfailed + 1))
    else
      echo "FAIL $where: $why"
      echo "    command: $cmd"
      head -c 2000 "$base/out" | sed 's/^/    | /'
      failed=$((failed + 1))
    fi
    chmod -R u+rwX "$T" 2>/dev/null
    rm -rf "$T"
  done <"$file"
done
echo "$passed passed, $failed failed, $xfailed known defects (xfail) of $n cases"
[ $failed -eq 0 ]
