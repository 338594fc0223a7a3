#!/usr/bin/env python3
"""reduce_peers.py: cupy.sum and torch.sum over n float32 in [0, 1), timed as
bench/cub_reduce.cu and bench/reduce.lua time theirs: a pair of CUDA events around each
call, 10 warm-up calls, the median of reps. Each result is checked against the library's
own float64 sum (1e-4 relative). Prints one line per library: "<name> <ms> <GB/s>"; a
library that is missing prints "<name> skipped: <why>" on stderr. Used by scripts/bench.
Usage: python3 bench/reduce_peers.py [n = 2^28] [reps = 100]
"""
import statistics
import sys


def run_cupy(n, reps):
    import cupy as cp
    x = cp.random.default_rng(1).random(n, dtype=cp.float32)
    out = cp.empty((), dtype=cp.float32)

    def sum_fn():
        cp.sum(x, out=out)

    for _ in range(10):
        sum_fn()
    times = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        sum_fn()
        b.record()
        times.append((a, b))
    b.synchronize()
    ms = statistics.median(cp.cuda.get_elapsed_time(a, b) for a, b in times)
    return ms, float(out), float(cp.sum(x, dtype=cp.float64))


def run_torch(n, reps):
    import torch
    g = torch.Generator(device="cuda").manual_seed(1)
    x = torch.rand(n, dtype=torch.float32, device="cuda", generator=g)
    out = torch.empty((), dtype=torch.float32, device="cuda")

    def sum_fn():
        torch.sum(x, dim=0, out=out)

    for _ in range(10):
        sum_fn()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        sum_fn()
        b.record()
        times.append((a, b))
    torch.cuda.synchronize()
    ms = statistics.median(a.elapsed_time(b) for a, b in times)
    return ms, float(out), float(torch.sum(x, dtype=torch.float64))


def main():
    n = int(sys.argv[1], 0) if len(sys.argv) > 1 else 1 << 28
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    failed = False
    for name, fn in (("cupy.sum", run_cupy), ("torch.sum", run_torch)):
        try:
            ms, got, want = fn(n, reps)
        except Exception as e:  # a missing module or no GPU: say so, go on
            print(f"{name} skipped: {type(e).__name__}: {e}", file=sys.stderr)
            continue
        rel = abs(got - want) / want
        print(f"{name} {ms:.4f} {4 * n / (ms * 1e6):.1f}")
        print(f"{name}: n = {n}, sum {got:.9g}, float64 {want:.9g}, relative error {rel:.2e}", file=sys.stderr)
        if not rel <= 1e-4:
            print(f"{name}: FAIL: off by {rel:.2e} relative (limit 1e-4)", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
