#!/usr/bin/env python3
"""page_soak.py: a page left open across 1,000 saves of `warplab watch --serve`. A client
follows the page's event stream and loads each run's new items, as the page's script does;
the script is saved every 30 ms (each save starts a run, a save during a run cancels it),
each run printing and writing a 100 KB picture. watch's memory after the 1,000th save is
within 16 MiB of what it was after the 100th (not judged under AddressSanitizer, whose
quarantine keeps freed memory), the page keeps at most 10 runs, and the last one shows the
last save.
Usage: page_soak.py WARPLAB [SAVES]
"""
import json
import os
import re
import socket
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

WARPLAB = os.path.abspath(sys.argv[1])
SAVES = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
SCRIPT = """print("save {v}")
require("warplab.util").write_file("p.svg", "<svg xmlns='http://www.w3.org/2000/svg'>" .. string.rep(" ", 100000)
  .. "</svg>", "t", 2)
"""


def main():
    t = tempfile.mkdtemp()
    env = dict(os.environ, TMPDIR=t, WARPLAB_CACHE_DIR=os.path.join(t, "cache"), NO_COLOR="1", WARPLAB_NO_DRIVER="1")
    path = os.path.join(t, "s.lua")
    with open(path, "w") as f:
        f.write(SCRIPT.format(v=0))
    p = subprocess.Popen([WARPLAB, "--profile", "h100", "watch", "s.lua", "--serve"], cwd=t, env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = []
    threading.Thread(target=lambda: [err.append(l.decode(errors="replace")) for l in p.stderr], daemon=True).start()
    failures = []
    try:
        end = time.monotonic() + 30
        while not any("] run 1 ok" in l for l in err) and time.monotonic() < end:
            time.sleep(0.05)
        url = next((re.search(r"(http://\S+)", l).group(1) for l in err if "the page is at" in l), None)
        if url is None:
            print("FAIL: no URL: " + "".join(err))
            return 1
        base, token = url.split("?")[0], url.split("token=")[1]
        port = int(re.search(r":(\d+)/", base).group(1))

        def get(q):
            with urllib.request.urlopen(f"{base}{q}&token={token}" if "?" in q else f"{base}{q}?token={token}") as r:
                return json.loads(r.read())

        loaded = {"events": 0, "items": 0}

        def follow():  # the page: an event, then the state and the latest run's new items
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(f"GET /api/events?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            have = {}
            while True:
                data = s.recv(65536)
                if not data:
                    return
                if b"data:" not in data:
                    continue
                loaded["events"] += 1
                runs = get("api/state")["runs"]
                if runs:
                    n = runs[-1]["run"]
                    r = get(f"api/run?run={n}&from={have.get(n, 0)}")
                    if r:
                        have[n] = r["count"]
                        loaded["items"] += len(r["items"])

        threading.Thread(target=follow, daemon=True).start()

        def rss():
            with open(f"/proc/{p.pid}/status") as f:
                return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))

        at = {}
        for v in range(1, SAVES + 1):
            with open(path, "w") as f:
                f.write(SCRIPT.format(v=v))
            time.sleep(0.03)
            if v in (100, SAVES):
                time.sleep(0.5)
                at[v] = rss()
        end = time.monotonic() + 30
        while time.monotonic() < end:
            runs = get("api/state")["runs"]
            last = get(f"api/run?run={runs[-1]['run']}&from=0")
            if last["outcome"] and any(i["kind"] == "text" and i["text"] == f"save {SAVES}\n" for i in last["items"]):
                break
            time.sleep(0.1)
        else:
            failures.append(f"the page's last run is not the last save: {last}")
        started = sum(1 for l in err if re.search(r"\] run \d+: re-run", l))
        grew = at[SAVES] - at[100]
        print(f"{SAVES} saves, {started} runs started, watch {at[100]} KiB after 100, {at[SAVES]} KiB after "
              f"{SAVES}; the page loaded {loaded['items']} items on {loaded['events']} events")
        # Under AddressSanitizer freed memory waits in its quarantine (256 MiB): not judged there.
        if grew > 16 * 1024 and "ASAN_OPTIONS" not in os.environ:
            failures.append(f"watch grew by {grew} KiB from save 100 to save {SAVES}")
        if len(runs) > 10:
            failures.append(f"the page keeps {len(runs)} runs")
        if started < SAVES // 2:
            failures.append(f"only {started} runs for {SAVES} saves")
        if loaded["events"] == 0:
            failures.append("the page got no event")
        if p.poll() is not None:
            failures.append(f"watch ended: {p.returncode}")
    finally:
        p.terminate()
        p.wait()
        subprocess.run(["rm", "-rf", t])
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    # The time limit (timeout's SIGTERM) ends main through its `finally`: the watch it
    # started, in a session of its own, goes too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))
    sys.exit(main())
