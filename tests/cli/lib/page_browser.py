#!/usr/bin/env python3
"""page_browser.py: the page of `warplab watch --serve` and of `warplab run --html` in a real
browser (headless Chromium through Selenium), as a person sees it: the output lines, the
check marks, a table, an SVG with its axis labels; an edit updates the page without a reload
and marks what changed; a compile error shows its line and caret; the runs before stay a
click away; strings and SVGs a script writes with markup or script in them are shown as text
or as pictures and run nothing; a wrong token is refused; the file `run --html` writes shows
the same from disk, with no connection. The browser's console must hold no error (a
Content-Security-Policy refusal would show there). A screenshot of each state goes to the
artifacts folder; with WARPLAB_DOCS_SCREENSHOTS=1 the first two also to docs/images/.
Usage: page_browser.py WARPLAB SOURCE_ROOT ARTIFACTS_DIR
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, TimeoutException
from selenium.webdriver.chrome.service import Service

WARPLAB, ROOT, ART = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
FAILURES = []


def fail(msg):
    FAILURES.append(msg)
    print("FAIL: " + msg, flush=True)


def check(cond, msg):
    if not cond:
        fail(msg)
    return cond


# The script the page shows: output on both streams, checks, a table, a line chart with
# labelled axes, and strings and an SVG that would run script if they were markup.
SCRIPT = r'''-- the page test's script, version {v}
local report = require "warplab.report"
local check = require "warplab.check"
local util = require "warplab.util"
print("hello from version {v}")
print("<script>alert(1)</script> & <img src=x onerror=\"document.title='pwned'\">")
io.stderr:write("a line on stderr\n")
local c = check.new("page")
c:eq({v}, {v}, "version is {v}")
c:that(true, "<b>markup in a check</b>")
c:that({ok}, "the one that fails in version 2")
report.table({{{{block = 128, ms = 0.5 * {v}}}, {{block = 256, ms = 0.25}}, {{block = "<i>x</i>", ms = 1}}}},
             {{title = "times <u>v</u>", columns = {{"block", "ms"}}}})
report.svg_lines({{{{name = "ms", x = {{1, 2, 3}}, y = {{3, 2, {v}}}}}}}, "plot.svg",
                 {{title = "a <title> with markup", xlabel = "block size", ylabel = "time (ms)"}})
util.write_file("evil.svg", '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40" '
  .. 'onload="document.title=\'pwned\'"><script>document.title="pwned"</script>'
  .. '<rect width="40" height="40" fill="red"/></svg>', "test", 2)
c:summary()
os.exit(check.exit_code())
'''
BROKEN = r'''local m = assert(cuda.compile{source = [[
__global__ void fill(float* y, float v) { y[i] = v; }
]]})
'''


class Watch:
    """warplab watch --serve in `folder`; stderr kept line by line."""

    def __init__(self, folder, option="--serve", **env):
        env = dict(os.environ, NO_COLOR="1", WARPLAB_NO_DRIVER="1", **env)
        self.p = subprocess.Popen([WARPLAB, "--profile", "h100", "watch", "s.lua", option], cwd=folder, env=env,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  start_new_session=True)
        self.err, self.out = [], []
        for stream, into in ((self.p.stderr, self.err), (self.p.stdout, self.out)):
            threading.Thread(target=self.read, args=(stream, into), daemon=True).start()

    @staticmethod
    def read(stream, into):
        for line in stream:
            into.append(line.decode(errors="replace").rstrip("\n"))

    def wait_err(self, pattern, limit=30):
        end = time.monotonic() + limit
        while time.monotonic() < end:
            for line in list(self.err):
                m = re.search(pattern, line)
                if m:
                    return m
            time.sleep(0.05)
        fail(f"watch never said /{pattern}/; it said:\n" + "\n".join(self.err))
        return None

    def stop(self):
        self.p.send_signal(signal.SIGINT)
        try:
            return self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            return self.p.wait()


def browser():
    o = webdriver.ChromeOptions()
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000",
              "--no-first-run", "--disable-extensions", "--force-color-profile=srgb"]:
        o.add_argument(a)
    o.binary_location = "/usr/bin/chromium"
    o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=o)
    d.set_page_load_timeout(30)  # a page that never loads is a failure, not a wait without end
    return d


def until(d, js, limit=15, what=None):
    """The value of `js` once truthy (or None after `limit` seconds, a failure)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        v = d.execute_script(js)
        if v:
            return v
        time.sleep(0.05)
    fail(f"the page never showed {what or js}")
    shot(d, "timeout-" + re.sub(r"\W+", "-", what or "state")[:40])
    return None


