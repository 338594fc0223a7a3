#!/usr/bin/env python3
"""watch_latency.py: what a user of `warplab watch` feels, for scripts/bench: from a save to
the new result. In a scratch folder a script compiles a plain kernel and a cooperative-groups
kernel (the headers that cost), launches both on a GPU and prints one line with what they
wrote. Each edit, made once the next run is ready (the watcher's standby), is timed from the
moment the file is written to:
  - the new output line (stdout), on a GPU for every edit, offline for a script edit;
  - the resource line the watcher prints after a kernel edit (the offline feedback);
  - the re-run's start, as the watcher reports it ("re-run N ms after save").
The watcher's stdout is a terminal (a pty), as a user's is: a line shows when printed.
Then `watch --serve`, script edits only (section watch-page): the same save → new output line
with the page served and no page open (what serving costs the loop), and with a page open (a
client of the page's event stream that loads the run's new items as the page does) the time
from the line on the terminal to the line in the page's data.
Prints records "@ watch <row> <column> <ms>" (tab-separated, bench/report.py) and
"@skip watch <row> <why>" (and the same for watch-page). EDITS edits of each kind (5 by default). A warplab without
standby runs (before they existed) is timed with BENCH_WATCH_OLD=1: each edit then waits
for the previous run's end and half a second.
Usage: watch_latency.py WARPLAB FOLDER [EDITS]
"""
import json
import os
import pty
import re
import selectors
import socket
import subprocess
import sys
import threading
import time
import urllib.request

TIMEOUT_S = 60  # one edit (or the first run) that takes longer is reported as a skip

SCRIPT = """-- the bench's watched script: version {v}
local plain = assert(cuda.compile("plain.cu"))
local coop = assert(cuda.compile("coop.cu"))
if cuda.device().live then
  local out = cuda.array("i32", 2)
  plain.k:launch(1, 1, out)
  coop.c:launch(1, 32, out)
  local r = out:get()
  print(string.format("result %d %d %d", {v}, r[1], r[2]))
else
  print(string.format("result %d", {v}))
end
"""
PLAIN = "__global__ void k(int* p) {{ p[0] = {v}; }}\n"
COOP = """// coop.cu: a warp's sum through cooperative groups, plus {v}
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void c(int* p) {{
  auto w = cg::tiled_partition<32>(cg::this_thread_block());
  const int s = cg::reduce(w, (int)threadIdx.x, cg::plus<int>());
  if (threadIdx.x == 0) p[1] = s + {v};
}}
"""
WARP_SUM = 496  # 0 + 1 + ... + 31


class Watch:
    """warplab watch in `folder`, its stdout and stderr read as lines as they come."""

    def __init__(self, warplab, folder, extra=()):
        env = dict(os.environ, WARPLAB_STARTUP_TRACE="1", NO_COLOR="1")
        master, slave = pty.openpty()
        self.p = subprocess.Popen([warplab, "watch", "s.lua", *extra], cwd=folder, env=env, stdin=subprocess.DEVNULL,
                                  stdout=slave, stderr=subprocess.PIPE)
        os.close(slave)
        self.out = os.fdopen(master, "rb", buffering=0)
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.out, selectors.EVENT_READ, "out")
        self.sel.register(self.p.stderr, selectors.EVENT_READ, "err")
        self.lines = {"out": [], "err": []}
        self.partial = {"out": b"", "err": b""}

    def pump(self, timeout):
        for key, _ in self.sel.select(timeout):
            try:
                data = os.read(key.fileobj.fileno(), 65536)
            except OSError:  # a pty whose other end closed
                data = b""
            if not data:
                self.sel.unregister(key.fileobj)
                continue
            buf = self.partial[key.data] + data
            *done, self.partial[key.data] = buf.split(b"\n")
            now = time.perf_counter()
            self.lines[key.data] += [(now, d.decode(errors="replace").rstrip("\r")) for d in done]

    def wait(self, stream, test, start=0, limit=TIMEOUT_S):
        """The (time, line) of the first line from index `start` on that passes `test`."""
        end = time.monotonic() + limit
        while True:
            for t, line in self.lines[stream][start:]:
                if test(line):
                    return t, line
            if time.monotonic() > end or self.p.poll() is not None and not self.sel.get_map():
                return None, None
            self.pump(0.05)

    def stop(self):
        self.p.terminate()
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


