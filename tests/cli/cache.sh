#!/usr/bin/env bash
# cache.sh: the on-disk compile cache through the CLI, no GPU: the second compile of the
# same file is answered from the cache, a header edit misses, `cache info` counts the
# entries, `cache clear` empties it, and --no-cache neither reads nor writes it.
# Usage: bash cache.sh <warplab binary> <source root>
set -u
WL="$1"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
export WARPLAB_NO_DRIVER=1 NO_COLOR=1 WARPLAB_CACHE_DIR="$TMP/cache"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
printf '#define F 2.0f\n' >"$TMP/h.cuh"
printf '#include "h.cuh"\n__global__ void k(float* x) { x[threadIdx.x] *= F; }\n' >"$TMP/k.cu"

"$WL" compile "$TMP/k.cu" --arch sm_90 >"$TMP/1" 2>&1 || fail "first compile: $(cat "$TMP/1")"
grep -q "from the cache" "$TMP/1" && fail "first compile claims a cache hit"
"$WL" compile "$TMP/k.cu" --arch sm_90 >"$TMP/2" 2>&1 || fail "second compile failed"
grep -q "from the cache" "$TMP/2" || fail "second compile was not a hit: $(cat "$TMP/2")"
"$WL" cache info >"$TMP/info" 2>&1
grep -q "entries: 1$" "$TMP/info" || fail "cache info: $(cat "$TMP/info")"

printf '#define F 3.0f\n' >"$TMP/h.cuh"  # only the header changes: a miss
"$WL" compile "$TMP/k.cu" --arch sm_90 >"$TMP/3" 2>&1
grep -q "from the cache" "$TMP/3" && fail "a header edit was answered from the cache"
"$WL" --no-cache compile "$TMP/k.cu" --arch sm_90 >"$TMP/4" 2>&1
grep -q "from the cache" "$TMP/4" && fail "--no-cache read the cache"
"$WL" cache info | grep -q "entries: 2$" || fail "expected 2 entries: $("$WL" cache info)"

"$WL" cache clear >"$TMP/clear" 2>&1
grep -q "removed 2 entries" "$TMP/clear" || fail "cache clear: $(cat "$TMP/clear")"
"$WL" cache info | grep -q "entries: 0$" || fail "cache not empty after clear"
"$WL" cache bogus >/dev/null 2>&1; [ $? -eq 2 ] || fail "cache bogus should be a usage error (2)"

[ $fails -eq 0 ] && echo "cache: all checks passed"
exit $((fails > 0))