def shot(d, name):
    os.makedirs(ART, exist_ok=True)
    d.save_screenshot(os.path.join(ART, name + ".png"))


def run_is(n, outcome):
    return (f"return (() => {{ const h = document.querySelector('.runhead h1'), o = document.querySelector('.runhead .outcome');"
            f" return h && o && h.textContent === 'run {n}' && o.textContent === '{outcome}'; }})()")


def text(d, selector):
    return d.execute_script(f"return Array.from(document.querySelectorAll({selector!r})).map(e => e.textContent);")


def console_errors(d, where):
    for e in d.get_log("browser"):
        if e.get("level") == "SEVERE":
            fail(f"{where}: the browser's console says: {e.get('message')}")


def no_script_ran(d, where):
    try:
        d.switch_to.alert
        fail(f"{where}: an alert opened")
    except NoAlertPresentException:
        pass
    check(d.title != "pwned", f"{where}: a script from the run ran (title {d.title!r})")
    own = d.execute_script("return document.querySelectorAll('script:not([type]), script[type=\"text/javascript\"]').length")
    check(own == 1, f"{where}: {own} scripts in the page, not only its own")
    check(d.execute_script("return document.querySelectorAll('#run b, #run i, #run u, #run img[src=\"x\"]').length") == 0,
          f"{where}: markup from the run became elements")


def shows_version(d, v, where, url_of):
    """What a person sees of the script's run `v` (1 or 2)."""
    lines = "\n".join(text(d, "#run .line"))
    check(f"hello from version {v}" in lines, f"{where}: no output line 'hello from version {v}' in:\n{lines}")
    check("<script>alert(1)</script> & <img src=x" in lines, f"{where}: the hostile line is not shown as text")
    check("a line on stderr" in "\n".join(text(d, "#run .line.err")), f"{where}: no stderr line")
    checks = text(d, "#run .check")
    check(any("\u2713" in c and f"version is {v}" in c for c in checks), f"{where}: no check mark for 'version is {v}': {checks}")
    check(any("<b>markup in a check</b>" in c for c in checks), f"{where}: the check with markup is not text: {checks}")
    fails = text(d, "#run .check.fail")
    check((len(fails) == 1) == (v == 2), f"{where}: failing checks {fails}")
    check(f"page: {3 if v == 1 else 2} passed, {0 if v == 1 else 1} failed" in text(d, "#run .summary"),
          f"{where}: summary {text(d, '#run .summary')}")
    check(text(d, "#run .tabletitle") == ["times <u>v</u>"], f"{where}: table title {text(d, '#run .tabletitle')}")
    check(text(d, "#run table th") == ["block", "ms"], f"{where}: table header {text(d, '#run table th')}")
    cells = text(d, "#run table td")
    check(cells[:2] == ["128", "0.5000" if v == 1 else "1.000"] and "<i>x</i>" in cells, f"{where}: table cells {cells}")
    imgs = d.execute_script("return Array.from(document.querySelectorAll('#run figure img')).map(i => "
                            "[i.alt, i.src, i.complete && i.naturalWidth > 0]);")
    names = [i[0] for i in imgs]
    check(names == ["plot.svg", "evil.svg"], f"{where}: pictures {names}")
    for alt, src, shown in imgs:
        check(shown, f"{where}: {alt} is not shown (src {src[:80]})")
    plot = next((i for i in imgs if i[0] == "plot.svg"), None)
    if plot:
        svg = url_of(plot[1])
        for label in ["block size", "time (ms)", "a &lt;title&gt; with markup"]:
            check(label in svg, f"{where}: the SVG has no '{label}'")
    no_script_ran(d, where)


def fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def docs_pictures(d, folder):
    """The docs' pictures: an example as the docs show it (offline: its predictions, its
    checks, its table and picture), then after an edit of its parameters, the changes
    marked. With WARPLAB_DOCS_SCREENSHOTS=1 they replace docs/images/page*.png."""
    with open(os.path.join(ROOT, "examples", "memory", "banks.lua")) as f:
        src = f.read()
    path = os.path.join(folder, "banks.lua")
    with open(path, "w") as f:
        f.write(src)
    env = dict(os.environ, NO_COLOR="1", WARPLAB_NO_DRIVER="1")
    p = subprocess.Popen([WARPLAB, "--profile", "h100", "watch", "banks.lua", "--serve", "-p", "save=true"],
                         cwd=folder, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, start_new_session=True)
    try:
        line = p.stderr.readline().decode()
        m = re.search(r"the page is at (\S+)", line)
        if not check(m is not None, f"banks.lua: no URL: {line!r}"):
            return
        d.get(m.group(1))
        until(d, run_is(1, "ok"), limit=60, what="banks.lua's run 1")
        until(d, "return Array.from(document.querySelectorAll('#run figure img')).every(i => i.complete)", what="its picture")
        shot(d, "6-docs-page")
        with open(path, "w") as f:
            f.write(src.replace("params{block = 512", "params{block = 256"))
        until(d, run_is(2, "ok"), limit=60, what="banks.lua's run 2")
        until(d, "return document.querySelectorAll('#run .changed').length > 0", what="the changes marked")
        until(d, "return Array.from(document.querySelectorAll('#run figure img')).every(i => i.complete)", what="its picture")
        shot(d, "7-docs-page-changed")
    finally:
        os.killpg(p.pid, signal.SIGINT)
        p.wait()
    if os.environ.get("WARPLAB_DOCS_SCREENSHOTS") == "1":
        for name, to in [("6-docs-page", "page.png"), ("7-docs-page-changed", "page-changed.png")]:
            shutil.copy(os.path.join(ART, name + ".png"), os.path.join(ROOT, "docs", "images", to))


