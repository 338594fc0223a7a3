#!/usr/bin/env bash
# attrs_offline.sh: `warplab attrs` with no driver (WARPLAB_NO_DRIVER=1) and bad profiles:
# without a GPU it falls back to the default profile with the one-line note, as every
# command does; a live device asked for by index is exit 3; a bad profile one sentence
# and exit 4 (docs/exit-codes.md), never a crash.
# Usage: bash attrs_offline.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
unset NO_COLOR
run() { "$BIN" "$@" >"$T/out" 2>"$T/err"; rc=$?; }
fail() { echo "FAIL: $*"; echo "--- stderr:"; cat "$T/err"; failures=$((failures + 1)); }
expect_rc() { [ "$rc" -eq "$1" ] || fail "$2: exit $rc, want $1"; }
expect_err() { grep -qF -- "$1" "$T/err" || fail "stderr lacks: $1"; }
one_line() { [ "$(wc -l <"$T/err")" -eq 1 ] && [ ! -s "$T/out" ] || fail "$1: want one stderr line, no stdout"; }

run attrs
expect_rc 0 "no driver, no profile: the default profile"
[ "$(cat "$T/err")" = "warplab: no GPU (WARPLAB_NO_DRIVER is set): using profile h100" ] ||
  fail "the offline note"
grep -q '^NVIDIA H100.*\[profile h100' "$T/out" || fail "attrs offline: not the h100 profile: $(head -2 "$T/out")"
run attrs -q warp_size
expect_rc 0 "attrs -q offline"
[ ! -s "$T/err" ] || fail "-q keeps the note"
for quiet in "--profile h100 attrs warp_size" "attrs warp_size --profile h100"; do
  # shellcheck disable=SC2086
  run $quiet
  expect_rc 0 "$quiet"
  [ ! -s "$T/err" ] || fail "$quiet: --profile must silence the note"
done
WARPLAB_PROFILE=h200 "$BIN" attrs warp_size >"$T/out" 2>"$T/err"
[ $? -eq 0 ] && [ ! -s "$T/err" ] && grep -q 'profile h200' "$T/out" || fail "WARPLAB_PROFILE: $(cat "$T/err")"

run attrs --device all
expect_rc 3 "--device all without a driver"
expect_err "(--device all needs a GPU; use --profile "
one_line "--device all"

run attrs --device 1
expect_rc 3 "--device 1 without a driver"
expect_err "warplab: device 1 does not exist: no NVIDIA driver: WARPLAB_NO_DRIVER is set (use --profile "
grep -qE -- "--profile [A-Za-z0-9_.-]+ to work from a captured device\)$" "$T/err" || fail "no hint"
one_line "--device 1"
# The subcommand's --device wins over a global --profile: it asks for the live GPU.
run --profile "$FIX" attrs --device 0
expect_rc 3 "attrs --device over global --profile"
run attrs --diff 0 "$FIX"
expect_rc 3 "--diff with a device index"
expect_err "(device 0 needs a GPU; use --profile "

run attrs --profile nope/x.json
expect_rc 4 "missing profile file"
[ "$(cat "$T/err")" = "warplab: profile 'nope/x.json': no such file" ] || fail "missing file message"
run attrs --profile no-such-gpu
expect_rc 4 "unknown profile name"
expect_err "warplab: unknown profile 'no-such-gpu': "
expect_err "a path to a .json file"
run attrs --diff "$FIX" nope/x.json
expect_rc 4 "--diff with a missing file"
run attrs --profile "$ROOT/tests/data/profiles"
expect_rc 4 "a directory as profile"
expect_err "is a directory, not a .json file"

# Every malformed profile: exit 4, one line naming the file.
for f in "$ROOT"/tests/data/profiles/bad/*; do
  run attrs --profile "$f"
  expect_rc 4 "$(basename "$f")"
  expect_err "warplab: profile '$f': "
  one_line "$(basename "$f")"
done

if [ "$(id -u)" -ne 0 ]; then  # root reads anything
  cp "$FIX" "$T/locked.json" && chmod 000 "$T/locked.json"
  run attrs --profile "$T/locked.json"
  expect_rc 4 "unreadable profile"
  expect_err "warplab: profile '$T/locked.json': cannot read the file (Permission denied)"
fi
exit $((failures > 0))
