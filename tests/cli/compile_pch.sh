#!/usr/bin/env bash
# compile_pch.sh: `warplab compile --timings` says where the time went (includes, cache,
# NVRTC and its phases, outputs, PCH); `--pch` keeps the headers warm first and compiles
# with them, and what it makes is the same: the same cubin, the same PTX, the same
# diagnostics for a file that does not compile; a file without #include has none to keep;
# nothing is left in TMPDIR.
# Usage: bash compile_pch.sh <warplab binary> <source root>
set -u
W="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; SRC="$2"
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp" WARPLAB_NO_DRIVER=1 WARPLAB_CACHE_DIR="$T/cache" NO_COLOR=1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
cd "$T" || exit 1
cat >coop.cu <<'CU'
// coop.cu: a warp's sum through cooperative groups
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void c(int* p) {
  auto w = cg::tiled_partition<32>(cg::this_thread_block());
  p[0] = cg::reduce(w, (int)threadIdx.x, cg::plus<int>());
}
CU

"$W" -q --no-cache compile coop.cu --arch sm_90 --timings --cubin a.cubin >out 2>err || fail "cold: exit $?"
grep -Eq '^time: [0-9.]+ ms: includes [0-9.]+, cache [0-9.]+, NVRTC [0-9.]+ \(front end [0-9.]+, optimizer [0-9.]+, PTX [0-9.]+, ptxas [0-9.]+\), outputs [0-9.]+$' out ||
  fail "no time line: $(cat out)"
grep -qx 'PCH: not used (none kept warm in this process; --pch keeps them, as watch does)' out || fail "cold PCH line: $(cat out)"
"$W" -q --no-cache compile coop.cu --arch sm_90 --timings --pch --cubin b.cubin >out 2>err || fail "--pch: exit $?"
grep -Eq '^PCH: headers kept warm in [0-9.]+ ms; used$' out || fail "--pch: $(cat out)"
cmp -s a.cubin b.cubin || fail "the cubin with the warm headers differs from the one without"
"$W" -q --no-cache compile coop.cu --arch sm_90 --ptx >a.ptx 2>/dev/null
"$W" -q --no-cache compile coop.cu --arch sm_90 --ptx --pch >b.ptx 2>/dev/null
[ -s a.ptx ] && cmp -s a.ptx b.ptx || fail "the PTX with the warm headers differs"

# The same diagnostics for a file that does not compile (and they come back sooner).
sed 's/p\[0\] = /p[0] = undefined_thing + /' coop.cu >bad.cu
"$W" -q --no-cache compile bad.cu --arch sm_90 >/dev/null 2>a.err; rc1=$?
"$W" -q --no-cache compile bad.cu --arch sm_90 --pch --timings >/dev/null 2>b.err; rc2=$?
[ $rc1 -eq 5 ] && [ $rc2 -eq 5 ] || fail "bad.cu: exit $rc1 and $rc2, want 5"
grep -Ev '^(time|PCH): ' b.err | cmp -s a.err - || fail "the diagnostics differ with --pch: $(diff a.err b.err)"
grep -q 'undefined_thing' a.err || fail "no diagnostic: $(cat a.err)"
grep -Eq '^PCH: headers kept warm in [0-9.]+ ms; used$' b.err || fail "bad.cu --pch: $(cat b.err)"

printf '__global__ void k(int* p) { p[0] = 1; }\n' >k.cu
"$W" -q compile k.cu --arch sm_90 --timings --pch >out 2>err || fail "k.cu: exit $?"
grep -Eq '^PCH: headers kept warm in [0-9.]+ ms \(none: no #include to precompile\); not used' out ||
  fail "k.cu --pch: $(cat out)"
# A second compile is a cache hit: no NVRTC.
"$W" -q compile k.cu --arch sm_90 --timings >out 2>err
grep -Eq '^time: [0-9.]+ ms: includes [0-9.]+, cache [0-9.]+ \(a hit: no NVRTC\)$' out || fail "cache hit: $(cat out)"
[ -z "$(ls -A "$T/tmp")" ] || fail "left in TMPDIR: $(ls -A "$T/tmp")"
exit $((failures > 0))
