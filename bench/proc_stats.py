#!/usr/bin/env python3
"""proc_stats.py: wall time and peak resident memory of a command, for scripts/bench.
Runs the command once untimed (to warm the page cache), then REPS times (stdin from
--stdin TEXT, or empty; stderr kept for a failure's message) and prints, per timed run,
the records "@ <section> <row> <wall column> <ms>" and "@ <section> <row> <rss column>
<MiB>" (tab-separated, for bench/report.py). Lines the command itself prints that start
with "@" pass through, so a measuring script can add its own figures; when it reports
"@skip", its run adds no wall and memory figures. The peak is the kernel's count for the
child and the children it waited for (os.wait4): a program's helpers count too. A command
that fails prints "@skip <section> <row> exit <status>: <its last stderr line>" and stops;
one that runs past 60 s is killed and reported the same way.
Usage: proc_stats.py [--stdin TEXT] [--env NAME=VALUE]... [--wall COLUMN] [--rss COLUMN|""]
                     SECTION ROW REPS -- COMMAND...
"""
import os
import subprocess
import sys
import tempfile
import threading
import time

TIMEOUT_S = 60  # a run that takes longer is killed and reported as a skip


def run_once(cmd, env, stdin_text):
    """(exit status, wall seconds, peak RSS KiB, stdout lines, last stderr line)"""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as inp:
        if stdin_text is not None:
            inp.write(stdin_text.encode())
            inp.seek(0)
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdin=inp, stdout=out, stderr=err, env=env)
        timer = threading.Timer(TIMEOUT_S, p.kill)  # the wait below stays exact
        timer.start()
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        lines = out.read().decode(errors="replace").splitlines()
        errs = err.read().decode(errors="replace").strip().splitlines()
        return p.returncode, wall, usage.ru_maxrss, lines, errs[-1] if errs else ""


def main(argv):
    stdin_text, env, wall_col, rss_col = None, dict(os.environ), "wall (ms)", "peak RSS (MiB)"
    args = argv[1:]
    while args and args[0].startswith("--") and args[0] != "--":
        opt, value = args.pop(0), args.pop(0) if len(args) > 0 else ""
        if opt == "--stdin":
            stdin_text = value
        elif opt == "--env":
            name, _, v = value.partition("=")
            env[name] = v
        elif opt == "--wall":
            wall_col = value
        elif opt == "--rss":
            rss_col = value
        else:
            print(f"proc_stats: unknown option {opt}", file=sys.stderr)
            return 2
    if len(args) < 5 or args[3] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    section, row, reps, cmd = args[0], args[1], int(args[2]), args[4:]
    for rep in range(reps + 1):
        try:
            rc, wall, rss, lines, last_err = run_once(cmd, env, stdin_text)
        except OSError as e:
            print(f"@skip\t{section}\t{row}\t{e}", flush=True)
            return 0
        if rc != 0:
            why = f"killed after {TIMEOUT_S} s" if wall >= TIMEOUT_S else f"exit {rc}: {last_err}"
            print(f"@skip\t{section}\t{row}\t{why}"[:240], flush=True)
            return 0
        if rep == 0:
            continue  # the untimed warm-up
        records = [line for line in lines if line.startswith("@")]
        for line in records:
            print(line, flush=True)
        if any(line.startswith("@skip") for line in records):
            continue
        print(f"@\t{section}\t{row}\t{wall_col}\t{1000 * wall:.3f}", flush=True)
        if rss_col:
            print(f"@\t{section}\t{row}\t{rss_col}\t{rss / 1024:.1f}", flush=True)  # ru_maxrss: KiB
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
