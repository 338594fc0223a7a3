#!/usr/bin/env python3
"""report.py: scripts/bench's tables, from the records its measuring programs print:
  "@ <section> <row> <column> <value>"  one figure of one run (tab-separated)
  "@skip <section> <row> <why>"         a row that could not be measured
Every cell is the median over the runs with the spread: "4.13 (4.09–4.21)". Rows and
columns keep the order they first appear in. The launch tables add each cell's ratio to
the raw C++ row, the graphs tables each replay's to raw C++ replay (and each stream row's to
raw C++ stream launches, each build's to raw C++ capture + instantiate or capture +
update); then the targets are checked against the medians.
Usage: report.py RECORDS SECTION...
  (launch sustained compile startup host host-evict watch watch-page targets watch-targets graphs graphs-host
   graphs-build graph-targets)
"""
import statistics
import sys

RAW = "raw C++ cuLaunchKernel"
TITLES = {
    "launch": "host µs per launch: batches of 64 launches then a synchronization, the launch calls only "
              "(the queue never fills); per run the median over the batches",
    "sustained": "µs per launch back to back (the queue fills: the slower of the host and the GPU's launch rate)",
    "compile": "compile and first launch, bench/launch_kernels.cu (ms); cold runs use a fresh cache folder",
    "startup": "process start: wall time and peak resident memory of one command",
    "watch": "warplab watch, ms from the save (the file written) to the new output line, the resource line "
             "and the re-run's start; each edit made once the next run was ready",
    "host": "the launch path's host cost through the stand-in driver (it runs nothing): ns per launch, "
            "the launch section's host figure",
}
TITLES["watch-page"] = ("warplab watch --serve, script edits: ms from the save to the new output line with no page "
                        "open and with one, and from the line on the terminal to the line in the page's data")
TITLES["host-evict"] = ("the same, each stand-in launch writing 256 KiB (HOST_EVICT) as a real driver's launch "
                        "evicts the caller's code and data from the CPU caches: ns per launch, ×raw")
TITLES["graphs"] = ("µs per kernel, wall: N empty kernels launched one by one, or one replay of the N captured in "
                    "a graph, then a stream synchronization (best of 5 trials per run); ×raw: against raw C++ "
                    "replay (stream rows: raw C++ stream launches)")
TITLES["graphs-host"] = "µs per kernel of the launch calls alone (N cuLaunchKernel, or one graph launch), ×raw as above"
TITLES["graphs-build"] = ("µs for the whole graph: capture, instantiate, update in place (warplab's cuda.graph is "
                          "capture + instantiate, its g:update capture + update: ×raw against the raw C++ sums)")
SCALE = {"host": 1000.0, "host-evict": 1000.0}  # µs records shown in ns
GRAPH_RAW = {"replay": "raw C++ graph replay", "stream": "raw C++ stream launches"}


def read(path):
    cells, skips, rows, cols = {}, {}, {}, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if parts[0] == "@" and len(parts) == 5:
                sec, row, col, val = parts[1:]
                try:
                    cells.setdefault((sec, row, col), []).append(float(val))
                except ValueError:
                    continue
                rows.setdefault(sec, {}).setdefault(row, None)
                cols.setdefault(sec, {}).setdefault(col, None)
            elif parts[0] == "@skip" and len(parts) >= 4:
                sec, row = parts[1], parts[2]
                skips.setdefault((sec, row), "\t".join(parts[3:]))
                rows.setdefault(sec, {}).setdefault(row, None)
    return cells, skips, {s: list(r) for s, r in rows.items()}, {s: list(c) for s, c in cols.items()}


def num(v):
    return f"{v:.3g}" if abs(v) < 100 else f"{v:.0f}"


def cell(values):
    m = statistics.median(values)
    if len(values) == 1:
        return num(m)
    return f"{num(m)} ({num(min(values))}–{num(max(values))})"


