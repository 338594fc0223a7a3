#!/usr/bin/env bash
# page_cli.sh: the page's command line, without a browser: `run --html FILE` writes one
# self-contained file (through the one writer, a file there replaced whole) with the run's
# output, checks, table and picture inside and nothing loaded from elsewhere; the terminal
# shows what a plain run shows; an output path that is one of the run's inputs (the script,
# a kernel it compiled) is refused in one sentence (exit 4) and that file is left as it was;
# a folder there is exit 4 too. `--serve` prints one URL on the loopback address with a
# token; a taken --port moves to the next free one and says so, 20 taken ones are one
# sentence (exit 4); --listen elsewhere warns; --port without --serve is a usage error;
# --open asks $BROWSER, through a private file; --serve with --params or --sanitize is refused.
# Usage: bash page_cli.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
BIN="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
export NO_COLOR=1 TMPDIR="$T/tmp" WARPLAB_CACHE_DIR="$T/cache"
mkdir -p "$T/tmp" "$T/w"
cd "$T/w" || exit 1
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done; rm -rf "$T"' EXIT

cat >s.lua <<'LUA'
local report = require "warplab.report"
local check = require "warplab.check"
print("plain output")
local c = check.new("cli")
c:that(true, "it holds")
report.table({{n = 1, name = "<one>"}}, {title = "t", columns = {"n", "name"}})
report.svg_bars({{label = "a", value = 2}}, "bars.svg", {title = "bars"})
c:summary()
LUA
"$BIN" --profile h100 run s.lua >plain.out 2>plain.err || fail "plain run: exit $?"
"$BIN" --profile h100 run s.lua --html out.html >html.out 2>html.err || fail "run --html: exit $? ($(cat html.err))"
cmp -s plain.out html.out || fail "run --html: the terminal shows other output than a plain run:
$(diff plain.out html.out)"
grep -q 'the page is in out.html' html.err || fail "run --html: no line naming the file: $(cat html.err)"
[ -f out.html ] || fail "no out.html"
python3 - out.html <<'PY' || fail "out.html is not the page of the run"
import base64, json, re, sys
html = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="warplab-data">(.*?)</script>', html, re.S)
assert m, "no data block"
data = json.loads(m.group(1))
run = data["runs"][-1]
kinds = [i["kind"] for i in run["items"]]
assert run["outcome"] == "ok", run["outcome"]
assert any(i["kind"] == "text" and "plain output" in i["text"] for i in run["items"]), kinds
assert any(i["kind"] == "check" and i["ok"] and i["what"] == "it holds" for i in run["items"]), kinds
assert any(i["kind"] == "table" and i["rows"] == [["1", "<one>"]] for i in run["items"]), kinds
svg = [i for i in run["items"] if i["kind"] == "svg"]
assert svg and svg[0]["name"] == "bars.svg" and svg[0]["src"].startswith("data:image/svg+xml;base64,"), svg
assert b"bars" in base64.b64decode(svg[0]["src"].split(",", 1)[1])
assert "<one>" not in html, "a string from the run is in the page as markup"
assert 'http-equiv="Content-Security-Policy"' in html
# Nothing from elsewhere: no URL but the SVG namespace and data: URIs.
urls = set(re.findall(r'(?:src|href)\s*=\s*"([^"]*)"', html)) | set(re.findall(r"https?://[^\s\"')]+", html))
assert urls <= {"data:,", "http://www.w3.org/2000/svg"}, urls
PY
# What the library sends arrives as it was: quotes, backslashes, control characters, UTF-8;
# a string that is not UTF-8 is printed as usual (the terminal has it, the page its text).
cat >odd.lua <<'LUA'
local check = require "warplab.check"
local report = require "warplab.report"
local c = check.new("odd")
c:that(true, 'quote " backslash \\ tab \t nul \0 bell \a del \127 \u{e9}\u{1F600}')
c:that(true, "not utf-8 \xff\xfe")
report.table({{'a "b"', "c\\d"}}, {title = "t\nu"})
LUA
"$BIN" --profile h100 run odd.lua --html odd.html >odd.out 2>odd.err || fail "run --html odd.lua: exit $? ($(cat odd.err))"
grep -q $'^  ok   quote " backslash \\\\ tab \t nul \0* bell' odd.out 2>/dev/null || grep -q 'quote " backslash' odd.out ||
  fail "odd.lua: the terminal lost the check: $(cat odd.out)"
