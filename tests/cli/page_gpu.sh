#!/usr/bin/env bash
# page_gpu.sh (GPU): the page of a real `warplab watch --serve --counters shared` of
# examples/memory/banks.lua, fetched with a plain HTTP client (Python's urllib: a GPU host
# has no browser): the page itself, then run 1's record: its checks all passed (the timing
# and the counters' witness), its summary, its tables, the pictures it wrote (served as
# SVG), the counters table of its launches, and the counters the watcher said; the
# annotated source only with --lines. Then `watch --serve --lines` of the same experiment:
# run 1's record carries the annotated source, with the conflicted shared-memory line
# (wavefronts above the ideal) of its kernel. Skips (77) without a GPU.
# Usage: bash page_gpu.sh <warplab binary> <source root>
set -u
W=$1 ROOT=$2
T="$(mktemp -d)"
WPID=""
cleanup() { [ -n "$WPID" ] && kill -KILL "$WPID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- stderr"; tail -n 30 "$T/err"; exit 1; }
echo 'print(cuda.device().live)' >"$T/probe.lua"
[ "$("$W" -q run "$T/probe.lua" 2>/dev/null)" = "true" ] || { echo "skip: no GPU"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
cd "$T" || exit 1
"$W" watch "$ROOT/examples/memory/banks.lua" --serve --counters shared -p reps=2 -p save=true >out 2>err &
WPID=$!
for _ in $(seq 400); do grep -q 'the page is at' err && break; sleep 0.05; done
URL=$(sed -n 's/^warplab: the page is at //p' err)
[ -n "$URL" ] || fail "no URL"
python3 - "$URL" <<'PY' || fail "the page's content"
import json, sys, time, urllib.error, urllib.request
url = sys.argv[1]
base, token = url.split("?")[0], url.split("token=")[1]
def get(path, raw=False):
    with urllib.request.urlopen(base + path + ("&" if "?" in path else "?") + "token=" + token, timeout=30) as r:
        body = r.read()
        return (r.headers.get("Content-Type"), body) if raw else json.loads(body)
kind, page = get("", raw=True)
assert kind.startswith("text/html") and b"<title>warplab</title>" in page, kind
end = time.monotonic() + 300
while True:
    runs = get("api/state")["runs"]
    if runs and runs[0]["outcome"]:
        break
    assert time.monotonic() < end, "run 1 did not end within 300 s"
    time.sleep(0.5)
run = get("api/run?run=1&from=0")
assert run["outcome"] == "ok", (run["outcome"], run["line"], [i.get("text") for i in run["items"]][-10:])
end = time.monotonic() + 20  # the watcher's counters come just after the run's end
while not any(i["kind"] == "counters" for i in run["items"]) and time.monotonic() < end:
    time.sleep(0.5)
    run = get("api/run?run=1&from=0")
time.sleep(1)
run = get("api/run?run=1&from=0")
items = run["items"]
kinds = [i["kind"] for i in items]
assert run["outcome"] == "ok", (run["outcome"], run["line"])
checks = [i for i in items if i["kind"] == "check"]
assert len(checks) >= 10 and all(c["ok"] for c in checks), [(c["what"], c["ok"]) for c in checks]
assert any("the counters see" in c["what"] for c in checks), "no counters witness among the checks"
summary = [i for i in items if i["kind"] == "summary"]
assert summary and summary[-1]["name"] == "banks" and summary[-1]["failed"] == 0, summary
tables = [i for i in items if i["kind"] == "table"]
assert any((t["title"] or "").startswith("one block of") for t in tables), [t["title"] for t in tables]
svgs = [i for i in items if i["kind"] == "svg"]
assert {s["name"] for s in svgs} >= {"results/banks_predicted.svg", "results/banks.svg"}, svgs
for s in svgs:
    kind, body = get(f"api/svg?run=1&id={s['id']}", raw=True)
    assert kind == "image/svg+xml" and body.startswith(b"<svg"), (s["name"], kind)
counters = [i["counters"] for i in items if i["kind"] == "counters"]
assert counters and any("bank_cycles" in (r["kernel"] or "") for r in counters[0]["rows"]), counters
names = [c["name"] for c in counters[0]["counters"]]
assert any("conflicts" in n for n in names), names
assert any(isinstance(v, (int, float)) for r in counters[0]["rows"] for v in r["values"].values())
notes = "\n".join(i["text"] for i in items if i["kind"] == "note")
assert "counters:" in notes, notes
print(f"run 1: {len(checks)} checks passed, {len(tables)} tables, {len(svgs)} pictures, "
      f"{len(counters[0]['rows'])} counter rows of {len(names)} counters")
assert not run["lines"], "an annotated source without --lines"
PY
kill -INT "$WPID"
wait "$WPID"; rc=$?
WPID=""
[ $rc = 0 ] || fail "watch --serve stopped with $rc"

# The annotated source: watch --serve --lines.
"$W" watch "$ROOT/examples/memory/banks.lua" --serve --lines -p reps=2 >out2 2>err &
WPID=$!
for _ in $(seq 400); do grep -q 'the page is at' err && break; sleep 0.05; done
URL=$(sed -n 's/^warplab: the page is at //p' err)
[ -n "$URL" ] || fail "no URL (--lines)"
python3 - "$URL" <<'PY' || fail "the page's annotated source"
import json, sys, time, urllib.request
url = sys.argv[1]
base, token = url.split("?")[0], url.split("token=")[1]
def get(path):
    with urllib.request.urlopen(base + path + ("&" if "?" in path else "?") + "token=" + token, timeout=30) as r:
        return json.loads(r.read())
end = time.monotonic() + 300
while True:
    runs = get("api/state")["runs"]
    if runs and runs[0]["outcome"]:
        break
    assert time.monotonic() < end, "run 1 (--lines) did not end within 300 s"
    time.sleep(0.5)
end = time.monotonic() + 20
run = get("api/run?run=1&from=0")
while not run["lines"] and time.monotonic() < end:
    time.sleep(0.5)
    run = get("api/run?run=1&from=0")
# Its timing checks ran on patched kernels and the counters' witness is left out under
# --lines: a check may fail (exit 1, "failed"); an error ("stopped") may not.
assert run["outcome"] in ("ok", "failed"), (run["outcome"], run["line"])
lines = run["lines"]
assert lines and lines["rows"], "no annotated source with --lines"
assert "shared" in lines["columns"], lines["columns"]
rows = [r for r in lines["rows"] if "bank" in (r["kernel"] or "")]
assert rows, sorted({r["kernel"] for r in lines["rows"]})
conflicted = [r for r in rows if (r["shared_wavefronts"] or 0) > (r["shared_ideal"] or 0) > 0]
assert conflicted, [(r["line"], r["text"], r["shared_wavefronts"], r["shared_ideal"]) for r in rows]
r = max(conflicted, key=lambda r: r["shared_wavefronts"] / r["shared_ideal"])
print(f"annotated source: {len(lines['rows'])} rows; {r['kernel']} line {r['line']} ({r['text'].strip()}): "
      f"{r['shared_wavefronts']:.0f} wavefronts, ideal {r['shared_ideal']:.0f}")
PY
kill -INT "$WPID"
wait "$WPID"; rc=$?
WPID=""
[ $rc = 0 ] || fail "watch --serve --lines stopped with $rc"
echo ok
