#!/usr/bin/env bash
# repl_save_pty.sh: a newcomer's REPL session at a terminal (a pty driven by python3), saved
# with :save, runs under `warplab run` and prints the lines the session printed. The
# session uses the predefined `dev`, compiles a kernel over three typed lines (the
# continuation prompt), shows `k:occupancy(256)` (a table the REPL printed nested), a
# multi-line expression, a local that lasts for its input only, an input that failed (not
# saved) and a REPL command (left out). The saved script used to fail at its first use of
# `dev`, split `print(m` from its `)` and drop the prints of expressions.
# Needs python3 and the synthetic profile tests/data/profiles/synthetic_profile.json (skips without).
set -u
W="$1"; SRC="$2"
FIX="$SRC/tests/data/profiles/synthetic_profile.json"
[ -f "$FIX" ] || { echo "skip: $FIX missing"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
W=$(cd "$(dirname "$W")" && pwd)/$(basename "$W") FIX=$(cd "$(dirname "$FIX")" && pwd)/$(basename "$FIX")
cd "$T" || exit 1
export WARPLAB_NO_DRIVER=1 XDG_STATE_HOME="$T/state" WARPLAB_CACHE_DIR="$T/cache" NO_COLOR=1
timeout 120 python3 - "$W" "$FIX" <<'PY' || exit 1
import fcntl, os, pty, re, select, struct, subprocess, sys, termios, time
exe, fix = sys.argv[1], sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.execv(exe, [exe, "--profile", fix, "repl"])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 300, 0, 0))  # no line wraps
buf = b""
seen = bytearray()  # for a failure's message

def fail(msg):
    print("FAIL: " + msg)
    try:
        os.kill(pid, 9)
    except OSError:
        pass
    sys.exit(1)

def read_until(pattern, timeout=30.0, what=""):
    """Reads until `pattern` (a regex on what came since the last match) matches; returns
    the text before the match."""
    global buf
    end = time.time() + timeout
    while True:
        m = re.search(pattern.encode(), buf)
        if m:
            before, buf = buf[:m.start()], buf[m.end():]
            seen.extend(before + m.group(0))
            return before.decode("utf-8", "replace")
        left = end - time.time()
        if left <= 0:
            fail("waiting for %r (%s); got %r; before it %r" % (pattern, what, buf, seen[-2000:]))
        r, _, _ = select.select([fd], [], [], left)
        if r:
            try:
                buf += os.read(fd, 65536)
            except OSError:
                pass

def enter(lines, what):
    """Types an input line by line (the continuation prompt between) and returns what it
    printed, as lines, up to the next prompt."""
    for i, line in enumerate(lines):
        # As a person types: after the prompt is up (a line typed ahead is echoed twice,
        # by the terminal and again by the line editor).
        time.sleep(0.2)
        os.write(fd, line.encode() + b"\r")
        # The terminal echoes the line, then the REPL answers; a line that leaves the
        # chunk open gets ">> ".
        read_until(re.escape(line) + r"\r\n", what=what + ": echo")
        if i + 1 < len(lines):
            read_until(r"^>> ", what=what + ": continuation prompt")
    out = read_until(r"(?:^|\r\n)> $", what=what + ": the prompt after it")
    return out.replace("\r\n", "\n").split("\n") if out else []

read_until(r"> $", what="first prompt")
session = []  # what the saved script must print, line by line
steps = [
    (["print(dev.name)"], True),
    (["dev.attr.warp_size"], True),
    (["m = cuda.compile{source = [[",
      "__global__ void scale(float* x, float a, int n) {",
      "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= a; }]]}"], True),
    (["k = m.scale"], True),
    (["k:occupancy(256)"], True),
    (["{", "  blocks = k:occupancy(256).blocks_per_sm,", "  warp = dev.attr.warp_size}"], True),
    (["local tmp = 5"], True),
    (["tmp"], True),
    (["error('not saved')"], False),
    (["for i = 1, 2 do", "  print('line ' .. i)", "end"], True),
    ([":attrs warp_size"], False),
]
for lines, kept in steps:
    out = enter(lines, lines[0])
    if kept:
        session += out
    elif lines[0].startswith("error") and not any("not saved" in l for l in out):
        fail("the error was not shown: %r" % out)
if not any(l.startswith("  blocks_per_sm = ") for l in session):
    fail("k:occupancy(256) did not print its table: %r" % session)
if "32" not in session or "nil" not in session:
    fail("dev.attr.warp_size, or tmp after its input: %r" % session)

out = enter([":save session.lua"], ":save")
if out != ["saved 9 inputs to session.lua"]:
    fail(":save said %r" % out)
time.sleep(0.3)
os.write(fd, b"\x04")
end = time.time() + 10
while True:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
    if time.time() > end:
        fail("still running 10 s after Ctrl-D")
    time.sleep(0.05)

script = open("session.lua").read()
for want in ("dev = cuda.device()",
             "m = cuda.compile{source = [[\n__global__ void scale(float* x, float a, int n) {\n",
             "warplab.show(k:occupancy(256))"):
    if want not in script:
        fail("%r is not in the script:\n%s" % (want, script))
for unwanted in ("not saved", ":attrs", "print(m\n", "\n)\n"):
    if unwanted in script:
        fail("%r is in the script:\n%s" % (unwanted, script))
run = subprocess.run([exe, "--profile", fix, "run", "session.lua"], capture_output=True, text=True, timeout=60)
if run.returncode != 0:
    fail("warplab run session.lua: exit %d\n%s\n--- the script\n%s" % (run.returncode, run.stderr, script))
got = run.stdout.split("\n")
if got and got[-1] == "":
    got.pop()
if got != session:
    fail("the script printed\n%s\n--- the session printed\n%s\n--- the script\n%s" %
         ("\n".join(got), "\n".join(session), script))
print("ok: the saved session prints the session's %d lines" % len(session))
PY