python3 - odd.html <<'PY' || fail "odd.html does not hold the strings as they were"
import json, re, sys
html = open(sys.argv[1], encoding="utf-8").read()
data = json.loads(re.search(r'id="warplab-data">(.*?)</script>', html, re.S).group(1))
items = data["runs"][-1]["items"]
checks = [i["what"] for i in items if i["kind"] == "check"]
assert checks == ['quote " backslash \\ tab \t nul \0 bell \a del \x7f \u00e9\U0001F600'], checks
text = "".join(i["text"] for i in items if i["kind"] == "text")
assert "not utf-8" in text, text  # printed, not sent
t = [i for i in items if i["kind"] == "table"][0]
assert t["title"] == "t\nu" and t["rows"] == [['a "b"', "c\\d"]], t
PY

# A file or a pipe on stdin is the run's, as in a plain run.
echo 'print("read: " .. tostring(io.read("l")))' >stdin.lua
out=$(printf 'line one\n' | "$BIN" --profile h100 run stdin.lua --html stdin.html 2>/dev/null)
[ "$out" = "read: line one" ] || fail "run --html with a pipe on stdin: '$out'"
out=$("$BIN" --profile h100 run stdin.lua --html stdin.html <stdin.lua 2>/dev/null)
[ "$out" = "read: print(\"read: \" .. tostring(io.read(\"l\")))" ] || fail "run --html with a file on stdin: '$out'"

# A check line of 20 MiB is too long to send to the page: the terminal still shows it whole.
cat >long.lua <<'LUA'
require("warplab.check").new("long"):that(true, string.rep("a", 20 * 1024 * 1024))
print("after")
LUA
"$BIN" --profile h100 run long.lua >long.plain 2>/dev/null
"$BIN" --profile h100 run long.lua --html long.html >long.out 2>long.err || fail "run --html long.lua: exit $? ($(cat long.err))"
[ "$(wc -c <long.out)" -gt 20000000 ] && cmp -s long.plain long.out ||
  fail "a 20 MiB check line: the terminal shows $(wc -c <long.out) bytes, a plain run $(wc -c <long.plain)"
rm -f long.plain long.out long.html

# Written through the one writer: a file there is replaced whole, a link is not followed.
echo old >keep.html
ln -s keep.html link.html
"$BIN" --profile h100 run s.lua --html link.html >/dev/null 2>err; rc=$?
[ $rc = 4 ] || fail "--html onto a symbolic link: exit $rc, not 4"
[ "$(cat keep.html)" = old ] || fail "--html followed a symbolic link"
mkdir folder.html
"$BIN" --profile h100 run s.lua --html folder.html >/dev/null 2>err; rc=$?
[ $rc = 4 ] && [ "$(grep -c . err)" -ge 1 ] || fail "--html onto a folder: exit $rc ($(cat err))"

