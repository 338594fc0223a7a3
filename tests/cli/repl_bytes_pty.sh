#!/usr/bin/env bash
# repl_bytes_pty.sh: the REPL at a terminal (a pty driven by python3, in a UTF-8 locale)
# given bytes that are not UTF-8, a paste of a megabyte and files that are not files:
# a Latin-1 "\xe9" inside a string, a lone "\xff", a lone "\xc3" before Enter or before a
# pause, and ":attrs \xff\xfe" each read as U+FFFD with one note, the session and its
# worker kept (they used to end the REPL with status 0, as at end of input); a 1 MB table
# pasted over 150,000 lines is read and evaluated in seconds (each line parsed the whole
# chunk again), and Ctrl-D after it leaves; a FIFO as the history file or as $EDITRC does
# not stop the first prompt (libedit opened it and waited for a writer).
# Needs python3 and the synthetic profile tests/data/profiles/synthetic_profile.json (skips without).
set -u
W="$1"; SRC="$2"
FIX="$SRC/tests/data/profiles/synthetic_profile.json"
[ -f "$FIX" ] || { echo "skip: $FIX missing"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
locale -a 2>/dev/null | grep -qix 'c.utf-\?8' || { echo "skip: no C.UTF-8 locale"; exit 77; }
STATE="$(mktemp -d)"; trap 'rm -rf "$STATE"' EXIT
mkdir -p "$STATE/warplab"
mkfifo "$STATE/warplab/history" "$STATE/editrc"
LC_ALL=C.UTF-8 EDITRC="$STATE/editrc" WARPLAB_NO_DRIVER=1 XDG_STATE_HOME="$STATE" timeout 200 \
  python3 - "$W" "$FIX" <<'PY' || exit 1
import os, pty, re, select, sys, termios, threading, time
exe, fix = sys.argv[1], sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.execv(exe, [exe, "--profile", fix, "repl"])
buf = b""
lock = threading.Lock()

def pump(timeout):
    """Reads what the REPL wrote, for at most `timeout` seconds."""
    global buf
    r, _, _ = select.select([fd], [], [], timeout)
    if r:
        try:
            data = os.read(fd, 1 << 16)
        except OSError:
            return
        with lock:
            buf += data

def expect(pattern, timeout=10.0, what=""):
    """Reads until `pattern` (a regex on the text since the last match) appears."""
    global buf
    end = time.time() + timeout
    while True:
        with lock:
            m = re.search(pattern.encode(), buf)
            if m:
                buf = buf[m.end():]
                return m
        left = end - time.time()
        if left <= 0:
            print("FAIL: waiting for %r (%s); got %r" % (pattern, what, buf[-1500:]))
            os.kill(pid, 9)
            sys.exit(1)
        pump(min(left, 0.5))

def send(b):
    # Keys go in once the line editor has the terminal (not canonical): typed ahead while
    # the last line is still evaluated, the terminal's own line discipline would take a
    # Ctrl-U (and erase nothing the editor holds) before the editor ever saw it.
    end = time.time() + 10
    while termios.tcgetattr(fd)[3] & termios.ICANON and time.time() < end:
        pump(0.02)
    while b:
        b = b[os.write(fd, b):]

expect(r"> $", timeout=20, what="the first prompt, with a FIFO for history and for EDITRC")
send(b"x = 40\r")
expect(r"> $")

NOTE = r"warplab: the terminal sent %d byte%s that %s not UTF-8 \(the first: 0x%s\)"
send(b'print("caf\xe9")\r')
expect(NOTE % (1, "", "is", "e9"), what="a Latin-1 byte in a string")
expect("\r\ncaf\ufffd\r\n> $", what="the line ran with U+FFFD")
send(b"\xff\r")
expect(NOTE % (1, "", "is", "ff"), what="a lone 0xff")
expect("unexpected symbol near '<\\\\239>'\r\n> \ufffd$", what="the line back for editing, as read")
send(b"\x15")  # Ctrl-U clears it
send(b"\xc3\r")
expect(NOTE % (1, "", "is", "c3"), what="a lone lead byte before Enter")
expect("> \ufffd$", what="again back for editing")
send(b"\x15")
send(b"y = 1 -- \xc3")
time.sleep(0.3)
send(b" after a pause\r")
expect(NOTE % (1, "", "is", "c3"), what="a lone lead byte before a pause")
expect(r"> $")
send(b":attrs \xff\xfe\r")
expect(NOTE % (2, "s", "are", "ff"), what=":attrs with two bad bytes")
expect("no attribute matches '\ufffd\ufffd'", what="the pattern as read")
expect(r"> $")
send(b"x + 2\r")
expect(r"\r\n42\r\n> $", what="the session lived through every bad byte")

# A megabyte over 150,000 lines, written while what the REPL echoes is read.
n = 150000
paste = b"t = {\r" + b"12345,\r" * n + b"}\r"
assert len(paste) > 1000000
done = threading.Event()
def writer():
    send(paste)
    done.set()
t0 = time.time()
th = threading.Thread(target=writer)
th.start()
while not done.is_set():
    pump(0.2)
    with lock:
        buf = buf[-4096:]  # the echo: kept short
    if time.time() - t0 > 120:
        print("FAIL: the paste was not taken in 120 s")
        os.kill(pid, 9)
        sys.exit(1)
th.join()
send(b"#t\r")
expect(r"\r\n%d\r\n> $" % n, timeout=120 - (time.time() - t0), what="the pasted table, whole")
took = time.time() - t0
print("1 MB paste of %d lines read and evaluated in %.1f s" % (n, took))
if took > 60:
    print("FAIL: the paste took %.1f s (each line parsed the whole chunk again?)" % took)
    os.kill(pid, 9)
    sys.exit(1)
send(b"\x04")
end = time.time() + 10
while True:
    done_pid, status = os.waitpid(pid, os.WNOHANG)
    if done_pid:
        break
    if time.time() > end:
        print("FAIL: still running 10 s after Ctrl-D")
        os.kill(pid, 9)
        sys.exit(1)
    pump(0.05)
if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
    print("FAIL: Ctrl-D ended the REPL with status %r" % status)
    sys.exit(1)
PY
[ -p "$STATE/warplab/history" ] || { echo "FAIL: the FIFO at the history file was replaced"; exit 1; }
echo ok
