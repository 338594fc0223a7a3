#!/usr/bin/env bash
# usage.sh: one command-line convention, as git's and cargo's: a bare `warplab` prints the
# short help on stdout and exits 0 (as cargo; docs/cli.md); a word that names no command is
# exit 2 with "unknown command 'attr'; did you mean 'attrs'?" (a script without `run`: "did
# you mean 'warplab run x.lua'?"), wherever the global options stand; `warplab help
# [COMMAND]` prints exactly what `--help` prints; -V is --version; no help text of any
# command shows CLI11's validator names ("--device N:N", "info|clear:{info,clear}").
# Usage: bash usage.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1 WARPLAB_CACHE_DIR="$T/cache"
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# run WANT ARGS...: warplab ARGS must exit WANT; stdout in $T/out, stderr in $T/err.
run() {
  local want=$1
  shift
  "$BIN" "$@" >"$T/out" 2>"$T/err" </dev/null
  rc=$?
  [ "$rc" -eq "$want" ] || fail "warplab $*: exit $rc, want $want ($(head -c 300 "$T/err"))"
}
cd "$T" || exit 1

# The commands a user is shown: those `warplab --help` lists.
"$BIN" --help >"$T/top" || fail "--help: exit $?"
mapfile -t cmds < <(sed -n '/^Subcommands:/,/^$/p' "$T/top" | awk 'NR > 1 && NF {print $1}')
[ ${#cmds[@]} -ge 8 ] || fail "only ${#cmds[@]} commands in --help: ${cmds[*]}"
printf '%s\n' "${cmds[@]}" | grep -qx help || fail "--help does not list 'help'"

# Bare warplab, alone or with global options only: the short help, exit 0, nothing on stderr.
for args in "" "-q" "--profile h100" "--no-color --sync"; do
  # shellcheck disable=SC2086
  run 0 $args
  [ -s "$T/err" ] && fail "warplab $args: stderr: $(cat "$T/err")"
  grep -qx "Usage: warplab \[GLOBAL OPTIONS\] COMMAND \[ARGS\]" "$T/out" || fail "warplab $args: no usage line"
  for c in "${cmds[@]}"; do
    grep -qE "^  $c +[a-z]" "$T/out" || fail "warplab $args: the short help does not list '$c'"
  done
  grep -qF "warplab help COMMAND" "$T/out" || fail "warplab $args: the short help does not say how to get more"
  [ "$(wc -l <"$T/out")" -le 25 ] || fail "warplab $args: the short help is not short ($(wc -l <"$T/out") lines)"
done

# Did you mean: before or after the global options, one sentence on stderr, exit 2.
said() { grep -qxF -- "$1" "$T/err" || fail "$2: stderr is not '$1': $(cat "$T/err")"; }
for args in "attr" "--profile h100 attr" "-q attr warp" "attr --profile h100 warp"; do
  # shellcheck disable=SC2086
  run 2 $args
  said "warplab: unknown command 'attr'; did you mean 'attrs'?" "warplab $args"
  [ -s "$T/out" ] && fail "warplab $args: wrote to stdout"
done
run 2 complie x.cu
said "warplab: unknown command 'complie'; did you mean 'compile'?" "complie"
run 2 lst
said "warplab: unknown command 'lst'; did you mean 'list'?" "lst"
run 2 examples/tour.lua
said "warplab: unknown command 'examples/tour.lua'; did you mean 'warplab run examples/tour.lua'?" "a script"
run 2 frobnicate
said "warplab: unknown command 'frobnicate' (commands: $(printf '%s, ' "${cmds[@]}" | sed 's/, $//'))" "frobnicate"
# A value of a global option is not the command: `--profile attrs` then `bogus`.
run 2 --profile attrs bogus
said "warplab: unknown command 'bogus' (commands: $(printf '%s, ' "${cmds[@]}" | sed 's/, $//'))" "--profile attrs bogus"
# After the command, a command's name is a word like any other (an argument).
run 0 --profile h100 attrs warp_size -q
grep -q "warp_size" "$T/out" || fail "attrs warp_size: $(cat "$T/out")"

# help [COMMAND]: exactly --help's text, for every command, global options anywhere.
run 0 help
"$BIN" --help >"$T/want"
cmp -s "$T/want" "$T/out" || fail "'warplab help' differs from 'warplab --help'"
for c in "${cmds[@]}" completion man; do
  "$BIN" "$c" --help >"$T/want" 2>&1 || fail "$c --help: exit $?"
  for args in "help $c" "-q help $c" "help $c --no-color"; do
    # shellcheck disable=SC2086
    run 0 $args
    cmp -s "$T/want" "$T/out" || fail "'warplab $args' differs from 'warplab $c --help'"
  done
done
run 2 help atrs
said "warplab: unknown command 'atrs'; did you mean 'attrs'?" "help atrs"

# -V is --version, before or after a command.
"$BIN" --version >"$T/want" || fail "--version: exit $?"
grep -q '^warplab [0-9]' "$T/want" || fail "--version: $(cat "$T/want")"
for args in "-V" "list -V" "-q -V"; do
  # shellcheck disable=SC2086
  run 0 $args
  cmp -s "$T/want" "$T/out" || fail "warplab $args is not --version: $(cat "$T/out")"
done

# No CLI11 artefacts in any help: an option's value is its name alone ("--device N"), never
# followed by a validator's (":N", ":{info,clear}", ":NONNEGATIVE").
for c in "" "${cmds[@]}" completion man; do
  # shellcheck disable=SC2086
  "$BIN" $c --help >"$T/h" 2>&1 || fail "$c --help: exit $?"
  grep -nE -- '(^|[ ,])-[-a-zA-Z]+ [^ ]*:[^ ]' "$T/h" >"$T/bad" && fail "'warplab $c --help' shows a validator: $(head -3 "$T/bad")"
  grep -nE -- '^  [a-z]+ [A-Z.|a-z=]+:[{A-Z]' "$T/h" >"$T/bad" && fail "'warplab $c --help' positional shows a validator: $(head -3 "$T/bad")"
done
"$BIN" --help | grep -qE -- '^  --device N +CUDA' || fail "--help: '--device N' not found"
"$BIN" --help | grep -qE -- '^  --timeout SECONDS +kernel' || fail "--help: '--timeout SECONDS' not found"
"$BIN" cache --help | grep -qE -- '^  action info\|clear +info' || fail "cache --help: 'action info|clear' not found"
# The --profile help names every shipped profile, as the loader knows them.
for p in h100 h200 a100 l4 rtx4090 b200 rtx5090 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120; do
  "$BIN" --help | grep -E -- '^  --profile PROFILE' | grep -qw "$p" || fail "--help: --profile does not name $p"
  "$BIN" attrs --help | grep -A1 -E -- '^  --profile PROFILE' | grep -qw "$p" || fail "attrs --help: --profile does not name $p"
done
exit $((failures > 0))