# An output path that is an input of the run: refused, the input untouched.
cp s.lua before.lua
"$BIN" --profile h100 run s.lua --html s.lua >out 2>err; rc=$?
[ $rc = 4 ] || fail "--html onto the script: exit $rc, not 4"
grep -q "'s.lua' is the script" err || fail "--html onto the script: $(cat err)"
[ -s out ] && fail "--html onto the script ran the script: $(cat out)"
cmp -s s.lua before.lua || fail "--html onto the script changed it"
printf '__global__ void k(float* p) { p[0] = 1; }\n' >k.cu
cp k.cu k.before
echo 'assert(cuda.compile("k.cu")) print("compiled")' >c.lua
"$BIN" --profile h100 run c.lua --html k.cu >out 2>err; rc=$?
[ $rc = 4 ] || fail "--html onto a kernel the run read: exit $rc, not 4 ($(cat err))"
grep -q "that file is there and is not a page warplab wrote" err || fail "--html onto the kernel: $(cat err)"
cmp -s k.cu k.before || fail "--html onto the kernel changed it"
# A page warplab wrote is replaced by the next; any other file there is not (a data file
# the script reads is in no record): refused before the run, in one sentence. A file the
# run itself writes is refused after it.
"$BIN" --profile h100 run s.lua --html out.html >/dev/null 2>err || fail "run --html over its own page: exit $? ($(cat err))"
printf 'x,y\n1,2\n' >data.csv
cp data.csv data.before
echo 'for l in io.lines("data.csv") do print(l) end' >reads.lua
"$BIN" --profile h100 run reads.lua --html data.csv >out 2>err; rc=$?
[ $rc = 4 ] && grep -qx "warplab: --html data.csv: that file is there and is not a page warplab wrote (remove it, or name another file); nothing was run" err ||
  fail "--html onto a data file: exit $rc ($(cat err))"
[ -s out ] && fail "--html onto a data file ran the script: $(cat out)"
cmp -s data.csv data.before || fail "--html onto a data file changed it"
echo 'local f = assert(io.open("made.csv", "w")) f:write("a,b\n") f:close() print("made")' >writes.lua
"$BIN" --profile h100 run writes.lua --html made.csv >out 2>err; rc=$?
[ $rc = 4 ] && grep -q "made.csv, which the run wrote; the page was not written" err ||
  fail "--html onto a file the run wrote: exit $rc ($(cat err))"
[ "$(cat made.csv)" = "a,b" ] || fail "--html replaced the file the run wrote: $(cat made.csv)"
# A kernel the run writes, then compiles: refused after the run; with no private temporary
# folder at all (TMPDIR unusable, /tmp read-only) there is no record of it, and the file is
# kept all the same.
cat >gen.lua <<'LUA'
local f = assert(io.open("gen.cu", "w"))
f:write("__global__ void k(float* p) { p[0] = 2; }\n")
f:close()
assert(cuda.compile("gen.cu"))
LUA
"$BIN" --profile h100 run gen.lua --html gen.cu >out 2>err; rc=$?
[ $rc = 4 ] && grep -q "gen.cu, which the run wrote; the page was not written" err ||
  fail "--html onto a kernel the run wrote: exit $rc ($(cat err))"
grep -q "p\[0\] = 2" gen.cu || fail "--html replaced the kernel the run wrote"
# (/tmp is hidden there: not when warplab itself is under /tmp.)
if unshare -m true 2>/dev/null && [ "${BIN#/tmp/}" = "$BIN" ]; then
  rm gen.cu
  unshare -m bash -c 'cd "$1" && mount -t tmpfs -o ro tmpfs /tmp && TMPDIR=/nonexistent "$2" --profile h100 run gen.lua --html gen.cu' \
    _ "$PWD" "$BIN" >out 2>err
  rc=$?
  [ $rc = 4 ] && grep -q "that file is there and is not a page warplab wrote (remove it, or name another file); the page was not written" err ||
    fail "--html onto a kernel the run wrote, without a temporary folder: exit $rc ($(cat err))"
  grep -q "p\[0\] = 2" gen.cu || fail "--html replaced the kernel the run wrote, without a temporary folder"
fi

# Usage errors.
"$BIN" --profile h100 run s.lua --port 8000 >/dev/null 2>err; rc=$?
[ $rc = 2 ] && grep -q -- "--port and --listen are for the page: add --serve" err || fail "--port alone: exit $rc ($(cat err))"
"$BIN" --profile h100 watch s.lua --listen 0.0.0.0 >/dev/null 2>err; rc=$?
[ $rc = 2 ] || fail "watch --listen alone: exit $rc ($(cat err))"
"$BIN" --profile h100 run s.lua --serve --params >/dev/null 2>err; rc=$?
[ $rc = 2 ] || fail "--serve --params: exit $rc ($(cat err))"
"$BIN" --profile h100 run s.lua --html x.html --sanitize memcheck >/dev/null 2>err; rc=$?
[ $rc = 2 ] || fail "--html --sanitize: exit $rc ($(cat err))"
"$BIN" --profile h100 run s.lua --serve --listen example.com >/dev/null 2>err; rc=$?
[ $rc = 4 ] && grep -q "is not an IP address" err || fail "--listen example.com: exit $rc ($(cat err))"

