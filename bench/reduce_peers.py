#!/usr/bin/env python3
"""reduce_peers.py: cupy.sum and torch.sum over n float32 in [0, 1), timed as
bench/cub_reduce.cu and bench/reduce.lua time theirs: a pair of CUDA events around each
call, 10 warm-up calls, the median of reps; `rounds` times over in this one process (the
imports, the context and the data are paid once; scripts/bench runs the other peers once
per round). Each library's result is checked once against its own float64 sum (1e-4
relative). Prints one line per library and round: "<name> <ms> <GB/s>"; a library that is
missing prints "<name> skipped: <why>" on stderr. Used by scripts/bench.
Usage: python3 bench/reduce_peers.py [n = 2^28] [reps = 100] [rounds = 1]
"""
import statistics
import sys


class Cupy:
    name = "cupy.sum"

    def __init__(self, n):
        import cupy as cp
        self.cp = cp
        self.x = cp.random.default_rng(1).random(n, dtype=cp.float32)
        self.out = cp.empty((), dtype=cp.float32)

    def sum(self):
        self.cp.sum(self.x, out=self.out)

    def time_ms(self, reps):
        cp = self.cp
        for _ in range(10):
            self.sum()
        times = []
        for _ in range(reps):
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            self.sum()
            b.record()
            times.append((a, b))
        times[-1][1].synchronize()
        return statistics.median(cp.cuda.get_elapsed_time(a, b) for a, b in times)

    def check(self):
        return float(self.out), float(self.cp.sum(self.x, dtype=self.cp.float64))


class Torch:
    name = "torch.sum"

    def __init__(self, n):
        import torch
        self.torch = torch
        g = torch.Generator(device="cuda").manual_seed(1)
        self.x = torch.rand(n, dtype=torch.float32, device="cuda", generator=g)
        self.out = torch.empty((), dtype=torch.float32, device="cuda")

    def sum(self):
        self.torch.sum(self.x, dim=0, out=self.out)

    def time_ms(self, reps):
        torch = self.torch
        for _ in range(10):
            self.sum()
        times = []
        for _ in range(reps):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            self.sum()
            b.record()
            times.append((a, b))
        torch.cuda.synchronize()
        return statistics.median(a.elapsed_time(b) for a, b in times)

    def check(self):
        return float(self.out), float(self.torch.sum(self.x, dtype=self.torch.float64))


def main():
    n = int(sys.argv[1], 0) if len(sys.argv) > 1 else 1 << 28
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    peers = []
    for cls in (Cupy, Torch):
        try:
            peers.append(cls(n))
        except Exception as e:  # a missing module or no GPU: say so, go on
            print(f"{cls.name} skipped: {type(e).__name__}: {e}", file=sys.stderr)
    failed = False
    for r in range(rounds):
        for p in list(peers):
            try:
                ms = p.time_ms(reps)
            except Exception as e:
                print(f"{p.name} skipped: {type(e).__name__}: {e}", file=sys.stderr)
                peers.remove(p)
                continue
            print(f"{p.name} {ms:.4f} {4 * n / (ms * 1e6):.1f}", flush=True)
            if r > 0:
                continue
            got, want = p.check()
            rel = abs(got - want) / want
            print(f"{p.name}: n = {n}, sum {got:.9g}, float64 {want:.9g}, relative error {rel:.2e}", file=sys.stderr)
            if not rel <= 1e-4:
                print(f"{p.name}: FAIL: off by {rel:.2e} relative (limit 1e-4)", file=sys.stderr)
                failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
