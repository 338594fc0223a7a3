#!/usr/bin/env bash
# json_output.sh: the machine-readable outputs: `compile --json` (per kernel: name,
# signature, regs, shared, local, spills, barriers, max_threads (the largest block: launch
# bounds and registers, as the table and k.max_threads say), launch_bounds, arch; null
# where a number is unknown, as for a virtual arch; diagnostics when it fails),
# `cache info --json` and `cache clear --json`, `list --json`; --json in any position. (`attrs --diff --json`:
# attrs_diff.sh.) Needs python3 to read the JSON (skips without).
# Usage: bash json_output.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
export NO_COLOR=1 WARPLAB_CACHE_DIR="$T/cache"
fail() { echo "FAIL: $*"; echo "--- stdout:"; head -c 800 "$T/out"; echo "--- stderr:"; cat "$T/err"; failures=$((failures + 1)); }
run() {
  local want=$1
  shift
  "$BIN" "$@" >"$T/out" 2>"$T/err"
  rc=$?
  [ "$rc" -eq "$want" ] || fail "warplab $*: exit $rc, want $want"
}
# check WHAT PYTHON: runs PYTHON with `j` the JSON on stdout.
check() {
  python3 -c "import json, sys
j = json.load(open(sys.argv[1]))
$2" "$T/out" 2>"$T/py" || { fail "$1: $(tail -n 3 "$T/py")"; }
}

cat >"$T/k.cu" <<'EOF'
extern "C" __global__ void plain(float* x) { x[threadIdx.x] = 1.0f; }
struct P { int a; };
extern "C" __global__ void opaque(int P::* f, P* p) { p->*f = 1; }
__global__ void __launch_bounds__(256) bounded(float* x, int n) {
  __shared__ float s[64];
  s[threadIdx.x % 64] = x[threadIdx.x];
  __syncthreads();
  if (threadIdx.x < n) x[threadIdx.x] = s[63 - threadIdx.x % 64];
}
template <int N> __global__ void scaled(float* x) { x[threadIdx.x] *= N; }
EOF
KERNEL_KEYS='["name", "signature", "mangled", "expression", "regs", "shared", "const", "local", "spill_store", "spill_load", "spills", "barriers", "max_threads", "launch_bounds", "arch"]'
for args in "compile --json $T/k.cu --arch sm_90 --kernel scaled<3>" "compile $T/k.cu --json --arch sm_90 --kernel scaled<3>" \
            "-q compile $T/k.cu --arch sm_90 --kernel scaled<3> --json" "--no-cache compile $T/k.cu --kernel scaled<3> --arch sm_90 --json"; do
  # shellcheck disable=SC2086
  run 0 $args
  check "$args" "
assert list(j) == ['file', 'arch', 'nvrtc', 'ok', 'ptx_only', 'from_cache', 'kernels', 'notes', 'diagnostics'], list(j)
assert j['ok'] is True and j['arch'] == 'sm_90' and j['ptx_only'] is False and j['file'].endswith('k.cu')
k = {x['name']: x for x in j['kernels']}
assert sorted(k) == ['bounded', 'opaque', 'plain', 'scaled<3>'], sorted(k)
for x in j['kernels']:
    assert list(x) == $KERNEL_KEYS, list(x)
    assert x['arch'] == 'sm_90' and isinstance(x['regs'], int) and x['regs'] > 0, x
    assert x['spills'] == x['spill_store'] + x['spill_load'], x
b = k['bounded']
assert b['signature'] == 'bounded(float*, int)' and b['shared'] == 256 and b['barriers'] == 1, b
assert b['max_threads'] == 256 and b['launch_bounds'] == 256 and b['expression'] is None and b['local'] == 0, b
assert k['plain']['signature'] == 'plain(float*)' and k['plain']['mangled'] == 'plain', k['plain']
assert k['plain']['max_threads'] == 1024 and k['plain']['launch_bounds'] is None, k['plain']
assert k['opaque']['signature'] is None and k['opaque']['mangled'] == 'opaque'
assert k['scaled<3>']['expression'] == 'scaled<3>' and k['scaled<3>']['signature'] == 'scaled<3>(float*)'
assert j['notes'] == [] and j['diagnostics'] == []
"
  [ ! -s "$T/err" ] || fail "$args: stderr not empty"
done
# A virtual arch: the kernels by name, every resource null, and the note saying why.
run 0 compile "$T/k.cu" --arch compute_90 --json
check "compute_90" "
assert j['ptx_only'] is True and j['ok'] is True
for x in j['kernels']:
    for f in ['regs', 'shared', 'const', 'local', 'spill_store', 'spill_load', 'spills', 'barriers', 'max_threads', 'launch_bounds']:
        assert x[f] is None, (x['name'], f, x[f])
assert any('virtual architecture' in n for n in j['notes']), j['notes']
"
# A failed compile: ok false, the diagnostics with file, line and column; exit 5.
printf '__global__ void k(float* x) { x[0] = undefined_thing; }\n' >"$T/bad.cu"
run 5 compile "$T/bad.cu" --arch sm_90 --json
check "bad.cu" "
assert j['ok'] is False and j['kernels'] == []
d = j['diagnostics'][0]
assert d['file'].endswith('bad.cu') and d['line'] == 1 and d['column'] > 1 and d['severity'] == 'error', d
assert 'undefined_thing' in d['message'], d
"
run 2 compile "$T/k.cu" --json --ptx

# cache info --json agrees with the text; clear --json counts what it removed.
run 0 cache info
entries=$(sed -n 's/^entries: //p' "$T/out")
for args in "cache info --json" "cache --json info" "cache --json" "-q cache info --json"; do
  # shellcheck disable=SC2086
  run 0 $args
  check "$args" "
assert list(j) == ['dir', 'entries', 'bytes', 'max_bytes'], list(j)
assert j['dir'] == '$T/cache' and j['entries'] == $entries and j['entries'] > 0, j
assert 0 < j['bytes'] <= j['max_bytes'], j
"
done
run 0 cache clear --json
check "cache clear --json" "assert j['removed'] == $entries and j['failed'] == 0 and j['dir'] == '$T/cache', j"

# list --json: every example with its folder and summary; null without a header line.
n=$(find "$ROOT/examples" -name '*.lua' -type f | wc -l)
for args in "list --json" "--no-color list --json" "list --json $ROOT/examples" "list $ROOT/examples --json"; do
  # shellcheck disable=SC2086
  run 0 $args
  check "$args" "
assert list(j) == ['dir', 'examples'] and len(j['examples']) == $n, (list(j), len(j['examples']))
for e in j['examples']:
    assert list(e) == ['path', 'folder', 'name', 'summary'] and e['path'].endswith('/' + e['name']), e
    assert isinstance(e['summary'], str) and e['summary'], e
tour = [e for e in j['examples'] if e['name'] == 'tour.lua'][0]
assert tour['folder'] == '', tour
"
done
mkdir -p "$T/ex/sub"
printf -- '-- a.lua: the summary.\n' >"$T/ex/sub/a.lua"
printf 'print(1)\n' >"$T/ex/b.lua"
run 0 list "$T/ex" --json
check "list DIR --json" "
assert j['dir'] == '$T/ex', j['dir']
assert j['examples'] == [
    {'path': '$T/ex/b.lua', 'folder': '', 'name': 'b.lua', 'summary': None},
    {'path': '$T/ex/sub/a.lua', 'folder': 'sub', 'name': 'a.lua', 'summary': 'the summary.'}], j['examples']
"
exit $((failures > 0))
