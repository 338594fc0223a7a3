#!/usr/bin/env bash
# compile_targets.sh: `warplab compile` architectures and template instances, no GPU:
# sm_90a among the valid values and compiled; compute_XX gives PTX only and says that no
# resources exist for it; a bad --arch lists the valid ones (exit 4); --kernel 'NAME<...>'
# instantiates (repeatable, any position); a file holding only templates says
# "0 kernels: instantiate with --kernel"; a bad name expression is a compile error (5).
# Usage: bash compile_targets.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1 WARPLAB_CACHE_DIR="$T/cache"
fail() { echo "FAIL: $*"; echo "--- stdout:"; head -c 800 "$T/out"; echo "--- stderr:"; cat "$T/err"; failures=$((failures + 1)); }
run() {
  local want=$1
  shift
  "$BIN" "$@" >"$T/out" 2>"$T/err"
  rc=$?
  [ "$rc" -eq "$want" ] || fail "warplab $*: exit $rc, want $want"
}
has() { grep -qF -- "$2" "$T/$1" || fail "$3: $1 lacks '$2'"; }
GOOD=$ROOT/kernels_src/warps/thread_ids.cu

# A bad value: exit 4, and the sentence lists the valid ones, sm_90a and compute_XX too.
for bad in sm_35 sm_75a sm_90x compute_35 90 ""; do
  run 4 compile "$GOOD" --arch "$bad"
  has err "sm_75, sm_80" "--arch '$bad'"
  has err "sm_90, sm_90a" "--arch '$bad'"
  has err "(or compute_XX for PTX only)" "--arch '$bad'"
  [ "$(wc -l <"$T/err")" -eq 1 ] || fail "--arch '$bad': one line"
done
has err "warplab: --arch needs an architecture, e.g. sm_90 (valid: sm_75" "--arch ''"
run 4 compile "$GOOD" --arch sm_35
has err "warplab: unsupported architecture 'sm_35': NVRTC " "sm_35"

# sm_90a: listed by completion and compiled, with resources.
"$BIN" completion bash | grep -q ' sm_90a ' || fail "sm_90a is not among the --arch values"
run 0 compile "$GOOD" --arch sm_90a
has out "1 kernel for sm_90a (NVRTC " "sm_90a"
grep -qE '^thread_ids\(unsigned int\*, unsigned long long\) +[0-9]+ ' "$T/out" || fail "sm_90a: no resource row"

# compute_90: PTX only. The kernels by name, why there are no resources, --ptx works,
# a cubin cannot be asked for.
run 0 compile "$GOOD" --arch compute_90
has out "1 kernel for compute_90 (NVRTC " "compute_90"
has out ", PTX only)" "compute_90"
has out "thread_ids(unsigned int*, unsigned long long)" "compute_90"
has out "note: compute_90 is a virtual architecture: PTX only, no cubin, so no resources" "compute_90"
grep -q "regs" "$T/out" && fail "compute_90: a resource table"
run 0 compile "$GOOD" --arch compute_90 --ptx
has out ".target sm_90" "compute_90 --ptx"
has out ".entry _Z10thread_idsPjy" "compute_90 --ptx"
run 4 compile "$GOOD" --arch compute_90 --cubin "$T/k.cubin"
[ "$(cat "$T/err")" = "warplab: --cubin needs a real architecture (sm_XX): compute_90 gives PTX only" ] ||
  fail "compute_90 --cubin message"
[ -e "$T/k.cubin" ] && fail "compute_90 --cubin wrote a file"

# Templates: none instantiated, then each --kernel in any position.
cat >"$T/t.cu" <<'EOF'
template <int N> __global__ void scale(float* x) { x[threadIdx.x] *= N; }
template <typename T>
__global__ void __launch_bounds__(128) fill(T* x, T v) { x[threadIdx.x] = v; }
EOF
run 0 compile "$T/t.cu" --arch sm_90
has out "$T/t.cu: 0 kernels for sm_90 " "templates only"
has out "0 kernels: instantiate with --kernel, e.g. --kernel 'scale<...>' (templates: scale, fill)" "templates only"
run 0 -q compile "$T/t.cu" --arch sm_90
has out "0 kernels: instantiate with --kernel" "templates only, -q"
for args in "compile --kernel scale<2> $T/t.cu --kernel fill<int> --arch sm_90" \
            "compile $T/t.cu --kernel scale<2> --kernel fill<int> --arch sm_90" \
            "--no-cache compile $T/t.cu --arch sm_90 --kernel fill<int> --kernel scale<2>"; do
  # shellcheck disable=SC2086
  run 0 $args
  has out "2 kernels for sm_90 " "$args"
  grep -qE '^scale<2>\(float\*\) +[0-9]+ ' "$T/out" || fail "$args: no scale<2> row"
  grep -qE '^fill<int>\(int\*, int\) +[0-9]+ ' "$T/out" || fail "$args: no fill<int> row"
done
run 0 compile "$T/t.cu" --arch compute_90 --kernel 'scale<7>'
has out "scale<7>(float*)" "compute_90 --kernel"
# A file with kernels and templates: no hint; an expression NVRTC cannot resolve: exit 5.
printf '__global__ void k(int* p) { *p = 1; }\ntemplate <int N> __global__ void t(int* p) { *p = N; }\n' >"$T/m.cu"
run 0 compile "$T/m.cu" --arch sm_90
grep -q "instantiate with" "$T/out" && fail "a file with a kernel got the template hint"
run 5 compile "$T/t.cu" --arch sm_90 --kernel 'nope<1>'
has err 'error: name expression "nope<1>"' "bad --kernel"
has err "did not compile for sm_90" "bad --kernel"
exit $((failures > 0))