def main():
    if os.path.isdir(ART):
        shutil.rmtree(ART)
    t = tempfile.mkdtemp()
    env_tmp = os.path.join(t, "tmp")
    os.makedirs(env_tmp)
    os.environ.update(TMPDIR=env_tmp, WARPLAB_CACHE_DIR=os.path.join(t, "cache"))
    os.environ.pop("WARPLAB_PROFILE", None)
    folder = os.path.join(t, "w")
    os.makedirs(folder)
    script = os.path.join(folder, "s.lua")
    with open(script, "w") as f:
        f.write(SCRIPT.format(v=1, ok="true"))
    w = Watch(folder)
    d = None
    try:
        m = w.wait_err(r"the page is at (http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{32})$")
        if not m:
            return 1
        url = m.group(1)
        base = url.split("?")[0]
        token = url.split("token=")[1]
        w.wait_err(r"\] run 1 ok")
        d = browser()
        d.get(url)
        until(d, run_is(1, "ok"), what="run 1 ok")
        until(d, "return document.querySelectorAll('#run figure img').length === 2 && "
                 "Array.from(document.querySelectorAll('#run figure img')).every(i => i.complete)", what="pictures loaded")
        shows_version(d, 1, "watch, run 1", lambda src: fetch(src)[1])
        check(until(d, "return document.getElementById('status').textContent === 'live'", what="live status"), "not live")
        shot(d, "1-watch-first-run")

        # An edit: the page follows without a reload and marks what changed.
        d.set_window_size(1280, 600)  # room to scroll
        y0 = d.execute_script("window.__no_reload = 1234; window.scrollTo(0, 150); return window.scrollY;")
        check(y0 == 150, f"the page cannot scroll to 150: {y0}")
        with open(script, "w") as f:
            f.write(SCRIPT.format(v=2, ok="false"))
        until(d, run_is(2, "failed"), what="run 2 failed")
        until(d, "return document.querySelectorAll('#run figure img').length === 2", what="run 2's pictures")
        check(d.execute_script("return window.__no_reload") == 1234, "the page was reloaded to show run 2")
        y = d.execute_script("return window.scrollY")
        check(abs(y - 150) < 2, f"the page did not keep its scroll position: {y}, not 150")
        d.set_window_size(1280, 1000)
        shows_version(d, 2, "watch, run 2", lambda src: fetch(src)[1])
        changed = text(d, "#run .line.changed")
        check(any("hello from version 2" in c for c in changed), f"the new line is not marked: {changed}")
        check(not any("a line on stderr" in c for c in changed), f"an unchanged line is marked: {changed}")
        check(any("the one that fails" in c for c in text(d, "#run .check.fail.changed")), "the check that flipped is not marked")
        check("1.000" in text(d, "#run td.changed"), f"the changed cell is not marked: {text(d, '#run td.changed')}")
        check(text(d, "#run figcaption .badge") == ["changed"], f"badges: {text(d, '#run figcaption .badge')}")
        shot(d, "2-watch-edit-marked")

        # The run before, a click away; then back to following.
        d.execute_script("Array.from(document.querySelectorAll('#history button')).find(b => b.textContent === 'run 1').click();")
        until(d, run_is(1, "ok"), what="run 1 again, from the history")
        d.execute_script("Array.from(document.querySelectorAll('#history button')).find(b => b.textContent === 'latest').click();")
        until(d, run_is(2, "failed"), what="run 2 again, following")

        # A compile error: its line and the caret under it.
        with open(script, "w") as f:
            f.write(BROKEN)
        until(d, run_is(3, "stopped"), limit=60, what="run 3 stopped (compile error)")
        diag = "\n".join(text(d, "#run .line.diag"))
        check('identifier "i" is undefined' in diag, f"no diagnostic line: {diag!r}")
        lines = text(d, "#run .line")
        check(any(re.fullmatch(r"\s*\^\s*", l) for l in lines), f"no caret line in {lines}")
        shot(d, "3-watch-compile-error")

        # 20 tabs open at once (a browser gives one address six connections): every one
        # follows the runs; closing the tab that holds the event stream hands it on.
        tabs = [d.current_window_handle]
        for i in range(19):
            d.switch_to.new_window("tab")
            tabs.append(d.current_window_handle)
            try:
                d.get(url)
            except TimeoutException:
                fail(f"tab {i + 2} of 20 never loaded")
                break
        with open(script, "w") as f:
            f.write(SCRIPT.format(v=1, ok="true"))
        for i, h in enumerate(tabs):
            d.switch_to.window(h)
            if not until(d, run_is(4, "ok"), what=f"run 4 in tab {i + 1} of 20"):
                break
        d.switch_to.window(tabs[0])
        d.close()
        tabs = tabs[1:]
        with open(script, "w") as f:
            f.write(SCRIPT.format(v=2, ok="false"))
        for i, h in enumerate(tabs):
            d.switch_to.window(h)
            if not until(d, run_is(5, "failed"), what=f"run 5 in tab {i + 2}, the first tab closed"):
                break
        for h in tabs[:-1]:
            d.switch_to.window(h)
            d.close()
        d.switch_to.window(tabs[-1])
        check(text(d, "#status") == ["live"], f"the last tab's status: {text(d, '#status')}")

        console_errors(d, "the served page")

        # A wrong token is refused; the page's own data too without one.
        d.get(base + "?token=" + "0" * 32)
        body = d.find_element("tag name", "body").text
        check("wrong or missing token" in body, f"a wrong token: {body!r}")
        shot(d, "4-wrong-token")
        for u in [base + "?token=" + "0" * 32, base, base + "api/state", base + "api/run?run=1&from=0"]:
            status, b = fetch(u)
            check(status == 403 and "s.lua" not in b, f"{u}: {status} {b[:80]!r}")
        check(fetch(base + "api/state?token=" + token)[0] == 200, "the right token is refused")
        check(w.p.poll() is None, "watch ended")
        rc = w.stop()
        check(rc == 0, f"watch stopped with {rc}")

        # --open: the browser is given a private file that sends it on to the page.
        opener = os.path.join(folder, "browser.sh")
        with open(opener, "w") as f:
            f.write(f'#!/bin/sh\necho "$1" > "{folder}/opened"\n')
        os.chmod(opener, 0o700)
        with open(script, "w") as f:
            f.write(SCRIPT.format(v=1, ok="true"))
        w = Watch(folder, "--open", BROWSER=opener)
        w.wait_err(r"\] run 1 ok")
        opened = os.path.join(folder, "opened")
        for _ in range(100):
            if os.path.exists(opened) and os.path.getsize(opened) > 0:
                break
            time.sleep(0.05)
        target = open(opened).read().strip() if os.path.exists(opened) else ""
        if check(target.startswith("file://") and token not in target, f"--open opened {target!r}"):
            d.get(target)
            until(d, run_is(1, "ok"), what="the page, reached through the file --open opened")
            check(d.current_url.startswith("http://127.0.0.1:"), f"--open: the browser is at {d.current_url}")
        rc = w.stop()
        check(rc == 0, f"watch --open stopped with {rc}")

        # The same page as one file, opened from disk.
        with open(script, "w") as f:
            f.write(SCRIPT.format(v=1, ok="true"))
        report = os.path.join(folder, "report.html")
        r = subprocess.run([WARPLAB, "--profile", "h100", "run", "s.lua", "--html", "report.html"], cwd=folder,
                           env=dict(os.environ, NO_COLOR="1", WARPLAB_NO_DRIVER="1"), capture_output=True, text=True)
        check(r.returncode == 0, f"run --html: exit {r.returncode}: {r.stderr}")
        check("hello from version 1" in r.stdout and "  ok   version is 1" in r.stdout and "times <u>v</u>" in r.stdout,
              f"run --html: the terminal lost output: {r.stdout!r}")
        check("\x1e" not in r.stdout, "run --html: an event reached the terminal")
        d.get_log("browser")  # (what the served page logged is checked)
        d.get("file://" + report)
        until(d, run_is(1, "ok"), what="the file's run")
        until(d, "return Array.from(document.querySelectorAll('#run figure img')).every(i => i.complete)", what="pictures")

        def data_uri(src):
            import base64
            check(src.startswith("data:image/svg+xml;base64,"), f"a picture in the file is not inline: {src[:60]}")
            return base64.b64decode(src.split(",", 1)[1]).decode(errors="replace")

        shows_version(d, 1, "run --html", data_uri)
        check(d.execute_script("return document.getElementById('status').textContent") == "saved page", "status of the file")
        console_errors(d, "the file")
        shot(d, "5-run-html-file")
        docs_pictures(d, folder)

        # run --html --lines: the annotated source as a table of its own (offline: the
        # line map, what each line compiled to), the terminal's listing kept.
        shutil.copy(os.path.join(ROOT, "tests", "data", "scripts", "conflict_lines.lua"), os.path.join(folder, "l.lua"))
        r = subprocess.run([WARPLAB, "--profile", "h100", "run", "l.lua", "--html", "lines.html", "--lines"], cwd=folder,
                           env=dict(os.environ, NO_COLOR="1", WARPLAB_NO_DRIVER="1"), capture_output=True, text=True)
        check(r.returncode == 0, f"run --html --lines: exit {r.returncode}: {r.stderr}")
        check("conflict: " in r.stdout and "[shared store]" in r.stdout and "\x1e" not in r.stdout,
              f"run --html --lines: the terminal lost the listing: {r.stdout!r}")
        d.get_log("browser")  # (the page before was checked)
        d.get("file://" + os.path.join(folder, "lines.html"))
        until(d, run_is(1, "ok"), what="the --lines file's run")
        until(d, "return document.querySelectorAll('#run section.lines tr').length > 0", what="the lines section")
        title = text(d, "#run section.lines .tabletitle")
        check(any(t.startswith("conflict: ") and "instructions on 5 lines" in t for t in title),
              f"run --html --lines: no table titled for kernel conflict in {title}")
        rows = d.execute_script(
            "return Array.from(document.querySelectorAll('#run section.lines tbody tr')).map(tr =>"
            " [tr.className, Array.from(tr.cells).map(c => c.textContent)])")
        stored = [c for cls, c in rows if len(c) > 2 and "s[threadIdx.x * 32] = threadIdx.x;" in c[-2]]
        check(len(stored) == 1 and stored[0][0] == "3" and "shared store" in stored[0][-1],
              f"run --html --lines: no row for line 3 (its source, 'shared store') in {rows}")
        loaded = [(cls, c) for cls, c in rows if len(c) > 2 and c[0] == "5"]
        check(len(loaded) == 1 and "shared load" in loaded[0][1][-1] and "global store" in loaded[0][1][-1],
              f"run --html --lines: line 5 is not a shared load and a global store in {rows}")
        check(sum(1 for cls, _ in rows if cls == "hot") == 3, f"run --html --lines: not three hot lines in {rows}")
        check(any(c == ["conflict.cu"] for _, c in rows), f"run --html --lines: no row naming the file in {rows}")
        console_errors(d, "the --lines file")
        shot(d, "6-run-html-lines")

        # The same page with counts, as a GPU's run sends them (the record's rows given the
        # values a 32-way conflicted launch has): the cells read as the terminal's listing.
        with open(os.path.join(folder, "lines.html")) as f:
            page = f.read()
        m = re.search(r'(<script type="application/json" id="warplab-data">)(.*?)(</script>)', page, re.S)
        data = json.loads(m.group(2))
        lines = data["runs"][0]["lines"]
        lines["columns"] = ["instructions", "shared", "global", "stalls"]
        lines["kernels"][0].update(launches=1, samples=200.0)
        for r in lines["rows"]:
            r.update(inst=32.0, thread_inst=1024.0, predicated_off=0.0, shared_way=None, shared_wavefronts=None,
                     shared_ideal=None, global_sectors=None, global_ideal=None, samples=10.0, share=0.05,
                     reasons={"barrier": 10.0})
            if r["line"] == 3:
                r.update(inst=64.0, shared_wavefronts=1024.0, shared_ideal=32.0, shared_way=32.0, samples=150.0,
                         share=0.75, reasons={"mio_throttle": 120.0, "short_scoreboard": 30.0})
            if r["line"] == 5:
                r.update(global_sectors=8.0, global_ideal=4.0)
        blob = json.dumps(data).replace("<", "\\u003c")
        with open(os.path.join(folder, "counted.html"), "w") as f:
            f.write(page[:m.start(2)] + blob + page[m.end(2):])
        d.get_log("browser")
        d.get("file://" + os.path.join(folder, "counted.html"))
        until(d, "return document.querySelectorAll('#run section.lines tbody tr').length > 0", what="the counted lines")
        head = d.execute_script("return Array.from(document.querySelectorAll('#run section.lines th')).map(h => h.textContent)")
        check(head == ["line", "warp inst", "thread inst", "pred off", "shared", "global", "stalls", "top reasons",
                       "source", "compiled to"], f"the counted lines' columns: {head}")
        cells = {c[0]: c for c in d.execute_script(
            "return Array.from(document.querySelectorAll('#run section.lines tbody tr')).map(tr =>"
            " Array.from(tr.cells).map(c => c.textContent))") if len(c) > 2}
        check(cells.get("3", [])[1:8] == ["64", "1024", "0.0 %", "32.0-way", "-", "75.0 %", "mio_throttle 80%, short_scoreboard 20%"],
              f"the conflicted line's cells: {cells.get('3')}")
        check(cells.get("5", [])[5] == "2.00x", f"the line with twice the sectors: {cells.get('5')}")
        title = text(d, "#run section.lines .tabletitle")
        check(title and title[0] == "conflict: 1 launch, exact counts, 200 stall samples", f"the counted kernel's title: {title}")
        hot = d.execute_script("return Array.from(document.querySelectorAll('#run section.lines tr.hot')).map(tr => tr.cells[0].textContent)")
        check(len(hot) == 3 and "3" in hot, f"line 3 (the hottest) is not among three marked: {hot}")
        console_errors(d, "the counted lines")
        shot(d, "7-lines-counted")
    finally:
        if d:
            d.quit()
        if w.p.poll() is None:
            os.killpg(w.p.pid, signal.SIGKILL)
            w.p.wait()
        shutil.rmtree(t, ignore_errors=True)
    if FAILURES:
        print(f"{len(FAILURES)} failures; screenshots in {ART}")
        return 1
    print(f"ok: the page in a browser (screenshots in {ART})")
    return 0


if __name__ == "__main__":
    # The time limit (timeout's SIGTERM) ends main through its `finally`: the watch it
    # started, in a session of its own, goes too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))
    sys.exit(main())
