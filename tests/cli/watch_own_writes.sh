#!/usr/bin/env bash
# watch_own_writes.sh: a file the run writes itself is not a save. A script that writes the
# kernel it then compiles (the same bytes every run, or new ones: a stamp) runs once, not
# again and again (360 runs in 5 s) nor cancelled by its own write ("run cancelled: a file
# was saved", every run); so does one that appends to itself, one that writes through
# warplab.write_file (report.save's writer), and one that writes a temporary file and
# renames it over the kernel. A save by the person still starts a run: of the script, of
# the kernel the script writes (after the run), and of the script while a run that
# writes is still going (that run is cancelled).
# Needs the synthetic profile tests/data/profiles/synthetic_profile.json (skips without it).
set -u
W="$1"; SRC="$2"
FIX="$SRC/tests/data/profiles/synthetic_profile.json"
[ -f "$FIX" ] || { echo "skip: $FIX missing"; exit 77; }
export WARPLAB_NO_DRIVER=1 NO_COLOR=1
T="$(mktemp -d)"
WPID=""
cleanup() { [ -n "$WPID" ] && kill -KILL "$WPID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat -v "$T/out"; echo "--- stderr"; cat "$T/err"; exit 1; }
wait_for() {  # wait_for FILE REGEX: poll for up to 10 s
  for _ in $(seq 200); do grep -Eq "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  fail "no '$2' in $(basename "$1") after 10 s"
}
runs() { grep -Ec '\] run [0-9]+( ok|:|$)' "$T/err"; }   # run headers
start() {  # start SCRIPT: watch it; wait for its first run to end well
  : >"$T/out"; : >"$T/err"
  "$W" --profile "$FIX" watch "$1" >"$T/out" 2>"$T/err" &
  WPID=$!
  wait_for "$T/err" '\] run 1 ok'
}
stop() {
  kill -INT "$WPID"
  wait "$WPID"
  WPID=""
}
# settles N WHAT: no run after run N within 3 s of its end, and no run cancelled.
settles() {
  wait_for "$T/err" "\\] run $1 ok"
  sleep 3
  grep -q "\\] run $(($1 + 1))" "$T/err" && fail "$2: ran again on its own write ($(runs) run lines)"
  grep -q 'run cancelled' "$T/err" && fail "$2: a run was cancelled by its own write"
  return 0
}
# again: the person's save of the script; the kernel it writes is watched from run 1 on.
again() { echo "-- saved $1" >>"$2"; }

cd "$T"
KERNEL='__global__ void gen(int* p) { p[threadIdx.x] = 1; }'
cat >same.lua <<LUA
local f = assert(io.open("gen.cu", "w"))
f:write("$KERNEL\n")
f:close()
assert(cuda.compile("gen.cu"))
print("compiled")
LUA
start same.lua
wait_for "$T/err" 'watching 2 files'   # the script and gen.cu, which it read
again 1 same.lua                         # the person's save of the script: a run
wait_for "$T/err" '\] run 2: re-run [0-9]+ ms after save \(same\.lua\)'
settles 2 "a script writing the same kernel every run"
echo '// edited by hand' >>gen.cu        # the person's save of the kernel: a run too
wait_for "$T/err" '\] run 3: re-run [0-9]+ ms after save \(gen\.cu\)'
settles 3 "a script writing the same kernel, after a save of the kernel"
stop

cat >stamp.lua <<LUA
local f = assert(io.open("gen.cu", "w"))
f:write("// " .. os.time() .. " " .. os.clock() .. "\n$KERNEL\n")
f:close()
assert(cuda.compile("gen.cu"))
LUA
start stamp.lua
again 1 stamp.lua
settles 2 "a script writing a new kernel every run"
stop

cat >self.lua <<'LUA'
local f = assert(io.open("self.lua", "a"))
f:write("-- " .. "appended\n")
f:close()
LUA
start self.lua
settles 1 "a script appending to itself"
[ "$(grep -c '^-- appended$' self.lua)" -eq 1 ] || fail "self.lua ran $(grep -c '^-- appended$' self.lua) times"
stop

cat >hook.lua <<LUA
assert(warplab.write_file("gen.cu", "// " .. os.clock() .. "\n$KERNEL\n"))
assert(cuda.compile("gen.cu"))
LUA
start hook.lua
again 1 hook.lua
settles 2 "a script writing through warplab.write_file"
stop

cat >rename.lua <<LUA
local f = assert(io.open("gen.tmp", "w"))
f:write("// " .. os.clock() .. "\n$KERNEL\n")
f:close()
assert(os.rename("gen.tmp", "gen.cu"))
assert(cuda.compile("gen.cu"))
LUA
start rename.lua
again 1 rename.lua
settles 2 "a script renaming a temporary file over its kernel"
stop

# The person's save while a run that writes is still going: that run is cancelled.
cat >slow.lua <<LUA
local f = assert(io.open("gen.cu", "w"))
f:write("$KERNEL\n")
f:close()
assert(cuda.compile("gen.cu"))
if io.open("go.slow") then
  local t = os.time()
  while os.time() - t < 4 do end
end
LUA
start slow.lua
touch go.slow
echo '-- 1' >>slow.lua                    # run 2: slow
wait_for "$T/err" '\] run 2: re-run'
sleep 0.5
echo '-- 2' >>slow.lua                    # run 3 cancels run 2
wait_for "$T/err" 'run cancelled: a file was saved'
wait_for "$T/err" '\] run 3: re-run [0-9]+ ms after save \(slow\.lua\)'
stop
echo ok