# --serve: one URL, loopback, a 32-digit token; the port when it is taken, and 20 taken.
serve_until_url() {  # serve_until_url OUT ARGS...: warplab in the background until it said its URL
  local out=$1; shift
  "$BIN" "$@" >"$out.out" 2>"$out.err" &
  PIDS+=($!)
  for _ in $(seq 200); do grep -q 'the page is at\|in use' "$out.err" 2>/dev/null && break; sleep 0.05; done
  sleep 0.2
}
# A base port with the 21 above it free, below the kernel's range for ports bound to 0
# (other tests' servers and clients take those at any moment, and the cases below need
# the very next port free).
python3 -c 'import random, socket
def free(p):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p)); return True
    except OSError:
        return False
    finally:
        s.close()
while True:
    base = random.randrange(20000, 32000)
    if all(free(p) for p in range(base, base + 22)):
        print(base); break' >port
P=$(cat port)
python3 - "$P" >taken.log 2>&1 <<'PY' &
import socket, sys, time
base = int(sys.argv[1])
held = []
for p in range(base, base + 20):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p)); s.listen(1); held.append(s)
    except OSError:
        pass
print("held", len(held), flush=True)
time.sleep(60)
PY
HOLDER=$!
PIDS+=($HOLDER)
for _ in $(seq 100); do grep -q held taken.log && break; sleep 0.05; done
"$BIN" --profile h100 watch s.lua --serve --port "$P" >/dev/null 2>err; rc=$?
if grep -q 'held 20' taken.log; then
  [ $rc = 4 ] && grep -q "ports $P to $((P + 19)) are all in use on 127.0.0.1: choose another with --port" err ||
    fail "20 taken ports: exit $rc ($(cat err))"
fi
kill "$HOLDER"; wait "$HOLDER" 2>/dev/null
python3 - "$P" >taken.log 2>&1 <<'PY' &
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1)
print("held", flush=True)
time.sleep(60)
PY
HOLDER=$!
PIDS+=($HOLDER)
for _ in $(seq 100); do grep -q held taken.log && break; sleep 0.05; done
serve_until_url one --profile h100 watch s.lua --serve --port "$P"
grep -q "^warplab: port $P is in use: serving on $((P + 1))$" one.err || fail "a taken port: $(cat one.err)"
grep -Eq "^warplab: the page is at http://127\.0\.0\.1:$((P + 1))/\?token=[0-9a-f]{32}$" one.err ||
  fail "no URL on the next port: $(cat one.err)"
