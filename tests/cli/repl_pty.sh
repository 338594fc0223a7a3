#!/usr/bin/env bash
# repl_pty.sh: `warplab repl` on a terminal (a pty driven by python3): the prompt, Tab
# completion of dev.attr.max_<Tab>, the continuation prompt, error recovery, Ctrl-C
# stopping a loop without leaving, Ctrl-C clearing a typed line, a syntax error offered
# again for editing, a multi-line chunk as one history entry, history written to
# $XDG_STATE_HOME/warplab/history, UTF-8 input, Ctrl-D leaving with status 0.
# Needs python3 and the synthetic profile tests/data/profiles/synthetic_profile.json (skips without).
set -u
W="$1"; SRC="$2"
FIX="$SRC/tests/data/profiles/synthetic_profile.json"
[ -f "$FIX" ] || { echo "skip: $FIX missing"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
STATE="$(mktemp -d)"; trap 'rm -rf "$STATE"' EXIT
WARPLAB_NO_DRIVER=1 XDG_STATE_HOME="$STATE" timeout 30 python3 - "$W" "$FIX" <<'PY' || exit 1
import os, pty, re, select, sys, time
exe, fix = sys.argv[1], sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.execv(exe, [exe, "--profile", fix, "repl"])
buf = b""

def expect(pattern, timeout=5.0, what=""):
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
            print("FAIL: waiting for %r (%s); got %r" % (pattern, what, buf))
            os.kill(pid, 9)
            sys.exit(1)
        r, _, _ = select.select([fd], [], [], left)
        if r:
            try:
                buf += os.read(fd, 4096)
            except OSError:
                pass

def send(b):
    os.write(fd, b)

expect(r"> $", what="first prompt")
send(b"dev.attr.max_\t")
expect(r"max_threads_per_block", what="candidates listed for dev.attr.max_<Tab>")
expect(r"> dev\.attr\.max_$", what="the line redrawn after the list")
send(b"threads_per_b\t")
expect(r"lock", what="a unique candidate completed")
send(b"\r")
expect(r"\r\n(\d+)\r\n> ", what="the completed expression's value")
send(b"for i = 1, 2 do\r")
expect(r">> $", what="continuation prompt")
send(b"print('L' .. i) end\r")
expect(r"L1\r\nL2\r\n> ", what="multi-line chunk ran")
send(b"error('boom')\r")
expect(r"repl:1: boom\r\n> ", what="error then prompt")
send(b"x = 40\r")
expect(r"> ")
send(b"while true do end\r")
time.sleep(0.5)
send(b"\x03")
expect(r"interrupted\r\n> ", what="Ctrl-C stops the loop, the prompt stays")
send(b"x + 2\r")
expect(r"\r\n42\r\n> ", what="state kept after Ctrl-C")
send(b"abc\x03")
expect(r"> ")
send(b"7\r")
expect(r"\r\n7\r\n> ", what="Ctrl-C cleared the typed line")
send("'héllo ✓'\r".encode())
expect("\r\nhéllo ✓\r\n> ", what="UTF-8 typed at the prompt")
send(b"y = = 3\r")
expect(r"unexpected symbol near '='\r\n> y = = 3$", what="a syntax error comes back for editing")
send(b"\x01-- \r")  # Ctrl-A, comment it out, Enter: a chunk that parses
expect(r"> $", what="prompt after the edited chunk")
send(b":help\r")
expect(r":attrs \[PATTERN\]", what=":help")
expect(r"clears the line\.\r\n> $", what="prompt after :help")
# A Ctrl-D typed while the terminal is still in cooked mode (before libedit reads) is
# an empty read that the switch to raw mode drops, in any line editor: let it settle.
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
if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
    print("FAIL: Ctrl-D exit status %r" % status)
    sys.exit(1)
PY
H="$STATE/warplab/history"
[ -f "$H" ] || { echo "FAIL: no history file at $H"; exit 1; }
grep -q 'x\\040+\\0402\|x + 2' "$H" || { echo "FAIL: history lacks 'x + 2'"; cat "$H"; exit 1; }
# The two-line chunk is one entry (libedit writes its newline as \012), not two.
grep -q 'do\\012print' "$H" || { echo "FAIL: the multi-line chunk is not one history entry"; cat "$H"; exit 1; }
echo ok
