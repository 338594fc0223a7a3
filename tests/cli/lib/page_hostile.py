#!/usr/bin/env python3
"""page_hostile.py: a small hostile client against the page of `warplab watch --serve`:
wrong and missing tokens, wrong Host headers (DNS rebinding), path traversal, methods other
than GET, oversized headers, URIs and bodies, garbage, stalled half requests, 1,000
connections at once and more event streams than allowed. Nothing that should not be served
is: no answer but 403, 404, 405 or a refusal carries the run's data, and none carries a file
(the script's own source, /etc/passwd); every good request made meanwhile is answered;
watch keeps running, runs the next save, and its memory stays put.
Usage: page_hostile.py WARPLAB
"""
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

WARPLAB = os.path.abspath(sys.argv[1])
FAILURES = []
SCRIPT = """-- secret-of-the-source: this comment is never printed, so never served
print("output-of-the-run " .. {v})
require("warplab.util").write_file("pic.svg", '<svg xmlns="http://www.w3.org/2000/svg"/>', "t", 2)
"""

# About 4 MiB of output (the most a run's record keeps) and a picture of about 3 MiB.
BIG = """print(("big-run-output " .. string.rep("x", 80) .. "\\n"):rep(45000))
local rects = {'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'}
for i = 1, 70000 do rects[#rects + 1] = '<rect x="1" y="1" width="1" height="1"/>' end
rects[#rects + 1] = "</svg>"
require("warplab.util").write_file("big.svg", table.concat(rects), "t", 2)
"""


def fail(msg):
    FAILURES.append(msg)
    print("FAIL: " + msg, flush=True)


def check(cond, msg):
    if not cond:
        fail(msg)
    return cond


class Watch:
    def __init__(self, folder):
        env = dict(os.environ, NO_COLOR="1", WARPLAB_NO_DRIVER="1")
        self.p = subprocess.Popen([WARPLAB, "--profile", "h100", "watch", "s.lua", "--serve"], cwd=folder, env=env,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  start_new_session=True)
        self.err = []
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.p.stderr:
            self.err.append(line.decode(errors="replace").rstrip("\n"))

    def wait_err(self, pattern, limit=30):
        end = time.monotonic() + limit
        while time.monotonic() < end:
            for line in list(self.err):
                m = re.search(pattern, line)
                if m:
                    return m
            time.sleep(0.05)
        fail(f"watch never said /{pattern}/:\n" + "\n".join(self.err))
        return None

    def rss_kib(self):
        with open(f"/proc/{self.p.pid}/status") as f:
            return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))


