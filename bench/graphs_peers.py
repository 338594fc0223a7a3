#!/usr/bin/env python3
"""graphs_peers.py: CuPy and cuda.core doing what bench/graphs_raw.cpp and bench/graphs.lua
do, on the same bench/launch_kernels.cu, for the graphs section of scripts/bench: N launches
of empty2 (1 block of 32) captured once on a non-blocking stream (stream capture) and
replayed, for each N. Prints tab-separated records for bench/report.py, "@ <section> <row>
<N kernels> <value>", or "@skip <section> <row> <why>" when the library is missing or
cannot reach a GPU; never fails the bench (exit 0).

  graphs_peers.py cupy|cuda.core SRC [sizes = 1,10,100,1000] [rounds = 1] [trials = 5]

Each figure is the best of `trials`, `rounds` times over (one record per figure and round,
in one process: the import, the context and the compile are paid once):
  graphs        wall µs per kernel: one replay and a stream synchronization, averaged over
                max(5, 10000 / N) replays;
  graphs-host   µs per kernel of the replay call alone;
  graphs-build  µs for the capture of the N launches and the graph's instantiation.
"""
import sys
import time

ROWS = {"cupy": ("CuPy graph replay", "CuPy capture + instantiate"),
        "cuda.core": ("cuda.core graph replay", "cuda.core capture + instantiate")}


def record(section, row, n, value):
    print(f"@\t{section}\t{row}\t{n} kernels\t{value:.4f}", flush=True)


def skip(section, row, why):
    print(f"@skip\t{section}\t{row}\t{why}", flush=True)


class Cupy:
    """empty2 through cupy.RawModule, captured with Stream.begin_capture / end_capture."""

    def __init__(self, src):
        import cupy as cp
        import numpy as np
        self.cp = cp
        self.k = cp.RawModule(code=src).get_function("empty2")
        self.y, self.arg = cp.zeros(32, dtype=cp.int32), np.int32(7)
        self.stream = cp.cuda.Stream(non_blocking=True)

    def build(self, n):
        k, y, arg, s = self.k, self.y, self.arg, self.stream
        with s:
            s.begin_capture()
            for _ in range(n):
                k((1,), (32,), (y, arg))
            return s.end_capture()  # instantiated

    def launch(self, g):
        g.launch(self.stream)

    def sync(self):
        self.stream.synchronize()


class CudaCore:
    """empty2 through cuda.core's Program and launch(), captured with a GraphBuilder."""

    def __init__(self, src):
        from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch
        import numpy as np
        self.launch_fn = launch
        dev = Device(0)
        dev.set_current()
        cc = dev.compute_capability
        opts = ProgramOptions(arch=f"sm_{cc[0]}{cc[1]}")
        self.k = Program(src, code_type="c++", options=opts).compile("cubin").get_kernel("empty2")
        self.stream = dev.create_stream()  # non-blocking
        self.buf = dev.allocate(128, stream=self.stream)
        self.config = LaunchConfig(grid=1, block=32)
        self.arg = np.int32(7)

    def build(self, n):
        gb = self.stream.create_graph_builder()
        gb.begin_building()
        for _ in range(n):
            self.launch_fn(gb, self.config, self.k, self.buf, self.arg)
        gb.end_building()
        return gb.complete()  # instantiated

    def launch(self, g):
        g.launch(self.stream)

    def sync(self):
        self.stream.sync()


PEERS = {"cupy": Cupy, "cuda.core": CudaCore}


def best_of(trials, f):
    return min(f() for _ in range(trials))


def measure(peer, name, n, trials):
    replay_row, build_row = ROWS[name]

    def build():
        t0 = time.perf_counter_ns()
        peer.build(n)
        return (time.perf_counter_ns() - t0) / 1000
    record("graphs-build", build_row, n, best_of(trials, build))
    g = peer.build(n)
    peer.launch(g)  # uploads the graph
    peer.sync()
    reps, host = max(5, 10000 // n), [float("inf")]

    def replay():
        calls, t0 = 0, time.perf_counter_ns()
        for _ in range(reps):
            c0 = time.perf_counter_ns()
            peer.launch(g)
            calls += time.perf_counter_ns() - c0
            peer.sync()
        host[0] = min(host[0], calls / 1000 / reps / n)
        return (time.perf_counter_ns() - t0) / 1000 / reps / n
    record("graphs", replay_row, n, best_of(trials, replay))
    record("graphs-host", replay_row, n, host[0])


def main(argv):
    if len(argv) < 3 or argv[1] not in PEERS:
        print(__doc__, file=sys.stderr)
        return 2
    name = argv[1]
    sizes = [int(v) for v in (argv[3] if len(argv) > 3 else "1,10,100,1000").split(",") if v]
    rounds = int(argv[4]) if len(argv) > 4 else 1
    trials = int(argv[5]) if len(argv) > 5 else 5
    try:
        with open(argv[2], encoding="utf-8") as f:
            src = f.read()
        peer = PEERS[name](src)
        g = peer.build(1000)  # loads the code, warms the path
        peer.launch(g)
        peer.sync()
        for _ in range(rounds):
            for n in sizes:
                measure(peer, name, n, trials)
    except ImportError as e:
        for sec, row in (("graphs", ROWS[name][0]), ("graphs-host", ROWS[name][0]), ("graphs-build", ROWS[name][1])):
            skip(sec, row, f"{name} is not installed ({e})")
    except Exception as e:  # no GPU, a driver error, an API this version lacks: a row, not a failure
        why = f"{type(e).__name__}: {e}".splitlines()[0][:160]
        for sec, row in (("graphs", ROWS[name][0]), ("graphs-host", ROWS[name][0]), ("graphs-build", ROWS[name][1])):
            skip(sec, row, why)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
