"""The guide's vecadd on the GPU, every variant, one table (results go in docs/BENCHMARKS.md).

    SIMTVIZ_BACKEND=gpu python benchmarks/vecadd.py [--out results.json]

Rows: the guarded kernel (the default), the unguarded one as printed in the guide (with its
out-of-bounds writes counted), the block-size sweep, the guide's block 2048 (§2.2.6), and the
timing pitfall itself: CUDA events around single launches with CuPy arguments.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import asdict

from simtviz.backends import create_backend
from simtviz.backends.vecadd import run_vecadd
from simtviz.core.errors import LaunchRejected
from simtviz.core.vecadd import GPU_DEFAULT_N, VecaddRequest, bandwidth_gbps, grid_for, report_text


def events_around_single_launches(guarded: bool, n: int, block: int, count: int = 20) -> dict[str, float]:
    """The pitfall: events around one launch each, CuPy args. Also the busy-queue method with
    CuPy args, to show whether numba's CUDA-Array-Interface stream sync drains the queue."""
    import cupy as cp

    from simtviz.backends.gpu_timing import GpuTimer
    from simtviz.kernels.vecadd import kernel_for

    kernel = kernel_for(guarded)
    a = cp.random.uniform(-1, 1, n)
    b = cp.random.uniform(-1, 1, n)
    c = cp.zeros_like(a)
    grid = grid_for(n, block)
    kernel[grid, block](a, b, c)
    cp.cuda.Device().synchronize()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    single = []
    for _ in range(count):
        start.record()
        kernel[grid, block](a, b, c)
        stop.record()
        stop.synchronize()
        single.append(cp.cuda.get_elapsed_time(start, stop))
    busy = GpuTimer(cp).batch(lambda: kernel[grid, block](a, b, c), count)
    return {
        "single_events_ms": statistics.median(single),
        "single_events_GBps": bandwidth_gbps(n, statistics.median(single)) or 0.0,
        "busy_cupy_args_ms": busy.median_ms,
        "busy_cupy_args_stayed_busy": float(busy.gpu_stayed_busy),
        "busy_cupy_args_host_us": busy.host_median_us,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=GPU_DEFAULT_N)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    backend = create_backend("gpu")
    print(backend.info().label)
    out: dict[str, object] = {"label": backend.info().label, "n": args.n}

    rows = []
    for name, guarded, sweep in (("guarded", True, True), ("unguarded (as printed)", False, False)):
        result = run_vecadd(backend, VecaddRequest(args.n, 256, args.repeat, guarded, sweep=sweep))
        print(report_text(result))
        print()
        rows.append((name, result))
        out[name] = asdict(result)
    try:
        run_vecadd(backend, VecaddRequest(args.n, 2048, args.repeat))
        rejected = "not rejected!"
    except LaunchRejected as exc:
        rejected = f"{exc.exception_type}: {exc.driver_text}"
    out["block_2048"] = rejected
    pitfall = events_around_single_launches(True, args.n, 256)
    out["pitfall"] = pitfall

    head = (
        f"{'variant':<24} {'verified':>8} {'kernel ms':>10} {'GB/s':>7} {'copy GB/s':>9} {'share':>6} "
        f"{'cp.add ms':>9} {'launch µs':>9} {'numpy ms':>8} {'oob':>5}"
    )
    print(head)
    for name, r in rows:
        print(
            f"{name:<24} {r.verified!s:>8} {r.kernel_ms:>10.4f} {r.bandwidth_GBps:>7.0f} {r.copy_GBps:>9.0f} "
            f"{(r.copy_share or 0):>6.1%} {r.cupy_ms:>9.4f} {r.launch_overhead_us:>9.1f} {r.numpy_ms:>8.2f} "
            f"{r.oob_writes:>5}"
        )
    print(
        f"{'events around 1 launch':<24} {'':>8} {pitfall['single_events_ms']:>10.4f} "
        f"{pitfall['single_events_GBps']:>7.0f}   (the pitfall: host launch cost inside the events)"
    )
    print(
        f"busy queue, CuPy args: {pitfall['busy_cupy_args_ms']:.4f} ms, GPU stayed busy: "
        f"{bool(pitfall['busy_cupy_args_stayed_busy'])}, "
        f"host {pitfall['busy_cupy_args_host_us']:.1f} µs/launch"
    )
    print(f"block 2048: {rejected}")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(out, fh, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