[ "$(grep -c 'the page is at' one.err)" = 1 ] || fail "not one URL line: $(cat one.err)"
kill -INT "${PIDS[-1]}"
wait "${PIDS[-1]}" 2>/dev/null; rc=$?
[ $rc = 0 ] || fail "watch --serve stopped with $rc"
kill "$HOLDER"; wait "$HOLDER" 2>/dev/null
# --listen elsewhere: a warning; the URL still works on this machine.
serve_until_url any --profile h100 watch s.lua --serve --listen 0.0.0.0
grep -q "warning: --listen 0.0.0.0: other machines can reach the page" any.err || fail "no warning: $(cat any.err)"
kill -INT "${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null
# --open: $BROWSER is asked to open the page through a file only this user can read, which
# sends the browser on to the URL: the token is on no command line (`ps` shows other users
# every process's arguments). Without a private folder, the URL itself.
printf '#!/bin/sh\necho "$1" > "%s/opened"\n' "$T/w" >browser.sh
chmod +x browser.sh
BROWSER="$T/w/browser.sh" serve_until_url open --profile h100 watch s.lua --open
for _ in $(seq 100); do [ -s opened ] && break; sleep 0.05; done
url=$(sed -n 's/.*the page is at //p' open.err)
opened=$(cat opened 2>/dev/null)
file=${opened#file://}
if [ -z "$url" ] || [ "$opened" = "$file" ] || ! [ -f "$file" ]; then
  fail "--open: opened '$opened', not a file (the page is at '$url')"
else
  case "$opened" in *"${url#*token=}"*) fail "--open: the token is on the browser's command line: $opened" ;; esac
  grep -qF "content=\"0;url=$url\"" "$file" || fail "--open: $file does not send the browser to $url: $(cat "$file")"
  [ "$(stat -c %a "$file")" = 600 ] && [ "$(stat -c %a "$(dirname "$file")")" = 700 ] ||
    fail "--open: $file is $(stat -c %a "$file") in a folder $(stat -c %a "$(dirname "$file")"): others may read it"
fi
kill -INT "${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null
[ -e "$file" ] && fail "--open: $file is left after watch"
rm -f opened
printf '#!/bin/sh\necho "$1" > opened\n' >here.sh  # (the folder, under /tmp, by the working directory)
chmod +x here.sh
if unshare -m true 2>/dev/null && [ "${BIN#/tmp/}" = "$BIN" ]; then
  unshare -m bash -c 'cd "$1" && mount -t tmpfs -o ro tmpfs /tmp && exec env TMPDIR=/nonexistent BROWSER=./here.sh "$2" --profile h100 watch s.lua --open' \
    _ "$PWD" "$BIN" >noprivate.out 2>noprivate.err &
  PIDS+=($!)
  for _ in $(seq 600); do [ -s opened ] && break; sleep 0.05; done  # 30 s: a loaded machine
  url=$(sed -n 's/.*the page is at //p' noprivate.err)
  [ -n "$url" ] && [ "$(cat opened 2>/dev/null)" = "$url" ] ||
    fail "--open without a private folder: opened '$(cat opened 2>/dev/null)', printed '$url'"
  kill -INT "${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null
fi
# watch --serve --lines offline: run 1's record carries the line map (lab::lines_json's
# rows: the kernel's lines, what each compiled to), as the GPU's carries the counts.
cp "$ROOT/tests/data/scripts/conflict_lines.lua" l.lua
serve_until_url lines --profile h100 watch l.lua --serve --lines
url=$(sed -n 's/.*the page is at //p' lines.err)
python3 - "$url" >lines.log 2>&1 <<'PY' || fail "watch --serve --lines: the record has no line map: $(tail -n 3 lines.log)"
import json, sys, time, urllib.request
base, token = sys.argv[1].split("?")[0], sys.argv[1].split("token=")[1]
def get(path):
    with urllib.request.urlopen(base + path + ("&" if "?" in path else "?") + "token=" + token, timeout=10) as r:
        return json.loads(r.read())
end = time.monotonic() + 60
run = {}
while not run.get("lines") or not run.get("outcome"):
    assert time.monotonic() < end, f"no line map within 60 s: {run}"
    time.sleep(0.2)
    if get("api/state")["runs"]:
        run = get("api/run?run=1&from=0")
assert run["outcome"] == "ok", run["outcome"]
rows = {r["line"]: r for r in run["lines"]["rows"] if r["kernel"] == "conflict"}
assert "shared store" in rows[3]["kinds"] and "s[threadIdx.x * 32] = threadIdx.x;" in rows[3]["text"], rows
assert "shared load" in rows[5]["kinds"] and "global store" in rows[5]["kinds"], rows
PY
grep -q "lines (no GPU: what they compiled to)" lines.err || fail "watch --serve --lines: the terminal lost its lines: $(cat lines.err)"
kill -INT "${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null

[ $failures -eq 0 ] && echo "ok: the page's command line"
exit $((failures > 0))
