#!/usr/bin/env python3
"""peers.py: CuPy and cuda.core doing what bench/launch_raw.cpp and bench/launch.lua do,
on the same bench/launch_kernels.cu, for scripts/bench. Prints tab-separated records for
bench/report.py: "@ <section> <row> <column> <value>", or "@skip <section> <row> <why>"
when the library is missing or cannot reach a GPU; never fails the bench (exit 0).

  peers.py launch  cupy|cuda.core SRC [batches batch sustained rounds]
      host: batches of `batch` launches of empty0/2/4 then a device synchronization, the
      host time of the launch calls per launch (µs), the median over the batches;
      sustained: back-to-back launches and one synchronization, wall µs per launch.
      `rounds` times over (one record per figure and round): one process, so the import,
      the context and the compile are paid once, and each round measures what one
      process of warplab or raw C++ measures.
  peers.py compile cupy|cuda.core SRC LABEL
      in this process: the compile of SRC (RawModule / Program.compile, ms, reported
      under LABEL: "cold" or "cache hit", which the caller knows from the cache folder);
      after a cache hit also the compile with the load, the first launch of empty0 and
      its synchronization.
  peers.py context cupy|cuda.core
      imports the library and synchronizes the device: a process's fixed start cost.
"""
import statistics
import sys
import time

ROWS = {"cupy": "CuPy RawKernel", "cuda.core": "cuda.core launch"}
COMPILE_ROWS = {"cupy": "CuPy RawModule", "cuda.core": "cuda.core Program"}


def record(section, row, column, value):
    print(f"@\t{section}\t{row}\t{column}\t{value:.4f}", flush=True)


def skip(section, row, why):
    print(f"@skip\t{section}\t{row}\t{why}", flush=True)


class Cupy:
    """The empty kernels through cupy.RawModule / RawKernel calls."""

    def __init__(self, src=None):
        import cupy as cp
        import numpy as np
        self.cp, self.np = cp, np
        self.src = src

    def sync(self):
        self.cp.cuda.runtime.deviceSynchronize()

    def compile(self):
        mod = self.cp.RawModule(code=self.src)
        return mod, mod.get_function("empty0")  # get_function compiles and loads

    def first_launch(self, k0):
        k0((1,), (32,), ())

    def runs(self):
        np, cp = self.np, self.cp
        mod, k0 = self.compile()
        k2, k4 = mod.get_function("empty2"), mod.get_function("empty4")
        y, x = cp.zeros(32, dtype=cp.int32), cp.zeros(32, dtype=cp.float32)
        g, b = (1,), (32,)
        a0, a2, a4 = (), (y, np.int32(32)), (x, np.int32(32), np.float32(2.0), np.int32(7))

        def r0(n):
            for _ in range(n):
                k0(g, b, a0)

        def r2(n):
            for _ in range(n):
                k2(g, b, a2)

        def r4(n):
            for _ in range(n):
                k4(g, b, a4)
        return [r0, r2, r4]


class CudaCore:
    """The empty kernels through cuda.core's Program and launch()."""

    def __init__(self, src=None):
        from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch
        import numpy as np
        self.np, self.launch, self.Program, self.ProgramOptions = np, launch, Program, ProgramOptions
        self.dev = Device(0)
        self.dev.set_current()
        try:  # the legacy default stream, as raw C++, warplab and CuPy launch on (0.6.0+)
            from cuda.core import LEGACY_DEFAULT_STREAM
            self.stream = LEGACY_DEFAULT_STREAM
        except ImportError:
            self.stream = self.dev.default_stream
        self.config = LaunchConfig(grid=1, block=32)
        self.src = src

    def sync(self):
        self.dev.sync()

    def compile(self):
        cc = self.dev.compute_capability
        opts = self.ProgramOptions(arch=f"sm_{cc[0]}{cc[1]}")
        obj = self.Program(self.src, code_type="c++", options=opts).compile("cubin")
        return obj, obj.get_kernel("empty0")

    def first_launch(self, k0):
        self.launch(self.stream, self.config, k0)

    def runs(self):
        np, launch, s, c = self.np, self.launch, self.stream, self.config
        obj, k0 = self.compile()
        k2, k4 = obj.get_kernel("empty2"), obj.get_kernel("empty4")
        buf = self.dev.allocate(128, stream=self.stream)  # cuda.core 1.x: the stream is keyword-only
        n32, a, b = np.int32(32), np.float32(2.0), np.int32(7)

        def r0(n):
            for _ in range(n):
                launch(s, c, k0)

        def r2(n):
            for _ in range(n):
                launch(s, c, k2, buf, n32)

        def r4(n):
            for _ in range(n):
                launch(s, c, k4, buf, n32, a, b)
        return [r0, r2, r4]


PEERS = {"cupy": Cupy, "cuda.core": CudaCore}


def host_us(peer, run, batches, batch):
    per = []
    for _ in range(batches):
        t0 = time.perf_counter_ns()
        run(batch)
        per.append((time.perf_counter_ns() - t0) / 1000 / batch)
        peer.sync()
    return statistics.median(per)


def sustained_us(peer, run, n):
    t0 = time.perf_counter_ns()
    run(n)
    peer.sync()
    return (time.perf_counter_ns() - t0) / 1000 / n


def cmd_launch(name, src, batches=200, batch=64, sustained=20000, rounds=1):
    peer = PEERS[name](src)
    runs = peer.runs()
    for _ in range(rounds):
        for i, run in enumerate(runs):
            run(1000)  # loads the code, warms the path
            peer.sync()
            record("launch", ROWS[name], f"{2 * i} args", host_us(peer, run, batches, batch))
            record("sustained", ROWS[name], f"{2 * i} args", sustained_us(peer, run, sustained))


def cmd_compile(name, src, label):
    peer = PEERS[name](src)
    peer.sync()  # the context exists before the clock starts
    t1 = time.perf_counter()
    _, k0 = peer.compile()
    t2 = time.perf_counter()
    peer.first_launch(k0)
    peer.sync()
    t3 = time.perf_counter()
    record("compile", COMPILE_ROWS[name], f"compile, {label} (ms)", 1000 * (t2 - t1))
    if label == "cache hit":
        record("compile", COMPILE_ROWS[name], "compile (cache hit) + load + 1st launch (ms)", 1000 * (t3 - t1))


def cmd_context(name):
    PEERS[name]().sync()


def main(argv):
    if len(argv) < 3 or argv[1] not in ("launch", "compile", "context") or argv[2] not in PEERS:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, name = argv[1], argv[2]
    section = {"launch": "launch", "compile": "compile", "context": "compile"}[cmd]
    row = ROWS[name] if cmd == "launch" else COMPILE_ROWS[name]
    try:
        src = None
        if cmd != "context":
            with open(argv[3], encoding="utf-8") as f:
                src = f.read()
        if cmd == "launch":
            cmd_launch(name, src, *(int(v) for v in argv[4:8]))
        elif cmd == "compile":
            cmd_compile(name, src, argv[4] if len(argv) > 4 else "cold")
        else:
            cmd_context(name)
    except ImportError as e:
        skip(section, row, f"{name} is not installed ({e})")
        if cmd == "launch":
            skip("sustained", row, f"{name} is not installed")
    except Exception as e:  # no GPU, a driver error, an API this version lacks: a row, not a failure
        why = f"{type(e).__name__}: {e}".splitlines()[0][:160]
        skip(section, row, why)
        if cmd == "launch":
            skip("sustained", row, why)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