class PageClient:
    """An open page: the event stream read on a thread; after each event the new items of the
    latest run are loaded (api/state, then api/run from the last item had), as the page's
    script does, and each new output line noted with the time it arrived."""

    def __init__(self, url):
        m = re.match(r"http://([\d.]+):(\d+)/\?token=(\w+)", url)
        self.host, self.port, self.token = m.group(1), int(m.group(2)), m.group(3)
        self.base = f"http://{self.host}:{self.port}/"
        self.lines, self.have = [], {}
        self.sock = socket.create_connection((self.host, self.port))
        self.sock.sendall(f"GET /api/events?token={self.token} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n\r\n".encode())
        threading.Thread(target=self.follow, daemon=True).start()

    def get(self, path):
        with urllib.request.urlopen(self.base + path + ("&" if "?" in path else "?") + "token=" + self.token) as r:
            return json.loads(r.read())

    def follow(self):
        buf = b""
        while True:
            try:
                data = self.sock.recv(65536)
            except OSError:
                return
            if not data:
                return
            buf += data
            if b"data:" not in buf:
                continue
            buf = b""
            runs = self.get("api/state")["runs"]
            if not runs:
                continue
            n = runs[-1]["run"]
            r = self.get(f"api/run?run={n}&from={self.have.get(n, 0)}")
            self.have[n] = r["count"]
            now = time.perf_counter()
            for it in r["items"]:
                if it["kind"] == "text":
                    self.lines += [(now, l) for l in it["text"].splitlines()]

    def wait(self, line, limit=TIMEOUT_S):
        end = time.monotonic() + limit
        while time.monotonic() < end:
            for t, l in list(self.lines):
                if l == line or l.startswith(line + " "):
                    return t
            time.sleep(0.002)
        return None


def page_rows(warplab, folder, edits):
    """watch --serve: save → new output line with no page open, then terminal → page."""
    v = 1000
    write(folder, "s.lua", SCRIPT.format(v=v))
    w = Watch(warplab, folder, ["--serve"])
    try:
        _, line = w.wait("err", lambda l: "the page is at" in l)
        _, ok = w.wait("err", lambda l: re.search(r"\] run 1 (ok|failed)", l) is not None)
        if line is None or ok is None or "ok" not in ok:
            print("@skip\twatch-page\tno page open\tno first run with --serve")
            return
        url = line.split("the page is at ")[1].strip()
        run, page = 1, None
        for i in range(2 * edits):
            row = "no page open" if i < edits else "a page open"
            if i == edits:
                page = PageClient(url)  # the second half with a page open
                time.sleep(0.2)
            run += 1
            ready, _ = w.wait("err", lambda l, n=run: f"standby for run {n} ready" in l)
            if ready is None:
                print(f"@skip\twatch-page\t{row}\tno standby for run {run}")
                return
            v += 1
            out_at = len(w.lines["out"])
            t0 = write(folder, "s.lua", SCRIPT.format(v=v))
            want = f"result {v}"
            t1, _ = w.wait("out", lambda l, x=want: l == x or l.startswith(x + " "), out_at)
            if t1 is None:
                print(f"@skip\twatch-page\t{row}\trun {run}: no output line")
                return
            print(f"@\twatch-page\t{row}\tsave → new output line (ms)\t{1000 * (t1 - t0):.1f}")
            if page is not None:
                t2 = page.wait(want)
                if t2 is None:
                    print(f"@skip\twatch-page\t{row}\tthe page never showed run {run}'s line")
                    return
                print(f"@\twatch-page\t{row}\tterminal → page (ms)\t{1000 * max(0.0, t2 - t1):.1f}")
            w.wait("err", lambda l, n=run: f"] run {n} ok" in l)
            sys.stdout.flush()
    finally:
        w.stop()


