#!/usr/bin/env bash
# attrs_profile.sh: `warplab attrs --profile FIXTURE` offline: header, groups in order,
# values with units, footer; patterns (substring, glob, alias, unit, meaning, no match);
# global vs subcommand --profile; no ANSI colour unless stdout is a terminal.
# Usage: bash attrs_profile.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
unset NO_COLOR
run() { "$BIN" "$@" >"$T/out" 2>"$T/err"; rc=$?; }
fail() { echo "FAIL: $*"; echo "--- stdout:"; head -30 "$T/out"; echo "--- stderr:"; cat "$T/err"; failures=$((failures + 1)); }
ok() { [ "$rc" -eq 0 ] || fail "$1: exit $rc"; }
has() { grep -qE -- "$1" "$T/out" || fail "stdout lacks /$1/"; }
# rows: the attribute names shown, one per line (rows are indented by two spaces)
rows() { sed -n 's/^  \([a-z0-9_]*\)  .*/\1/p' "$T/out"; }

run attrs --profile "$FIX"
ok "attrs --profile fixture"
[ "$(head -1 "$T/out")" = "synthetic test device (sm_90, 100 SMs, 64 GiB) [profile $FIX, captured 2000-01-01T00:00:00Z, driver 13.0]" ] ||
  fail "header line"
groups=$(grep -E '^[a-z-]+$' "$T/out" | tr '\n' ' ')
[ "$groups" = "device limits sm shared-memory memory clocks host-memory features topology texture other " ] ||
  fail "group order: $groups"
has '^  max_shared_memory_per_block +49152 \(48 KiB\) +shared memory one block may use'
has '^  clock_rate +1500000 kHz \(1\.5 GHz\) '
has '^  cooperative_launch +yes '
has '^  compute_mode +0 \(default\) '
has '^  future_attribute_from_newer_cuda +7 +not in this warplab'
n=$(rows | wc -l)
[ "$(tail -1 "$T/out")" = "$n attributes; not reported by profile $FIX: d3d12_cig_supported" ] || fail "footer"
grep -q $'\033' "$T/out" && fail "ANSI escapes with stdout not a terminal"
cp "$T/out" "$T/full"

# The same target through the global option, the environment, and local over global.
run --profile "$FIX" attrs
cmp -s "$T/out" "$T/full" || fail "global --profile differs"
WARPLAB_PROFILE=$FIX run attrs
cmp -s "$T/out" "$T/full" || fail "WARPLAB_PROFILE differs"
run --profile no-such-gpu attrs --profile "$FIX"
cmp -s "$T/out" "$T/full" || fail "subcommand --profile does not override the global one"
run -q attrs --profile "$FIX"
[ "$(tail -1 "$T/out")" != "$(tail -1 "$T/full")" ] || fail "--quiet keeps the footer"

# Patterns.
run attrs --profile "$FIX" warp
ok "warp"
rows | grep -qx warp_size || fail "warp: no warp_size"
cp "$T/out" "$T/warp"
run attrs --profile "$FIX" WARP
cmp -s "$T/out" "$T/warp" || fail "substring match is not case-insensitive"
run attrs --profile "$FIX" '*shared*'
ok "glob"
[ "$(rows | sort)" = "$(grep -oE '^  [a-z0-9_]*shared[a-z0-9_]*' "$T/full" | tr -d ' ' | sort)" ] || fail "*shared* rows"
run attrs --profile "$FIX" 'max_block_dim_[xz]'
[ "$(rows | tr '\n' ' ')" = "max_block_dim_x max_block_dim_z " ] || fail "bracket glob"
run attrs --profile "$FIX" 'shared_memory_per_*'
[ "$(rows)" = "max_shared_memory_per_block" ] || fail "glob over the alias shared_memory_per_block"
run attrs --profile "$FIX" khz
[ "$(rows | tr '\n' ' ')" = "clock_rate memory_clock_rate " ] || fail "unit match (kHz)"
run attrs --profile "$FIX" watchdog
[ "$(rows)" = "kernel_exec_timeout" ] || fail "meaning match (watchdog)"
run attrs --profile "$FIX" warp_size watchdog
[ "$(rows | sort | tr "\n" " ")" = "kernel_exec_timeout warp_size " ] || fail "two patterns"
run attrs --profile "$FIX" future
rows | grep -qx future_attribute_from_newer_cuda || fail "unknown attribute not matched"
run attrs --profile "$FIX" zzz
[ "$rc" -eq 4 ] || fail "no match: exit $rc, want 4"
grep -qF "warplab: no attribute matches 'zzz' (" "$T/err" || fail "no-match sentence"
run attrs --profile "$FIX" warp_sise
[ "$rc" -eq 4 ] || fail "a misspelled name: exit $rc, want 4"
grep -qF "warplab: no attribute matches 'warp_sise': did you mean 'warp_size'?" "$T/err" || fail "no did-you-mean"
run attrs --profile "$FIX" warp zzz
[ "$rc" -eq 4 ] || fail "one of two patterns matches nothing: exit $rc, want 4"

# Colour only on a terminal, and never with --no-color or NO_COLOR.
if command -v script >/dev/null 2>&1; then
  script -qec "'$BIN' attrs --profile '$FIX' warp" /dev/null >"$T/tty" 2>&1
  grep -q $'\033\\[1m' "$T/tty" || fail "no colour on a terminal"
  script -qec "'$BIN' attrs --no-color --profile '$FIX' warp" /dev/null >"$T/tty" 2>&1
  grep -q $'\033' "$T/tty" && fail "colour despite --no-color"
  NO_COLOR=1 script -qec "'$BIN' attrs --profile '$FIX' warp" /dev/null >"$T/tty" 2>&1
  grep -q $'\033' "$T/tty" && fail "colour despite NO_COLOR"
fi
exit $((failures > 0))
