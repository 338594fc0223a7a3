#!/usr/bin/env bash
# attrs_gpu.sh: `warplab attrs` on a real GPU (skips with 77 where there is none): the
# header names the live device, --json round trips through --profile and diffs equal to
# the device, the shipped architecture profile of its compute capability agrees with it,
# a bad index says how many devices exist, --device all gives an array.
# Usage: bash attrs_gpu.sh <warplab binary> <source root>
set -u
BIN=$1
unset WARPLAB_NO_DRIVER WARPLAB_PROFILE
T=$(mktemp -d) && trap 'rm -rf "$T"' EXIT
# attrs falls back to a profile without a GPU: ask a script whether the device is live.
echo 'io.write(tostring(cuda.device().live))' >"$T/probe.lua"
[ "$("$BIN" -q run "$T/probe.lua" 2>/dev/null)" = "true" ] || { echo "skip: no GPU"; exit 77; }
"$BIN" attrs >"$T/out" 2>"$T/err"
rc=$?
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
[ "$rc" -eq 0 ] || fail "attrs: exit $rc: $(cat "$T/err")"
[ ! -s "$T/err" ] || fail "attrs on a GPU printed on stderr: $(cat "$T/err")"
head -1 "$T/out" | grep -qE '^.+ \(sm_[0-9]+, [0-9]+ SMs, [0-9]+ GiB\) \[device 0, driver [0-9]+\.[0-9]+\]$' ||
  fail "header: $(head -1 "$T/out")"
n=$(grep -c '^  [a-z]' "$T/out")
[ "$n" -ge 140 ] || fail "only $n attributes answered"

"$BIN" attrs --json >"$T/d0.json" || fail "attrs --json"
"$BIN" attrs --profile "$T/d0.json" --json >"$T/again.json" || fail "--profile of the capture"
cmp -s "$T/d0.json" "$T/again.json" || fail "--json does not round trip through --profile"
"$BIN" attrs --diff 0 "$T/d0.json" >"$T/out" || fail "--diff 0 capture"
tail -1 "$T/out" | grep -qE '^0 attributes differ, [0-9]+ equal$' || fail "device vs its capture: $(tail -1 "$T/out")"

# The shipped architecture profile of this GPU's compute capability (sm_90 on an H100 or
# H200) agrees with the device on every attribute it gives: NVIDIA's documented limits
# are what the driver reports. Each name is made a glob ([w]arp_size) so it matches whole.
arch=$("$BIN" attrs warp_size | head -1 | grep -oE '\(sm_[0-9]+' | tr -d '(')
if [ -n "$arch" ] && "$BIN" attrs --profile "$arch" -q warp_size >/dev/null 2>&1; then
  mapfile -t given < <("$BIN" attrs --profile "$arch" --csv | tail -n +2 | cut -d, -f1 | sed 's/^\(.\)/[\1]/')
  # Exit 1 all the same: the name and the memory (unknown to the architecture) differ.
  "$BIN" attrs --diff 0 "$arch" "${given[@]}" >"$T/out" 2>&1
  tail -1 "$T/out" | grep -qE "^0 attributes differ, ${#given[@]} equal$" || fail "device vs $arch: $(tail -1 "$T/out")"
else
  echo "note: no shipped architecture profile $arch"
fi

"$BIN" attrs --device 99 >"$T/out" 2>"$T/err"
[ $? -eq 3 ] || fail "--device 99: want exit 3"
grep -qE "^warplab: device 99 does not exist: [0-9]+ CUDA devices? (is|are) present \(valid: 0(-[0-9]+)?\)$" "$T/err" ||
  fail "bad index sentence: $(cat "$T/err")"
"$BIN" attrs --device all --json >"$T/all.json" || fail "--device all --json"
[ "$(head -c 1 "$T/all.json")" = "[" ] || fail "--device all --json is not an array"
exit $((failures > 0))
