#!/usr/bin/env bash
# compile_sass.sh: `compile --sass` and k.sass find cuobjdump (or nvdisasm) as `watch --diff`
# does, on PATH first: a stand-in cuobjdump here, which prints a dump naming the kernels of
# the CUBIN it is given, so the test needs no toolkit binaries. --sass prints each kernel's
# clean listing (no encodings), --sass=raw the tool's text. A cuobjdump that fails as the
# real one does without nvdisasm: its own reason, where nvdisasm comes from, exit 8 (and
# watch --diff says it once and shows PTX diffs). Without either tool, the same note as
# watch's, and exit 8; a virtual architecture has no SASS (exit 4); --sass excludes --ptx
# and --json (exit 2).
# Usage: bash compile_sass.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1 WARPLAB_CACHE_DIR="$T/cache" XDG_STATE_HOME="$T/state"
fail() { echo "FAIL: $*"; echo "--- stdout:"; cat "$T/out"; echo "--- stderr:"; cat "$T/err"; failures=$((failures + 1)); }
NOTE="neither cuobjdump nor nvdisasm found (PATH, CUDA_HOME, /usr/local/cuda)"
cd "$T" || exit 1
mkdir bin empty
cat >bin/cuobjdump <<'EOF'
#!/bin/sh
# stand-in for cuobjdump -sass FILE: one section per mangled name in the CUBIN
[ "$1" = "-sass" ] && [ -f "$2" ] || exit 2
echo "	code for sm_90"
for n in $(strings "$2" | grep -E '^_Z[0-9A-Za-z_]+$' | sort -u); do
  printf '\t\tFunction : %s\n        /*0000*/  EXIT ;  /* 0x000000000000794d */\n' "$n"
done
EOF
chmod +x bin/cuobjdump
printf '__global__ void a(int* p) { *p = 1; }\n__global__ void b(float* q) { *q = 2; }\n' >k.cu
TOOLS=$T/bin:$PATH
# NOTOOLS: a PATH without either tool (the commands the stand-in uses are not needed).
NOTOOLS=$T/empty:$(dirname "$(command -v env)")

have_toolkit_tool() { [ -x /usr/local/cuda/bin/cuobjdump ] || [ -x /usr/local/cuda/bin/nvdisasm ]; }

# With the tool: the SASS on stdout, each kernel under its name without encodings; the
# table on stderr.
PATH=$TOOLS "$BIN" compile k.cu --sass >"$T/out" 2>"$T/err" || fail "compile --sass: exit $?"
grep -qx "a(int\*): 1 instruction for sm_90" "$T/out" && grep -qx "b(float\*): 1 instruction for sm_90" "$T/out" ||
  fail "both kernels' SASS on stdout, under their names"
grep -qx "  0000  EXIT" "$T/out" || fail "the instruction at its offset"
grep -q "/\* 0x" "$T/out" && fail "the clean listing holds an encoding"
grep -q "^a(int\*) " "$T/err" || fail "the resource table on stderr"
grep -q "^a(int\*) " "$T/out" && fail "stdout holds only the SASS"
# --sass=raw: the tool's own text, before or after the file.
for args in "k.cu --sass=raw" "--sass=raw k.cu"; do
  # shellcheck disable=SC2086
  PATH=$TOOLS "$BIN" compile $args >"$T/out" 2>"$T/err" || fail "compile $args: exit $?"
  grep -q "Function : _Z1aPi" "$T/out" && grep -q "/\* 0x" "$T/out" || fail "compile $args: the tool's text"
done
# k.sass: this kernel's part only.
cat >s.lua <<'EOF'
local m = assert(cuda.compile("k.cu"))
local s = m.a.sass
assert(s:find("Function : _Z1aPi", 1, true) and not s:find("_Z1bPf", 1, true), s)
print("a ok")
print(select(2, pcall(function() return m.b.sass end)))
EOF
PATH=$TOOLS "$BIN" -q run s.lua >"$T/out" 2>"$T/err" || fail "k.sass: exit $?"
grep -q "a ok" "$T/out" && grep -q "Function : _Z1bPf" "$T/out" || fail "k.sass per kernel"

# A cuobjdump without nvdisasm fails as the real one does: its reason on stderr, exit 1.
mkdir only
cat >only/cuobjdump <<'EOF'
#!/bin/sh
printf '\n\tcode for sm_90\n'
echo "cuobjdump fatal   : Could not find executable file 'nvdisasm'; you can try adding path to environment variables PATH or NVDISASM_PATH" >&2
exit 1
EOF
chmod +x only/cuobjdump
ONLY=$T/only:$(dirname "$(command -v env)")
if [ -x /usr/local/cuda/bin/nvdisasm ]; then
  echo "note: /usr/local/cuda/bin has nvdisasm: the missing-nvdisasm cases are not run"
