#!/usr/bin/env bash
# help.sh: `warplab SUBCOMMAND --help` shows the subcommand's options, two or three
# examples and every global option (read from the app, so none is forgotten); `warplab
# --help` lists the subcommands but not the hidden `completion`. Every example is run
# offline in a scratch folder: none may be a usage error (exit 2).
# Usage: bash help.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1 WARPLAB_CACHE_DIR="$T/cache" XDG_STATE_HOME="$T/state" HOME="$T/home"
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$BIN" --help >"$T/top" 2>&1 || fail "warplab --help: exit $?"
# The global options, as `warplab --help` lists them.
mapfile -t globals < <(sed -n '/^Options:/,/^$/p' "$T/top" | grep -oE -- '--[a-z-]+' |
                        grep -vxE -- '--help|--version' | sort -u)
[ ${#globals[@]} -ge 7 ] || fail "only ${#globals[@]} global options found: ${globals[*]}"
for g in --device --profile --timeout --sync --no-color --quiet --no-cache; do
  printf '%s\n' "${globals[@]}" | grep -qxF -- "$g" || fail "warplab --help lacks $g"
done
grep -q "^  completion " "$T/top" && fail "completion is listed (it is hidden)"
grep -qF "warplab completion bash|zsh" "$T/top" || fail "warplab --help does not mention completion"

# The examples run in an empty folder: one that names a shipped script or kernel must find
# it there, as a user's would (only the placeholders my.lua and k.cu are not there).
mkdir -p "$T/ex" "$HOME"
warplab() { "$BIN" "$@"; }
for sub in attrs compile occupancy run cache repl watch list counters completion; do
  "$BIN" "$sub" --help >"$T/h" 2>&1 || fail "$sub --help: exit $?"
  grep -q "^Usage: warplab $sub " "$T/h" || fail "$sub --help: no usage line"
  # Its own options are listed (CLI11's section) ...
  case $sub in
    attrs) own="--device --profile --json --csv --diff --no-color" ;;
    compile) own="--arch -D -I --kernel --ptx --json --cubin --lineinfo --max-errors" ;;
    occupancy) own="--kernel --block --shared --carveout --profile -D -I --json" ;;
    run) own="--param --no-check --sanitize" ;;
    watch) own="--param --clear --diff --timeout --no-check" ;;
    cache | list | counters) own="--json" ;;
    *) own="" ;;
  esac
  for o in $own; do
    sed -n '/^Options:/,/^$/p' "$T/h" | grep -qE -- "(^| |,)$o( |,|$)" || fail "$sub --help: option $o missing"
  done
  # ... then the global ones ...
  sed -n '/^Global options (before or after the subcommand):$/,/^$/p' "$T/h" >"$T/g"
  for g in "${globals[@]}"; do grep -qE -- "(^ +| |,)$g( |,|$)" "$T/g" || fail "$sub --help: global $g missing"; done
  # ... and two or three examples, none of them a usage error.
  sed -n '/^Examples:$/,/^$/p' "$T/h" | sed -n 's/^  //p' >"$T/examples"
  n=$(grep -c '^warplab ' "$T/examples")
  grep -q '| warplab ' "$T/examples" && n=$((n + $(grep -c '| warplab ' "$T/examples")))
  [ "$n" -ge 2 ] && [ "$n" -le 3 ] || fail "$sub --help: $n examples"
  while IFS= read -r ex; do
    [ -n "$ex" ] || continue
    (cd "$T/ex" && timeout 5 bash -c "$(declare -f warplab); BIN='$BIN'; $ex" </dev/null >"$T/out" 2>&1)
    rc=$?
    # 124: a watch example ran until the timeout ended it, which is what it should do.
    [ "$rc" -ne 2 ] || fail "$sub example '$ex' is a usage error: $(head -c 300 "$T/out")"
    case $ex in *my.lua* | *" k.cu "*) ;; *)
      grep -qE "not found|cannot open|cannot read" "$T/out" &&
        fail "$sub example '$ex' does not find its file outside the checkout: $(head -c 300 "$T/out")" ;;
    esac
  done <"$T/examples"
done
# Options that exclude each other say so after their description, not with CLI11's
# "Excludes:" wedged between the name and the description.
for sub in attrs compile occupancy run watch repl list cache counters; do
  "$BIN" "$sub" --help 2>&1 | grep -q "Excludes" && fail "$sub --help shows CLI11's Excludes:"
done
"$BIN" compile --help | grep -qE '^  --ptx +print the PTX .*\(not with --json, --sass, --lines\)$' ||
  fail "compile --help: --ptx does not say it excludes --json and --sass"
"$BIN" attrs --help | grep -qE '^  --csv +print .*\(not with --json, --diff\)$' ||
  fail "attrs --help: --csv does not say it excludes --json and --diff"

exit $((failures > 0))
