#!/usr/bin/env bash
# compile.sh: `warplab compile` end to end, no GPU: a good file (exit 0, resource table),
# a bad file (exit 5, file:line:col and caret), a missing file and a bad arch (exit 4),
# --ptx on stdout, --cubin writing an ELF file, --max-errors, -D and -I.
# Usage: bash compile.sh <warplab binary> <source root>
set -u
WL="$1"
ROOT="$2"
BAD="$ROOT/tests/data/kernels/bad"
GOOD="$ROOT/kernels_src/warps/thread_ids.cu"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
export WARPLAB_NO_DRIVER=1 NO_COLOR=1
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# expect CODE DESCRIPTION -- command...: runs it, keeps stdout/stderr in $TMP/out, $TMP/err.
expect() {
  local want="$1" what="$2"
  shift 3
  "$@" >"$TMP/out" 2>"$TMP/err"
  local got=$?
  [ "$got" -eq "$want" ] || fail "$what: exit $got, expected $want; stderr: $(head -c 600 "$TMP/err")"
}
has() { grep -qF -- "$2" "$1" || fail "$3: '$2' not in $(basename "$1"): $(head -c 600 "$1")"; }

# A good file: exit 0, the header line and the demangled signature with its registers.
expect 0 "good file" -- "$WL" compile "$GOOD" --arch sm_90
has "$TMP/out" "1 kernel for sm_90 (NVRTC " "good file"
has "$TMP/out" "regs" "good file table header"
grep -qE '^thread_ids\(unsigned int\*, unsigned long long\) +[0-9]+ ' "$TMP/out" ||
  fail "good file: no resource row: $(cat "$TMP/out")"

# No --arch and no GPU: falls back with a note on stderr and still compiles.
expect 0 "default arch" -- "$WL" compile "$GOOD"
grep -q "for sm_[0-9]" "$TMP/out" || fail "default arch: $(cat "$TMP/out")"

# A compile error: exit 5, compiler-style location, the line and a caret.
expect 5 "bad file" -- "$WL" compile "$BAD/syntax_error.cu" --arch sm_80
has "$TMP/err" "$BAD/syntax_error.cu:4:31: error: identifier \"undefined_factor\" is undefined" "bad file"
has "$TMP/err" "    if (i < n) out[i] = in[i] * undefined_factor;" "bad file source line"
grep -qE '^ {32}\^$' "$TMP/err" || fail "bad file: caret not under column 31: $(cat "$TMP/err")"
has "$TMP/err" "did not compile for sm_80 (1 error)" "bad file summary"

# An error inside a header points at the header.
expect 5 "header error" -- "$WL" compile "$BAD/header_error.cu" --arch sm_90
has "$TMP/err" "include/bad_header.cuh:4:18: error:" "header error"

# --max-errors keeps the first N and counts the rest.
expect 5 "max errors" -- "$WL" compile "$BAD/many_errors.cu" --arch sm_90 --max-errors 2
has "$TMP/err" "... and 4 more not shown (4 errors)" "max errors"
[ "$(grep -c ': error: ' "$TMP/err")" -eq 2 ] || fail "max errors: not exactly 2 shown"

# Unreadable input and a bad arch: exit 4 with one sentence.
expect 4 "missing file" -- "$WL" compile "$TMP/nope.cu" --arch sm_90
has "$TMP/err" "cannot read kernel source '$TMP/nope.cu': No such file or directory" "missing file"
# A shipped kernel by its name, from a folder that does not hold it (as occupancy and
# cuda.compile find it); a file of that name in the current folder comes first.
mkdir -p "$TMP/elsewhere/warps"
(cd "$TMP/elsewhere" && "$WL" compile warps/thread_ids.cu --arch sm_90 >"$TMP/out" 2>"$TMP/err") ||
  fail "a shipped kernel by name: exit $?: $(cat "$TMP/err")"
grep -q "thread_ids(unsigned int\*, unsigned long long)" "$TMP/out" "$TMP/err" ||
  fail "a shipped kernel by name: no thread_ids row: $(cat "$TMP/out" "$TMP/err")"
printf '__global__ void mine(int* p) { *p = 1; }\n' >"$TMP/elsewhere/warps/thread_ids.cu"
(cd "$TMP/elsewhere" && "$WL" compile warps/thread_ids.cu --arch sm_90 >"$TMP/out" 2>"$TMP/err") ||
  fail "the local file of a shipped name: exit $?: $(cat "$TMP/err")"
grep -q "mine(int\*)" "$TMP/out" "$TMP/err" || fail "the local file does not come first: $(cat "$TMP/out" "$TMP/err")"
expect 4 "bad arch" -- "$WL" compile "$GOOD" --arch sm_35
has "$TMP/err" "unsupported architecture 'sm_35'" "bad arch"

# --ptx: PTX alone on stdout (redirectable), table on stderr.
expect 0 "ptx" -- "$WL" compile "$GOOD" --arch sm_80 --ptx
has "$TMP/out" ".target sm_80" "ptx"
has "$TMP/out" ".entry _Z10thread_idsPjy" "ptx"
grep -q "regs" "$TMP/out" && fail "ptx: the table leaked into stdout"
has "$TMP/err" "thread_ids(unsigned int*, unsigned long long)" "ptx table on stderr"

# --cubin writes an ELF file.
expect 0 "cubin" -- "$WL" compile "$GOOD" --arch sm_90 --cubin "$TMP/k.cubin"
[ "$(head -c 4 "$TMP/k.cubin" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ] ||
  fail "cubin: $TMP/k.cubin does not start with the ELF magic"

# -D and -I reach the compiler.
mkdir -p "$TMP/inc"
printf '#define SCALE 3\n' >"$TMP/inc/scale.cuh"
printf '#include "scale.cuh"\n__global__ void k(int* p) { __shared__ int s[N]; s[threadIdx.x] = SCALE; __syncthreads(); p[threadIdx.x] = s[N - 1 - threadIdx.x]; }\n' >"$TMP/d.cu"
expect 0 "-D -I" -- "$WL" compile "$TMP/d.cu" --arch sm_90 -D N=64 -I "$TMP/inc"
grep -qE '^k\(int\*\) +[0-9]+ +256 B' "$TMP/out" || fail "-D -I: shared not 64 ints: $(cat "$TMP/out")"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "compile.sh: all passed"
