#!/usr/bin/env bash
# cache_safety.sh: `warplab cache clear` removes only what warplab wrote and refuses a
# folder that is not provably a warplab cache; odd cache states (an entry path that is a
# folder, a cache folder that is a file, an overflowing WARPLAB_CACHE_MAX_MB) never break
# a compile; `compile --cubin` never overwrites its source. (issue 12, defects 1, 9, 10)
# Usage: bash cache_safety.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
fail() { echo "FAIL: $*"; [ -f "$T/err" ] && sed 's/^/    /' "$T/err"; failures=$((failures + 1)); }
K=$ROOT/kernels_src/warps/thread_ids.cu

# A folder that is not a cache: nothing removed, exit 4, one sentence.
mkdir -p "$T/x/go" && echo keep >"$T/x/go/notes.txt"
WARPLAB_CACHE_DIR=$T/x "$BIN" cache clear >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 4 ] || fail "clear of a foreign folder: exit $rc, want 4"
grep -q "is not a warplab cache" "$T/err" || fail "clear of a foreign folder: no sentence"
[ -f "$T/x/go/notes.txt" ] || fail "DATA LOSS: clear removed $T/x/go/notes.txt"

# A real cache with a foreign folder added: entries go, the foreign folder stays.
export WARPLAB_CACHE_DIR=$T/c
"$BIN" compile "$K" >/dev/null 2>&1 || fail "compile into a fresh cache"
[ -f "$T/c/WARPLAB_CACHE" ] || fail "the first entry writes no marker"
mkdir -p "$T/c/ab" && echo mine >"$T/c/ab/mine.txt" && echo mine >"$T/c/other.txt"
"$BIN" cache clear >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] || fail "clear of a cache: exit $rc"
grep -q "removed 1 entry" "$T/out" || fail "clear count: $(cat "$T/out")"
[ -f "$T/c/ab/mine.txt" ] && [ -f "$T/c/other.txt" ] || fail "DATA LOSS: clear removed a file warplab did not write"
[ -z "$(find "$T/c" -name '*.wlc')" ] || fail "clear left entries"

# An entry path that is a folder: the compile still works (a miss), no libstdc++ text.
"$BIN" compile "$K" >/dev/null 2>&1
e=$(find "$T/c" -name '*.wlc' | head -1)
rm -f "$e" && mkdir -p "$e"
"$BIN" compile "$K" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] || fail "compile with a folder at the entry path: exit $rc"
grep -qi "basic_filebuf\|filesystem error" "$T/err" && fail "a libstdc++ message leaked"
rmdir "$e"

# A corrupt entry (bytes flipped): recompiled, not used.
"$BIN" cache clear >/dev/null 2>&1; "$BIN" compile "$K" >/dev/null 2>&1
e=$(find "$T/c" -name '*.wlc' | head -1)
printf 'garbage' | dd of="$e" bs=1 seek=40 conv=notrunc status=none
"$BIN" compile "$K" >"$T/out" 2>"$T/err" || fail "compile over a corrupt entry"
grep -q "from the cache" "$T/out" && fail "a corrupt entry was used"

# WARPLAB_CACHE_MAX_MB that overflows: a warning, and the cache keeps its entries.
WARPLAB_CACHE_MAX_MB=99999999999999999999999 "$BIN" compile "$K" >"$T/out" 2>"$T/err" || fail "compile with a huge MAX_MB"
grep -q "WARPLAB_CACHE_MAX_MB" "$T/err" || fail "no warning for an overflowing WARPLAB_CACHE_MAX_MB"
[ -n "$(find "$T/c" -name '*.wlc')" ] || fail "an overflowing WARPLAB_CACHE_MAX_MB evicted everything"
WARPLAB_CACHE_MAX_MB=-5 "$BIN" compile "$K" >/dev/null 2>"$T/err"; grep -q "WARPLAB_CACHE_MAX_MB" "$T/err" || fail "no warning for -5"

# A cache folder that is a file: one warning, the compile works, the file is untouched.
echo precious >"$T/file"
WARPLAB_CACHE_DIR=$T/file "$BIN" compile "$K" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] || fail "compile with a file as the cache folder: exit $rc"
[ "$(grep -c 'not a folder' "$T/err")" = 1 ] || fail "want one warning for a file as the cache folder"
[ "$(cat "$T/file")" = precious ] || fail "DATA LOSS: the file given as cache folder changed"
WARPLAB_CACHE_DIR=$T/file "$BIN" cache clear >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 4 ] && [ "$(cat "$T/file")" = precious ] || fail "clear of a file: exit $rc"

# --cubin over the source, or into a folder; --arch "".
cp "$K" "$T/k.cu"
"$BIN" compile "$T/k.cu" --cubin "$T/k.cu" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 4 ] || fail "--cubin over the source: exit $rc"
cmp -s "$K" "$T/k.cu" || fail "DATA LOSS: --cubin overwrote the source"
(cd "$T" && "$BIN" compile k.cu --cubin ./k.cu >/dev/null 2>&1); [ $? -eq 4 ] || fail "--cubin ./k.cu over k.cu"
"$BIN" compile "$T/k.cu" --cubin "$T" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 4 ] && grep -q "folder" "$T/err" || fail "--cubin into a folder: exit $rc"
"$BIN" compile "$T/k.cu" --cubin /nonexistent/dir/k.cubin >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 4 ] && grep -qE "No such file|folder '/nonexistent/dir' .* does not exist" "$T/err" ||
  fail "--cubin failure gives no reason: $(cat "$T/err")"
"$BIN" compile "$T/k.cu" --arch "" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 4 ] && grep -q "sm_90" "$T/err" || fail "--arch '': exit $rc"
exit $((failures > 0))
