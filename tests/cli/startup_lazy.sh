#!/usr/bin/env bash
# startup_lazy.sh: what start-up pays for. Through the stand-in driver (build/fake_driver,
# which logs its cuInit and context with the process id): `--version` prints the driver's
# version without cuInit; a script that never touches the GPU starts no driver; one that
# asks for the device starts it (no context); one that makes an array makes the context;
# watch itself never starts the driver (only its runs and its one question, in children);
# under compute-sanitizer (WARPLAB_SANITIZE set) a run starts it at once.
# Without a driver the offline note comes first, as always. WARPLAB_STARTUP_TRACE=1 names
# each stage on stderr.
# Usage: bash startup_lazy.sh <warplab binary> <source root>
set -u
W="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; SRC="$2"
T="$(mktemp -d)"
WPID=""
cleanup() { [ -n "$WPID" ] && kill -KILL "$WPID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
export WARPLAB_CACHE_DIR="$T/cache" NO_COLOR=1
unset WARPLAB_PROFILE
cd "$T" || exit 1
echo 'print("no gpu here")' >plain.lua
echo 'print(cuda.device().name)' >device.lua
echo 'local a = cuda.array("f32", 4); a:fill(1); print(a[1])' >array.lua

# Without a driver: the note first, the version line says why, as before.
out=$(WARPLAB_NO_DRIVER=1 "$W" --version)
grep -qx 'CUDA driver: none (no NVIDIA driver: WARPLAB_NO_DRIVER is set)' <<<"$out" || fail "--version: $out"
WARPLAB_NO_DRIVER=1 "$W" run plain.lua >out 2>err || fail "run plain.lua offline: exit $?"
[ "$(cat err)" = "warplab: no GPU (WARPLAB_NO_DRIVER is set): using profile h100" ] || fail "offline note: $(cat err)"

FAKE="$(dirname "$W")/fake_driver"
if [ ! -f "$FAKE/libcuda.so.1" ]; then
  echo "skipped: the stand-in driver's part (no $FAKE/libcuda.so.1)"
  exit $((failures > 0))
fi
export LD_LIBRARY_PATH="$FAKE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" WARPLAB_FAKE_LOG="$T/log"
unset WARPLAB_NO_DRIVER
# ran COMMAND...: runs it with an empty log; "inits contexts" afterwards, e.g. "0 0".
ran() {
  : >"$T/log"
  "$@" >out 2>err || fail "$*: exit $?: $(tail -n 1 err)"
  echo "$(grep -c '^cuInit' "$T/log") $(grep -c '^context' "$T/log")"
}
[ "$(ran "$W" --version)" = "0 0" ] || fail "--version started the driver: $(cat "$T/log")"
grep -qx 'CUDA driver 13.0' out || grep -q '^CUDA driver [0-9]' out || fail "--version: $(cat out)"
[ "$(ran "$W" run plain.lua)" = "0 0" ] || fail "a script without the GPU started the driver"
[ "$(cat out)" = "no gpu here" ] && [ ! -s err ] || fail "plain.lua: $(cat out) / $(cat err)"
# Under compute-sanitizer (run --sanitize's script process) the driver starts at once: the
# tool refuses a run that ends before its first CUDA call.
[ "$(ran env WARPLAB_SANITIZE=memcheck "$W" run plain.lua)" = "1 0" ] ||
  fail "under the sanitizer, a script without the GPU should start the driver: $(cat "$T/log")"
[ "$(ran "$W" run device.lua)" = "1 0" ] || fail "cuda.device(): want cuInit and no context: $(cat "$T/log")"
grep -q 'fake driver' out || fail "device.lua: $(cat out)"
[ "$(ran "$W" run array.lua)" = "1 1" ] || fail "cuda.array: want cuInit and a context: $(cat "$T/log")"
# An error before the GPU is touched starts nothing either.
echo 'error("early")' >early.lua
: >"$T/log"
"$W" run early.lua >out 2>err && fail "early.lua: exit 0"
[ ! -s "$T/log" ] || fail "an error in a script without the GPU started the driver"
grep -q 'early.lua:1: early' err || fail "early.lua: $(cat err)"

# The trace names the stages, and --version's has no cuInit.
WARPLAB_STARTUP_TRACE=1 "$W" --version >/dev/null 2>trace
grep -q 'dlopen libcuda.so.1' trace || fail "the trace has no dlopen: $(cat trace)"
grep -q 'cuInit' trace && fail "--version's trace has a cuInit"
WARPLAB_STARTUP_TRACE=1 "$W" run array.lua >/dev/null 2>trace
for stage in 'CPU time before main' 'Lua state opened' 'cuInit' 'primary context' 'command done'; do
  grep -q "$stage" trace || fail "the trace of array.lua has no '$stage'"
done

# watch never starts the driver in its own process.
: >"$T/log"
"$W" watch array.lua >out 2>err &
WPID=$!
for _ in $(seq 200); do grep -q 'run 1 ok' err && break; sleep 0.05; done
touch array.lua
for _ in $(seq 200); do grep -q 'run 2 ok' err && break; sleep 0.05; done
grep -q 'run 2 ok' err || fail "watch: no run 2: $(cat err)"
kill -INT $WPID; wait $WPID; WPID=""
grep -q " $!\$" "$T/log" && fail "watch's own process started the driver"
[ "$(grep -c '^context' "$T/log")" -ge 2 ] || fail "watch's runs made no contexts: $(cat "$T/log")"
exit $((failures > 0))