else
  PATH=$ONLY CUDA_HOME=$T/empty CUDA_PATH=$T/empty "$BIN" compile k.cu --sass >"$T/out" 2>"$T/err"
  rc=$?
  [ "$rc" -eq 8 ] || fail "cuobjdump without nvdisasm: exit $rc, want 8"
  grep -qF "warplab: --sass: $T/only/cuobjdump failed (exit 1): cuobjdump fatal : Could not find executable file 'nvdisasm'; you can try adding path to environment variables PATH or NVDISASM_PATH; cuobjdump needs nvdisasm for SASS and none was found (PATH, CUDA_HOME, /usr/local/cuda): nvdisasm comes with the CUDA toolkit (NVIDIA's package cuda-nvdisasm-" "$T/err" ||
    fail "cuobjdump without nvdisasm: its reason and the package"
  [ "$(grep -c 'cuobjdump' "$T/err")" = 1 ] || fail "one sentence"
  [ ! -s "$T/out" ] || fail "cuobjdump without nvdisasm: nothing on stdout"
  PATH=$ONLY CUDA_HOME=$T/empty CUDA_PATH=$T/empty "$BIN" compile k.cu --diff -D X >"$T/out" 2>"$T/err"
  [ $? -eq 8 ] && grep -qF "Could not find executable file 'nvdisasm'" "$T/err" || fail "--diff: the same"
  PATH=$ONLY CUDA_HOME=$T/empty CUDA_PATH=$T/empty "$BIN" -q run s.lua >"$T/out" 2>"$T/err"
  grep -qF "k.sass: $T/only/cuobjdump failed (exit 1): cuobjdump fatal : Could not find" "$T/err" || fail "k.sass: the same"
  # watch --diff: once, then PTX diffs.
  printf 'assert(cuda.compile("k.cu")) print("run")\n' >w.lua
  PATH=$ONLY CUDA_HOME=$T/empty CUDA_PATH=$T/empty timeout -s INT 8 "$BIN" --profile h100 watch w.lua --diff >"$T/out" 2>"$T/err"
  grep -qF "Could not find executable file 'nvdisasm'" "$T/err" && grep -qF ": PTX diffs only" "$T/err" ||
    fail "watch --diff with cuobjdump without nvdisasm: the reason, once"
fi

# Without either tool.
if have_toolkit_tool; then
  echo "note: /usr/local/cuda/bin has a disassembler: the missing-tool cases are not run"
else
  PATH=$NOTOOLS CUDA_HOME=$T/empty CUDA_PATH=$T/empty "$BIN" compile k.cu --sass >"$T/out" 2>"$T/err"
  rc=$?
  [ "$rc" -eq 8 ] || fail "compile --sass without a tool: exit $rc, want 8"
  grep -qF "warplab: --sass: $NOTE: nvdisasm comes with the CUDA toolkit (NVIDIA's package cuda-nvdisasm-" "$T/err" ||
    fail "compile --sass: the note and where nvdisasm comes from"
  grep -qF "; --ptx prints the PTX without it" "$T/err" || fail "compile --sass without a tool: what works without it"
  [ ! -s "$T/out" ] || fail "compile --sass without a tool: nothing on stdout"
  PATH=$NOTOOLS CUDA_HOME=$T/empty CUDA_PATH=$T/empty "$BIN" compile k.cu --diff -D X >"$T/out" 2>"$T/err"
  rc=$?
  [ "$rc" -eq 8 ] && grep -qF "warplab: --diff: $NOTE: nvdisasm comes with" "$T/err" &&
    grep -qF "; --diff --ptx compares the PTX without it" "$T/err" ||
    fail "compile --diff without a tool: exit $rc, $(cat "$T/err")"
  PATH=$NOTOOLS CUDA_HOME=$T/empty "$BIN" -q run s.lua >"$T/out" 2>"$T/err"
  grep -qF "k.sass: $NOTE" "$T/err" || fail "k.sass without a tool: the note"
  # watch --diff says the same (the one finder): its first report.
  printf 'print("run")\n' >w.lua
  PATH=$NOTOOLS CUDA_HOME=$T/empty timeout -s INT 6 "$BIN" watch w.lua --diff >"$T/out" 2>"$T/err"
  grep -qF "$NOTE: PTX diffs only" "$T/err" || fail "watch --diff without a tool: the same note"
fi

# A virtual architecture, and the options it excludes.
PATH=$TOOLS "$BIN" compile k.cu --sass --arch compute_90 >"$T/out" 2>"$T/err"
[ $? -eq 4 ] || fail "--sass --arch compute_90: want exit 4"
grep -qF -- "--sass needs a real architecture (sm_XX): compute_90 gives PTX only" "$T/err" || fail "the sentence"
for other in --ptx --json; do
  PATH=$TOOLS "$BIN" compile k.cu --sass "$other" >"$T/out" 2>"$T/err"
  [ $? -eq 2 ] || fail "--sass $other: want exit 2"
done
exit $((failures > 0))