def table(sec, cells, skips, rows, cols):
    out = [f"| {sec} | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for row in rows:
        texts = []
        for col in cols:
            v = cells.get((sec, row, col))
            if not v:
                texts.append("")
                continue
            scale = SCALE.get(sec, 1.0)
            text = cell([x * scale for x in v])
            raw = cells.get((sec, RAW, col))
            if sec in ("launch", "sustained", "host-evict") and raw and row != RAW:
                text += f" ×{statistics.median(v) / statistics.median(raw):.2f}"
            base = graph_base(cells, sec, row, col)
            if base:
                text += f" ×{statistics.median(v) / base:.2f}"
            texts.append(text)
        if (sec, row) in skips and not any(texts):
            texts = [f"skipped: {skips[(sec, row)]}"] + [""] * (len(cols) - 1)
        out.append(f"| {row} | " + " | ".join(texts) + " |")
    return out


def median(cells, key):
    v = cells.get(key)
    return statistics.median(v) if v else None


def graph_base(cells, sec, row, col):
    """The raw C++ median a graphs cell is compared with (None: the row is raw C++ itself)."""
    if not sec.startswith("graphs") or row.startswith("raw C++"):
        return None
    if sec == "graphs-build":
        parts = ("capture", "instantiate") if "instantiate" in row else ("capture", "update")
        meds = [median(cells, (sec, f"raw C++ {p}", col)) for p in parts]
        return sum(meds) if all(m is not None for m in meds) else None
    return median(cells, (sec, GRAPH_RAW["replay" if "replay" in row else "stream"], col))


def build_target(cells, row, what, limit, n):
    """One graphs-build target line: warplab's median against raw C++'s, as the sum of the
    parts' own bests (the table's ×raw) and as one window timed as warplab's is."""
    lua = median(cells, ("graphs-build", row, n))
    base = graph_base(cells, "graphs-build", row, n)
    if lua is None or not base:
        return None
    line = (f"target {what} of {n} from Lua: {num(lua)} µs = ×{lua / base:.3f} raw C++ "
            f"(the parts' sum; ≤ {limit}: {'met' if lua <= limit * base else 'NOT met'})")
    destroy = median(cells, ("graphs-build", "raw C++ destroy", n)) if "update" in what else None
    if destroy:  # g:update also destroys the graph it replaces, which the parts' sum leaves out
        whole = base + destroy
        line += (f", ×{lua / whole:.3f} the parts with the destroy of the graph it replaces "
                 f"(+{num(destroy)} µs; ≤ {limit}: {'met' if lua <= limit * whole else 'NOT met'})")
    one = median(cells, ("graphs-build", f"raw C++ {what}, one window", n))
    if one:
        line += (f", ×{lua / one:.3f} raw C++ timed in one window as warplab is "
                 f"(≤ {limit}: {'met' if lua <= limit * one else 'NOT met'})")
    return line


def graph_targets(cells, rows):
    """The graphs targets at 100 kernels, against the medians: one line each."""
    out, n = [], "100 kernels"
    w = median(cells, ("graphs", "warplab graph replay", n))
    raw = median(cells, ("graphs", "raw C++ graph replay", n))
    loop = median(cells, ("graphs", "raw C++ stream launches", n))
    if w is not None and raw is not None:
        peers = []
        for peer in ("cuda.core graph replay", "CuPy graph replay"):
            p = median(cells, ("graphs", peer, n))
            if p is not None:
                peers.append(f"{'faster' if w < p else 'NOT faster'} than {peer} ({num(p)})")
        line = (f"target warplab replay at {n}: {num(w)} µs per kernel = ×{w / raw:.3f} raw C++ replay "
                f"(≤ 1.05: {'met' if w <= 1.05 * raw else 'NOT met'})")
        if loop is not None:
            line += f", ×{w / loop:.2f} a raw cuLaunchKernel loop (≤ 0.30: {'met' if w <= 0.30 * loop else 'NOT met'})"
        out.append(line + ("; " + ", ".join(peers) if peers else ""))
    for row, what, limit in (("warplab cuda.graph (capture + instantiate)", "capture + instantiate", 1.2),
                             ("warplab g:update (capture + update)", "capture + update", 1.3)):
        line = build_target(cells, row, what, limit, n)
        if line:
            out.append(line)
    return out


def targets(cells, rows):
    """The launch targets, against the medians: one line each."""
    out = []
    for row in rows.get("launch", []):
        if not row.startswith("warplab"):
            continue
        for n in ("0 args", "2 args", "4 args"):
            w, raw = median(cells, ("launch", row, n)), median(cells, ("launch", RAW, n))
            if w is None or raw is None:
                continue
            verdict = "met" if w <= 1.05 * raw else "NOT met"
            peers = []
            for peer in ("CuPy RawKernel", "cuda.core launch"):
                p = median(cells, ("launch", peer, n))
                if p is not None:
                    peers.append(f"{'faster' if w < p else 'NOT faster'} than {peer} ({num(p)})")
            out.append(f"target {row}, {n}: {num(w)} µs = ×{w / raw:.3f} raw (≤ 1.05: {verdict})"
                       + ("; " + ", ".join(peers) if peers else ""))
    first = median(cells, ("compile", "warplab", "new process to 1st launch (ms)"))
    ctx = median(cells, ("compile", "warplab", "new process, context only (ms)"))
    if first is not None and ctx is not None:
        out.append(f"target cache hit, new process to first launch: {num(first - ctx)} ms over the process's "
                   f"start with its context (≤ 2: {'met' if first - ctx <= 2 else 'NOT met'})")
    attrs = median(cells, ("startup", "warplab attrs (offline)", "wall (ms)"))
    if attrs is not None:
        out.append(f"target warplab attrs offline: {num(attrs)} ms wall (≤ 20: {'met' if attrs <= 20 else 'NOT met'})")
    return out


def watch_targets(cells):
    """The start-up and watch targets, against the medians; a watch row counts with a GPU
    (a new output line after a kernel edit) only."""
    out = []
    for row, limit in (("warplab --version", 20), ("warplab run, a script without the GPU", 40)):
        m = median(cells, ("startup", row, "wall (ms)"))
        if m is not None:
            out.append(f"target {row}: {num(m)} ms wall (≤ {limit}: {'met' if m <= limit else 'NOT met'})")
    col = "save → new output line (ms)"
    if median(cells, ("watch", "plain kernel edit", col)) is not None:
        for row, limit in (("script edit", 60), ("plain kernel edit", 100), ("cooperative-groups kernel edit", 400)):
            m = median(cells, ("watch", row, col))
            if m is not None:
                out.append(f"target watch, {row}: {num(m)} ms from the save to the new output line "
                           f"(≤ {limit}: {'met' if m <= limit else 'NOT met'})")
    elif cells.get(("watch", "script edit", col)):
        out.append("watch targets: need a GPU (a kernel edit's new output line)")
    m = median(cells, ("watch-page", "a page open", "terminal → page (ms)"))
    if m is not None:
        out.append(f"target watch --serve: {num(m)} ms from the terminal to the page (≤ 50: {'met' if m <= 50 else 'NOT met'})")
    return out


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cells, skips, rows, cols = read(argv[1])
    for sec in argv[2:]:
        if sec == "targets":
            print("\n".join(targets(cells, rows)))
            continue
        if sec == "watch-targets":
            print("\n".join(watch_targets(cells)))
            continue
        if sec == "graph-targets":
            print("\n".join(graph_targets(cells, rows)))
            continue
        if sec not in rows:
            continue
        print(f"{TITLES.get(sec, sec)}\n")
        print("\n".join(table(sec, cells, skips, rows[sec], cols.get(sec) or ["result"])))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
