#!/usr/bin/env bash
# repl_worker_pty.sh: the REPL's worker at a terminal (a pty driven by python3), where the
# requests the pipe cannot make happen: Ctrl-C stops loops inside coroutines (wrap,
# resume, nested, each under pcall) and the state lives on; Tab on a path thousands of
# segments long answers without losing the worker; a worker that dies while completing
# says so above the line, with what was lost, and the next input runs in a new worker;
# the history file is replaced whole, never written through a symbolic link.
# Needs python3 and the synthetic profile tests/data/profiles/synthetic_profile.json (skips without).
set -u
W="$1"; SRC="$2"
FIX="$SRC/tests/data/profiles/synthetic_profile.json"
[ -f "$FIX" ] || { echo "skip: $FIX missing"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
STATE="$(mktemp -d)"; trap 'rm -rf "$STATE"' EXIT
mkdir -p "$STATE/warplab"
echo mine >"$STATE/victim"
ln -s "$STATE/victim" "$STATE/warplab/history"  # a history file planted as a link
WARPLAB_NO_DRIVER=1 XDG_STATE_HOME="$STATE" timeout 150 python3 - "$W" "$FIX" <<'PY' || exit 1
import os, pty, re, select, sys, time
exe, fix = sys.argv[1], sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.execv(exe, [exe, "--profile", fix, "repl"])
buf = b""

def expect(pattern, timeout=10.0, what=""):
    """Reads until `pattern` (a regex on the text since the last match) appears."""
    global buf
    end = time.time() + timeout
    while True:
        m = re.search(pattern.encode(), buf)
        if m:
            buf = buf[m.end():]
            return m
        left = end - time.time()
        if left <= 0:
            print("FAIL: waiting for %r (%s); got %r" % (pattern, what, buf[-2000:]))
            os.kill(pid, 9)
            sys.exit(1)
        r, _, _ = select.select([fd], [], [], left)
        if r:
            try:
                buf += os.read(fd, 65536)
            except OSError:
                pass

def send(b):
    while b:
        b = b[os.write(fd, b):]

def send_long(b, chunk=512):
    """A line longer than the terminal's line buffer (4095 bytes), in pieces: until the
    editor has put the terminal in raw mode, the line discipline keeps at most 4095 bytes
    of a line and drops the rest without a word. Each piece waits a moment, reading what
    the REPL echoes, so neither side's buffer fills."""
    global buf
    for i in range(0, len(b), chunk):
        send(b[i:i + chunk])
        end = time.time() + 0.05
        while time.time() < end:
            r, _, _ = select.select([fd], [], [], max(0.0, end - time.time()))
            if r:
                try:
                    buf += os.read(fd, 65536)
                except OSError:
                    pass

expect(r"> $", what="first prompt")
send(b"x = 40\r")
expect(r"> $")
loops = [
    b"while true do local co = coroutine.wrap(function() while true do end end) pcall(co) end",
    b"local co = coroutine.create(function() while true do end end) while true do coroutine.resume(co) end",
    b"coroutine.wrap(function() while true do pcall(coroutine.wrap(function() while true do pcall(function() while true do end end) end end)) end end)()",
]
for loop in loops:
    send(loop + b"\r")
    time.sleep(0.5)
    send(b"\x03")
    expect(r"interrupted", what="Ctrl-C stops " + loop.decode())
    expect(r"> $", what="the prompt after " + loop.decode())
send(b"x + 2\r")
expect(r"\r\n42\r\n> $", what="the state lived through the interrupts")

# A path of 3000 segments: each used to be pushed on the Lua stack at once.
send(b"a = setmetatable({b_one = 1}, {__index = function(t) return t end})\r")
expect(r"> $")
send_long(b"a." * 3000 + b"b_")
expect(r"b_", timeout=45.0, what="the whole line echoed")
send(b"\t")
expect(r"one", timeout=45.0, what="the long path completes")  # slow under a sanitizer and load
send(b"\r")
expect(r"\r\n1\r\n> $", what="its value")
send(b"x + 2\r")
expect(r"\r\n42\r\n> $", what="the worker is the same after the long path")

# A worker that dies while completing says so, with what was lost.
send(b"boom = setmetatable({}, {__index = function() os.exit(3) end})\r")
expect(r"> $")
send(b"boom.k.\t")
expect(r"worker died \(exit 3\) while completing; state lost, new worker started\. Lost: every global, array, module and kernel of the session \(6 successful inputs\); :replay runs them again",
       what="the death named above the line")
send(b"\x15x\r")  # Ctrl-U clears the line
expect(r"\r\nnil\r\n> $", what="the next input runs in the new worker")
send(b":replay\r")
expect(r"replayed 7 inputs", what=":replay after a death while completing")
time.sleep(0.3)
send(b"\x04")
end = time.time() + 5
while True:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
    if time.time() > end:
        print("FAIL: still running 5 s after Ctrl-D")
        os.kill(pid, 9)
        sys.exit(1)
    time.sleep(0.05)
PY
grep -qx mine "$STATE/victim" || { echo "FAIL: the history was written through a symbolic link"; exit 1; }
echo ok
