#!/usr/bin/env bash
# global_options.sh: every global option works before the subcommand, right after it,
# after its positionals and between the script's arguments, for run, repl, compile,
# attrs, cache, list and watch; script arguments stay the script's, `--` hands the rest
# (options too) to the script, an unknown option is a usage error (exit 2) that says how
# to pass it to a script, and a subcommand's own option of the same name wins after it.
# Offline (WARPLAB_NO_DRIVER=1). Usage: bash global_options.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1 WARPLAB_CACHE_DIR="$T/cache"
fail() { echo "FAIL: $*"; echo "--- stdout:"; cat "$T/out"; echo "--- stderr:"; cat "$T/err"; failures=$((failures + 1)); }
# run WANT ARGS...: warplab ARGS (stdin from $T/in when present) must exit WANT.
run() {
  local want=$1
  shift
  if [ -f "$T/in" ]; then "$BIN" "$@" <"$T/in" >"$T/out" 2>"$T/err"; else "$BIN" "$@" >"$T/out" 2>"$T/err" </dev/null; fi
  rc=$?
  [ "$rc" -eq "$want" ] || fail "warplab $*: exit $rc, want $want"
}
has_out() { grep -qF -- "$1" "$T/out" || fail "$2: stdout lacks '$1'"; }
no_err() { [ ! -s "$T/err" ] || fail "$1: stderr not empty"; }

# A profile that differs from the shipped ones where it shows: sm_80, its own name.
sed -e 's/"compute_capability": "9.0"/"compute_capability": "8.0"/' \
    -e 's/"compute_capability_major": 9/"compute_capability_major": 8/' \
    -e 's/"synthetic test device"/"sm80 test device"/' "$FIX" >"$T/p80.json"
P=$T/p80.json
printf 'print(cuda.device().name, select("#", ...), ...)\n' >"$T/s.lua"
GOOD=$ROOT/kernels_src/warps/thread_ids.cu

# --profile in every position, for every subcommand that reads a device.
for args in "--profile $P run $T/s.lua" "run --profile $P $T/s.lua" "run $T/s.lua --profile $P" \
            "run $T/s.lua --profile=$P" "run --profile=$P $T/s.lua"; do
  # shellcheck disable=SC2086
  run 0 $args
  [ "$(cat "$T/out")" = "sm80 test device	0" ] || fail "$args: $(cat "$T/out")"
  no_err "$args"
done
echo 'print(dev.name)' >"$T/in"
for args in "--profile $P repl" "repl --profile $P"; do
  # shellcheck disable=SC2086
  run 0 $args
  [ "$(cat "$T/out")" = "sm80 test device" ] || fail "$args"
  no_err "$args"
done
rm "$T/in"
for args in "--profile $P compile $GOOD" "compile --profile $P $GOOD" "compile $GOOD --profile $P"; do
  # shellcheck disable=SC2086
  run 0 $args
  has_out "1 kernel for sm_80 " "$args"
  no_err "$args"
done
for args in "--profile $P attrs warp_size" "attrs --profile $P warp_size" "attrs warp_size --profile $P"; do
  # shellcheck disable=SC2086
  run 0 $args
  has_out "sm80 test device (sm_80" "$args"
done

# -q in every position: no offline note, no compile header, no attrs footer.
for args in "-q run $T/s.lua" "run -q $T/s.lua" "run $T/s.lua -q" "run $T/s.lua --quiet"; do
  # shellcheck disable=SC2086
  run 0 $args
  no_err "$args"
  [ "$(cut -f2 "$T/out")" = "0" ] || fail "$args: -q reached the script"
done
for args in "-q compile $GOOD --arch sm_90" "compile -q $GOOD --arch sm_90" "compile $GOOD --arch sm_90 -q"; do
  # shellcheck disable=SC2086
  run 0 $args
  grep -q "kernel for" "$T/out" && fail "$args: -q kept the header"
  has_out "thread_ids(" "$args"
done
for args in "-q attrs --profile $P warp_size" "attrs -q --profile $P warp_size" "attrs --profile $P warp_size -q"; do
  # shellcheck disable=SC2086
  run 0 $args
  grep -q "^1 attribute" "$T/out" && fail "$args: -q kept the footer"
done

