#!/usr/bin/env bash
# compile_diff.sh: `compile --diff` compares two variants' SASS kernel by kernel, and a
# renumbering (registers, branch targets, the NOP padding) is no change. A stand-in
# cuobjdump (first on PATH) prints the same code with other register numbers on each call,
# and one instruction more when the CUBIN holds the symbol pad_marker (-D PAD defines it):
# the renumbered variant shows no changed line (exit 0), -D PAD shows that instruction
# alone (exit 1), with the options before or after the file and --diff; --diff-lines cuts
# it short and says how to see all. Where the CUDA toolkit's nvdisasm is installed (PATH or
# /usr/local/cuda/bin), the same on the real disassembler.
# Usage: bash compile_diff.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1 WARPLAB_CACHE_DIR="$T/cache" XDG_STATE_HOME="$T/state"
fail() { echo "FAIL: $*"; echo "--- stdout:"; cat "$T/out"; echo "--- stderr:"; cat "$T/err"; failures=$((failures + 1)); }
cd "$T" || exit 1
REAL_PATH=$PATH
mkdir bin
cat >bin/cuobjdump <<EOF
#!/bin/sh
# stand-in for cuobjdump -sass FILE: R<n> where n grows on each call; FMUL when pad_marker
[ "\$1" = "-sass" ] && [ -f "\$2" ] || exit 2
n=\$(cat "$T/calls" 2>/dev/null || echo 0)
echo \$((n + 1)) >"$T/calls"
r=\$((n * 10 + 1))
pad=0
strings "\$2" | grep -q pad_marker && pad=1
printf '\n\tcode for sm_90\n'
for name in \$(strings "\$2" | grep -E '^_Z[0-9A-Za-z_]+\$' | sort -u); do
  printf '\t\tFunction : %s\n' "\$name"
  off=0
  inst() { printf '        /*%04x*/                   %s ;   /* 0x000fe20000000800 */\n' \$off "\$1"; printf '                                                    /* 0x000fe20000000800 */\n'; off=\$((off + 16)); }
  inst "LDC R\$r, c[0x0][0x28]"
  [ \$pad = 1 ] && inst "FMUL R\$r, R\$r, 1.5"
  inst "@!P0 BRA 0x\$(printf %x \$((off + 32)))"
  inst "IADD3 R\$((r + 1)), R\$r, 0x1, RZ"
  inst "EXIT"
  inst "BRA 0x\$(printf %x \$off)"
  for i in 1 2 3 4 5; do [ \$i -le \$((pad ? 2 : 4)) ] && inst "NOP"; done
  printf '\t\t..........\n'
done
EOF
chmod +x bin/cuobjdump
cat >k.cu <<'EOF'
#ifdef PAD
__device__ int pad_marker;
#endif
__global__ void k(int* p) { *p = 1; }
EOF
export PATH=$T/bin:$PATH

# The listing: per kernel, instructions without encodings, targets as labels, no padding.
"$BIN" compile k.cu --sass >out 2>err || fail "--sass: exit $?"
grep -qx 'k(int\*): 5 instructions for sm_90' out || fail "the kernel's header line"
grep -q '^  0000  *LDC R1, c\[0x0\]\[0x28\]$' out || fail "an instruction with its offset, no encoding"
grep -q '/\* 0x' out && fail "the clean listing holds an encoding"
grep -q 'NOP' out && fail "the NOP padding is left out"
grep -qx '.L1:' out && grep -q '@!P0 BRA .L1$' out && grep -q ' BRA .L2$' out || fail "branch targets as labels"
"$BIN" compile --sass=raw k.cu >out 2>err || fail "--sass=raw: exit $?"
grep -q 'Function : _Z1kPi' out && grep -q '/\* 0x' out || fail "--sass=raw is the tool's text"

# Renumbered registers, other branch offsets, other padding: the same SASS, exit 0.
"$BIN" compile k.cu --diff -D OTHER >out 2>err
rc=$?
[ $rc -eq 0 ] || fail "a renumbering: exit $rc, want 0"
grep -qx 'k(int\*): the same SASS but for register numbers and labels' out || fail "said the same"
grep -qE '^[-+] ' out && fail "a renumbering showed changed lines"
grep -qx -- '--- k.cu (sm_90)' out && grep -qx -- '+++ k.cu -D OTHER (sm_90)' out || fail "the two labels"