def exchange(port, data, timeout=5.0):
    """Sends `data` on a new connection; what came back before it closed (or `timeout`)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        try:
            s.sendall(data)
        except OSError:
            pass  # refused half way: what came back says why
        out = b""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        return out
    finally:
        s.close()


def request(port, target, host=None, method="GET", extra=b"", timeout=5.0):
    host = host if host is not None else f"127.0.0.1:{port}"
    head = f"{method} {target} HTTP/1.1\r\n".encode()
    if host != "":
        head += f"Host: {host}\r\n".encode()
    return exchange(port, head + extra + b"Connection: close\r\n\r\n", timeout)


def status_of(resp):
    m = re.match(rb"HTTP/1\.[01] (\d{3})", resp)
    return int(m.group(1)) if m else None


def leaks(resp):
    return [w for w in (b"output-of-the-run", b"secret-of-the-source", b"root:x:0:0", b"s.lua", b"<svg") if w in resp]


def refused(port, what, resp, codes=(400, 403, 404, 405, 413, 414, 431, 501)):
    st = status_of(resp)
    check(st is None or st in codes, f"{what}: answered {st}, not refused")
    bad = leaks(resp)
    check(not bad, f"{what}: the answer holds {bad}")


def main():
    t = tempfile.mkdtemp()
    os.environ.update(TMPDIR=t, WARPLAB_CACHE_DIR=os.path.join(t, "cache"))
    folder = os.path.join(t, "w")
    os.makedirs(folder)
    with open(os.path.join(folder, "s.lua"), "w") as f:
        f.write(SCRIPT.format(v=1))
    w = Watch(folder)
    try:
        m = w.wait_err(r"the page is at http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{32})$")
        if not m:
            return 1
        port, token = int(m.group(1)), m.group(2)
        w.wait_err(r"\] run 1 ok")
        good = f"/api/run?token={token}&run=1&from=0"
        r = request(port, good)
        check(status_of(r) == 200 and b"output-of-the-run 1" in r, f"the good request: {r[:200]!r}")
        rss0 = w.rss_kib()

        # Tokens: missing, empty, wrong, near misses, elsewhere in the request.
        near = [token[:-1], token + "0", token.upper(), token[:-1] + ("0" if token[-1] != "0" else "1"), " " + token]
        for path in ["/", "/api/state", "/api/run", "/api/svg", "/api/events"]:
            q = {"/api/run": "run=1&from=0", "/api/svg": "run=1&id=0"}.get(path, "")
            for tok in ["", "0" * 32] + near:
                target = f"{path}?{q}{'&' if q else ''}token={tok}"
                refused(port, f"token {tok!r} on {path}", request(port, target), codes=(403,))
            refused(port, f"no token on {path}", request(port, f"{path}?{q}"), codes=(403,))
            refused(port, f"the token in a fragment on {path}", request(port, f"{path}#token={token}"), codes=(403,))
            refused(port, f"the token in a header on {path}",
                    request(port, f"{path}?{q}", extra=f"Cookie: token={token}\r\nAuthorization: Bearer {token}\r\n".encode()),
                    codes=(403,))
        # Host headers: another name (DNS rebinding), another port, none at all.
        for host in ["evil.example", f"evil.example:{port}", f"127.0.0.1:{port + 1}", f"localhost.evil.example:{port}",
                     f"127.0.0.1.evil.example:{port}", f"10.0.0.1:{port}", ""]:
            refused(port, f"Host {host!r}", request(port, good, host=host), codes=(400, 403))
        refused(port, "HTTP/1.0 without Host", exchange(port, f"GET {good} HTTP/1.0\r\n\r\n".encode()), codes=(400, 403))
        # Paths: only the fixed ones answer; nothing names a file.
        for target in ["/../../../../etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "//etc/passwd", "/s.lua",
                       "/pic.svg", "/index.html", "/api/../api/state", "/api/state/", "/API/STATE", "/./",
                       "/..%2f..%2fetc%2fpasswd", "/%00", "/api/svg/../../s.lua"]:
            refused(port, target, request(port, target + ("&" if "?" in target else "?") + "token=" + token), codes=(400, 404))
        for q in ["run=1&id=../../etc/passwd", "run=../1&id=0", "run=1&id=99999999999", "run=-1&id=0", "run=1&id=1",
                  "run=2&id=0", "run=1%00&id=0", "run=1&id=0x0"]:
            refused(port, f"/api/svg?{q}", request(port, f"/api/svg?token={token}&{q}"), codes=(400, 404))
        for q in ["run=../1", "run=999", "run=1e0", "run=", "run=1&from=-1&from=2"]:
            resp = request(port, f"/api/run?token={token}&{q}")
            check(status_of(resp) in (200, 400, 404) and b"secret-of-the-source" not in resp, f"/api/run?{q}: {resp[:80]!r}")
        # Methods other than GET and HEAD.
        for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "PROPFIND"]:
            refused(port, method, request(port, good, method=method), codes=(400, 405, 501))
        # Oversized: a header line, many headers, a URI, a body on a GET.
        refused(port, "a 1 MB header", request(port, good, extra=b"X-Big: " + b"a" * (1 << 20) + b"\r\n"))
        refused(port, "10,000 headers", request(port, good, extra=b"".join(b"X-%d: 1\r\n" % i for i in range(10000))))
        refused(port, "a 100 KB URI", request(port, good + "&x=" + "a" * 100000))
        refused(port, "a body on a GET", request(port, good, extra=b"Content-Length: 10000000\r\n"))
        refused(port, "chunks on a GET", request(port, good, extra=b"Transfer-Encoding: chunked\r\n"))
        # Garbage and broken requests.
        for data in [os.urandom(4096), b"\r\n\r\n", b"GET\r\n\r\n", f"GET {good} HTTP/9.9\r\n\r\n".encode(),
                     b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + os.urandom(200)]:
            refused(port, f"garbage {data[:12]!r}", exchange(port, data, timeout=3))

        # Stalled half requests (200) and then 1,000 connections at once, each asking for the
        # state: every one is answered, and a good request made meanwhile too.
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
        stalled = []
        for _ in range(200):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(f"GET {good} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
            stalled.append(s)
        t0 = time.monotonic()
        r = request(port, good)
        check(status_of(r) == 200 and time.monotonic() - t0 < 2, f"with 200 stalled requests: {r[:80]!r}")
        socks = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(1000)]
        t0 = time.monotonic()
        for s in socks:
            s.sendall(f"GET /api/state?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
        answered = 0
        for s in socks:
            data = b""
            try:
                while True:
                    c = s.recv(65536)
                    if not c:
                        break
                    data += c
            except OSError:
                pass
            s.close()
            answered += status_of(data) == 200 and b'"runs"' in data
        took = time.monotonic() - t0
        check(answered == 1000, f"1,000 connections at once: {answered} answered")
        print(f"1,000 connections at once: {answered} answered in {took:.2f} s")
        for s in stalled:
            s.close()
        # More event streams than allowed: the extra ones are refused, the others stay.
        streams = []
        for _ in range(70):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(f"GET /api/events?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            streams.append(s)
        codes = []
        for s in streams:
            try:
                codes.append(status_of(s.recv(4096)))
            except OSError:
                codes.append(None)
        check(codes.count(200) == 64 and codes.count(503) == 6, f"70 event streams: {codes.count(200)} open, "
              f"{codes.count(503)} refused, {codes}")
        for s in streams:
            s.close()
        # Pages closed (a browser's tabs gone) free their places at once.
        time.sleep(0.5)
        streams = []
        for _ in range(64):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(f"GET /api/events?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            streams.append(s)
        reopened = [status_of(s.recv(4096)) for s in streams]
        check(reopened.count(200) == 64, f"64 pages after the others closed: {reopened.count(200)} open")
        for s in streams:
            s.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

        # Watch still runs, runs the next save, and serves it.
        check(w.p.poll() is None, "watch ended under the hostile client")
        with open(os.path.join(folder, "s.lua"), "w") as f:
            f.write(SCRIPT.format(v=2))
        w.wait_err(r"\] run 2 ok")
        r = request(port, f"/api/run?token={token}&run=2&from=0")
        check(b"output-of-the-run 2" in r, f"run 2 is not served: {r[:200]!r}")
        grew = w.rss_kib() - rss0
        check(grew < 64 * 1024 or "ASAN_OPTIONS" in os.environ, f"watch grew by {grew} KiB")  # (ASan: its quarantine)
        print(f"watch's memory: {rss0} KiB, then {rss0 + grew} KiB")

        # Clients that ask for a large run and its picture, 300 each, and read nothing: what
        # watch holds for them is bounded (a picture is not copied per client, the answers
        # waiting are capped); once they are gone the page is answered again.
        with open(os.path.join(folder, "s.lua"), "w") as f:
            f.write(BIG)
        w.wait_err(r"\] run 3 ok")
        rss1 = w.rss_kib()
        readers = []
        for target in [f"/api/run?token={token}&run=3&from=0", f"/api/svg?token={token}&run=3&id=0"]:
            for _ in range(300):
                s = socket.socket()
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connecting: a small window
                s.connect(("127.0.0.1", port))
                s.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
                readers.append(s)
        for s in readers:  # each answered (its first byte here): watch holds all it will
            s.settimeout(30)
            try:
                s.recv(1)
            except OSError:
                pass
        time.sleep(1)
        held = w.rss_kib() - rss1
        print(f"600 clients that do not read: watch holds {held} KiB more")
        check(held < 512 * 1024 or "ASAN_OPTIONS" in os.environ, f"600 clients that do not read: watch grew by {held} KiB")
        for s in readers:
            s.close()
        time.sleep(0.5)
        r = request(port, f"/api/run?token={token}&run=3&from=0", timeout=20)
        check(status_of(r) == 200 and b"big-run-output" in r, f"after the readers left: {r[:120]!r}")
        check(w.p.poll() is None, "watch ended under clients that do not read")
        w.p.send_signal(signal.SIGINT)
        check(w.p.wait(10) == 0, "watch did not stop cleanly")
    finally:
        if w.p.poll() is None:
            os.killpg(w.p.pid, signal.SIGKILL)
            w.p.wait()
        subprocess.run(["rm", "-rf", t])
    if FAILURES:
        print(f"{len(FAILURES)} failures")
        return 1
    print("ok: nothing served that should not be, and watch kept running")
    return 0


if __name__ == "__main__":
    # The time limit (timeout's SIGTERM) ends main through its `finally`: the watch it
    # started, in a session of its own, goes too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))
    sys.exit(main())