# The others are accepted in every position (their effects have tests of their own).
for g in "--device 0" "--timeout 5" "--sync" "--no-color" "--no-cache"; do
  for pos in before after end; do
    case $pos in
      before) args="$g run $T/s.lua x" ;;
      after) args="run $g $T/s.lua x" ;;
      end) args="run $T/s.lua x $g" ;;
    esac
    # shellcheck disable=SC2086
    run 0 --profile "$P" $args
    [ "$(cut -f2- "$T/out")" = "1	x" ] || fail "$args: the script got $(cut -f2- "$T/out")"
  done
  # shellcheck disable=SC2086
  run 0 cache info $g
  # shellcheck disable=SC2086
  run 0 list $g
  echo 'print(1)' >"$T/in"
  # shellcheck disable=SC2086
  run 0 repl --profile "$P" $g
  rm "$T/in"
done
# --no-cache after the subcommand: the second compile is not answered from the cache.
run 0 compile "$GOOD" --arch sm_90
run 0 compile "$GOOD" --arch sm_90
has_out "from the cache" "the cache answers a repeated compile"
run 0 compile "$GOOD" --arch sm_90 --no-cache
grep -q "from the cache" "$T/out" && fail "compile --no-cache read the cache"

# Script arguments: words after the script are the script's, warplab's options (-q, -p) are not.
run 0 --profile "$P" run "$T/s.lua" a -q b
[ "$(cut -f2- "$T/out")" = "2	a	b" ] || fail "a -q b: $(cat "$T/out")"
run 0 --profile "$P" run "$T/s.lua" -5 list run -p n=1 x
[ "$(cut -f2- "$T/out")" = "4	-5	list	run	x" ] || fail "-5 list run: $(cat "$T/out")"
# `--` ends warplab's options: what follows goes to the script as it is.
run 0 --profile "$P" run "$T/s.lua" a -- --flag -q -- --profile
[ "$(cut -f2- "$T/out")" = "5	a	--flag	-q	--	--profile" ] || fail "after --: $(cat "$T/out")"
run 0 run --profile "$P" "$T/s.lua" -- -p x
[ "$(cut -f2- "$T/out")" = "2	-p	x" ] || fail "-- -p x: $(cat "$T/out")"
# An option warplab does not know: exit 2, and the way to hand it to the script.
run 2 --profile "$P" run "$T/s.lua" a --flag
grep -qF "warplab: run: unknown option '--flag' (\`warplab run --help\` lists its options)" "$T/err" || fail "unknown option message: $(cat "$T/err")"
grep -qF "To pass options to the script, put them after --: warplab run SCRIPT.lua -- --flag" "$T/err" ||
  fail "no hint for the script option"
run 2 attrs -- warp
run 2 compile "$GOOD" --bogus
grep -q "put them after --" "$T/err" && fail "compile got the script hint"
# After the command too, a misspelt option is said with the nearest name (the command's or
# a global one), a lone letter with the one long option it starts.
run 2 --profile "$P" run "$T/s.lua" --parms
grep -qxF "warplab: run: unknown option '--parms'; did you mean '--params'?" "$T/err" || fail "--parms: $(cat "$T/err")"
run 2 compile "$GOOD" --sas
grep -qxF "warplab: compile: unknown option '--sas'; did you mean '--sass'?" "$T/err" || fail "--sas: $(cat "$T/err")"
run 2 occupancy "$GOOD" --blok 256
grep -qxF "warplab: occupancy: unknown option '--blok'; did you mean '--block'?" "$T/err" || fail "--blok: $(cat "$T/err")"
run 2 occupancy "$GOOD" -p a100
grep -qxF "warplab: occupancy: unknown option '-p'; did you mean '--profile'?" "$T/err" || fail "-p: $(cat "$T/err")"
run 2 attrs warp --profle h100
grep -qxF "warplab: attrs: unknown option '--profle'; did you mean '--profile'?" "$T/err" || fail "--profle: $(cat "$T/err")"

# A subcommand's own option wins after it: attrs --device asks for a live GPU (exit 3
# offline), watch --timeout is its per-run limit (shown in its --help), while before the
# subcommand they are the global ones.
run 3 attrs --device 0
run 0 --device 0 attrs warp_size
run 0 watch --help
grep -qE -- "end a run that takes longer" "$T/out" || fail "watch --timeout help"
grep -qE -- "^  --timeout SECONDS.*before the subcommand only" "$T/out" || fail "the shadowed global is marked"

exit $((failures > 0))