# -D PAD: the one instruction it adds, whichever position the options take.
for args in "k.cu --diff -D PAD" "--diff -D PAD k.cu" "-D X k.cu --diff -D PAD" "--sass k.cu --diff -D PAD" \
  "k.cu --diff=k.cu -D PAD" "k.cu --diff -DPAD --diff-lines 0"; do
  # shellcheck disable=SC2086
  "$BIN" compile $args >out 2>err
  rc=$?
  [ $rc -eq 1 ] || fail "compile $args: exit $rc, want 1 (they differ)"
  grep -qx 'k(int\*): SASS changed, 5→6 instructions' out || fail "compile $args: the kernel's line"
  [ "$(grep -c '^+ ' out)" = 1 ] && grep -qx '+ FMUL R[0-9]*, R[0-9]*, 1.5' out || fail "compile $args: one line added"
  grep -q '^- ' out && fail "compile $args: a removed line (the renumbering is no change)"
done
# Options before --diff go to both variants: -D PAD on both is no change.
"$BIN" compile -D PAD k.cu --diff -D OTHER >out 2>err
[ $? -eq 0 ] || fail "-D PAD before --diff is both variants'"
# The second file.
sed 's/\*p = 1/*p = 2/' k.cu >b.cu
printf '#define PAD\n' | cat - k.cu >padded.cu
"$BIN" compile k.cu --diff padded.cu >out 2>err
[ $? -eq 1 ] && grep -qx -- '+++ padded.cu (sm_90)' out && grep -q '^+ FMUL' out || fail "--diff FILE"
# --diff-lines N cuts each diff at N lines and says how to see every one.
"$BIN" compile k.cu --diff -D PAD --diff-lines 1 >out 2>err
grep -qx '  ... and 1 more changed lines (--diff-lines 0 shows them all)' out || fail "--diff-lines 1"
# --diff --ptx compares the PTX.
"$BIN" compile k.cu --diff b.cu --ptx >out 2>err
[ $? -eq 1 ] && grep -qx 'k(int\*): PTX changed' out && grep -q '^+ .*2;$' out || fail "--diff --ptx"

# The real disassembler, where it is installed.
if PATH=$REAL_PATH command -v nvdisasm >/dev/null || [ -x /usr/local/cuda/bin/nvdisasm ]; then
  export PATH=$REAL_PATH
  cat >scan.cu <<'EOF'
__global__ void scan(const float* in, float* out, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.f;
  __syncthreads();
  for (int d = 1; d < blockDim.x; d *= 2) {
    float v = threadIdx.x >= d ? s[threadIdx.x - d] : 0.f;
    __syncthreads();
#ifdef PAD
    v *= 1.5f;
#endif
    s[threadIdx.x] += v;
    __syncthreads();
  }
  if (i < n) out[i] = s[threadIdx.x];
}
EOF
  "$BIN" compile scan.cu --arch sm_90 --sass >out 2>err || fail "real --sass: exit $?"
  grep -q '^scan(const float\*, float\*, int): [0-9]* instructions for sm_90$' out || fail "real: the header"
  grep -q 'EXIT$' out && grep -q 'BAR.SYNC' out || fail "real: the instructions"
  grep -q '/\* 0x' out && fail "real: an encoding in the clean listing"
  "$BIN" compile scan.cu --arch sm_90 --diff -D UNUSED >out 2>err
  [ $? -eq 0 ] && grep -q 'the same SASS' out || fail "real: a define that changes nothing"
  "$BIN" compile scan.cu --arch sm_90 --diff -D PAD >out 2>err
  # The multiply by 1.5 (fused into the add: FFMA): one instruction changed, nothing else.
  [ $? -eq 1 ] && grep -q '^+ .*, 1.5, ' out || fail "real: -D PAD adds the multiply"
  [ "$(grep -c '^[-+] ' out)" -le 4 ] || fail "real: -D PAD shows more than what it changed"
else
  echo "note: no nvdisasm here: the real disassembler's cases are not run"
fi
exit $((failures > 0))