def write(folder, name, text):
    with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
        f.write(text)
    return time.perf_counter()


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    warplab, folder = os.path.abspath(argv[1]), argv[2]
    edits = int(argv[3]) if len(argv) > 3 else 5
    os.makedirs(folder, exist_ok=True)
    v = {"s": 0, "p": 0, "c": 0}
    write(folder, "s.lua", SCRIPT.format(v=0))
    write(folder, "plain.cu", PLAIN.format(v=0))
    write(folder, "coop.cu", COOP.format(v=0))
    w = Watch(warplab, folder)
    rows = {"s": "script edit", "p": "plain kernel edit", "c": "cooperative-groups kernel edit"}
    try:
        t, line = w.wait("err", lambda l: re.search(r"\] run 1 (ok|failed)|^run failed", l) is not None)
        if line is None or "ok" not in line:
            why = "the first run did not end well" if line else f"no first run in {TIMEOUT_S} s"
            for r in rows.values():
                print(f"@skip\twatch\t{r}\t{why}: {w.lines['err'][-1][1] if w.lines['err'] else ''}")
            return 0
        _, first = w.wait("out", lambda l: l.startswith("result "))
        # Kernels that ran wrote 0 and the warp's sum (the stand-in driver runs nothing).
        live = first == f"result 0 0 {WARP_SUM}"
        run = 1
        old = os.environ.get("BENCH_WATCH_OLD") == "1"
        for kind in ["s", "p", "c"] * edits:
            run += 1
            if old:
                ready, _ = w.wait("err", lambda l, n=run - 1: f"] run {n} ok" in l)
                time.sleep(0.5)
            else:
                ready, _ = w.wait("err", lambda l, n=run: f"standby for run {n} ready" in l)
            if ready is None:
                print(f"@skip\twatch\t{rows[kind]}\tno standby for run {run} in {TIMEOUT_S} s")
                return 0
            v[kind] += 1
            out_at, err_at = len(w.lines["out"]), len(w.lines["err"])
            if kind == "s":
                t0 = write(folder, "s.lua", SCRIPT.format(v=v["s"]))
            elif kind == "p":
                t0 = write(folder, "plain.cu", PLAIN.format(v=v["p"]))
            else:
                t0 = write(folder, "coop.cu", COOP.format(v=v["c"]))
            want = f"result {v['s']} {v['p']} {WARP_SUM + v['c']}" if live else f"result {v['s']}"
            if live or kind == "s":  # (the stand-in driver's lines end with what no kernel wrote)
                t1, _ = w.wait("out", lambda l, x=want: l == x or not live and l.startswith(x + " "), out_at)
                if t1 is not None:
                    print(f"@\twatch\t{rows[kind]}\tsave → new output line (ms)\t{1000 * (t1 - t0):.1f}")
            if kind != "s":
                name = "k(int*)" if kind == "p" else "c(int*)"
                t1, _ = w.wait("err", lambda l, x=name: l.startswith(x + ": "), err_at)
                if t1 is not None:
                    print(f"@\twatch\t{rows[kind]}\tsave → resource line (ms)\t{1000 * (t1 - t0):.1f}")
            _, header = w.wait("err", lambda l, n=run: f"] run {n}: re-run" in l, err_at)
            started = re.search(r"re-run (\d+) ms", header or "")
            if started:
                print(f"@\twatch\t{rows[kind]}\tsave → re-run started (ms)\t{started.group(1)}")
            done, line = w.wait("err", lambda l, n=run: f"] run {n} ok" in l or l.startswith("run failed"), err_at)
            if done is None or "ok" not in line:
                print(f"@skip\twatch\t{rows[kind]}\trun {run}: {line or 'no end'}")
                return 0
            sys.stdout.flush()
    finally:
        w.stop()
    page_rows(warplab, folder, edits)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
