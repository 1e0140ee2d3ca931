"""The traced kernel's analysis of 10^7 accesses (issue 12: target ≤ 200 ms on the GPU).

    python benchmarks/trace_analysis.py [--xp numpy|cupy] [--accesses N]

A log as the guarded vecadd makes it (each thread loads A[i], loads B[i], stores C[i]; slots in
warp order, as a GPU hands them out), analysed by ``core.trace.analysis.analyse`` three times in
one process: the first run includes loading (CuPy: compiling or reading from its disk cache) the
kernels the analysis uses; the later ones are the analysis itself.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from simtviz.core.trace.analysis import ArrayInfo, analyse
from simtviz.core.trace.rewrite import Site
from simtviz.kernels.trace_helpers import (
    F_FLAGS,
    F_I0,
    F_OFFSET,
    F_SITE,
    F_THREAD,
    KIND_LOAD,
    KIND_STORE,
    LOG_FIELDS,
)

SITES = (
    Site(0, 5, 11, "A", "load", 1),
    Site(1, 5, 18, "B", "load", 1),
    Site(2, 5, 4, "C", "store", 1),
)


def vecadd_log(accesses: int, xp: Any = np) -> tuple[Any, tuple[ArrayInfo, ...]]:
    """(log, arrays) of ``accesses`` // 3 threads each doing A[i] + B[i] → C[i] (float32)."""
    n = accesses // 3
    arrays = tuple(ArrayInfo(name, (n,), "float32") for name in "ABC")
    log = xp.zeros((LOG_FIELDS, 3 * n), dtype=xp.int64)
    thread = xp.arange(n, dtype=xp.int64)
    # Slot order: warp by warp, each warp's 32 lanes for site 0, then site 1, then site 2.
    warp, lane = thread // 32, thread % 32
    for site, (array_id, kind) in enumerate(((0, KIND_LOAD), (1, KIND_LOAD), (2, KIND_STORE))):
        slot = warp * 96 + site * 32 + lane
        slot = xp.minimum(slot, 3 * n - 1) if n % 32 == 0 else _dense(xp, thread, site, n)
        log[F_THREAD, slot] = thread
        log[F_SITE, slot] = site
        log[F_FLAGS, slot] = (kind << 1) | (array_id << 3)
        log[F_OFFSET, slot] = thread * 4
        log[F_I0, slot] = thread
    return log, arrays


def _dense(xp: Any, thread: Any, site: int, n: int) -> Any:
    full = (n // 32) * 32
    warp, lane = thread // 32, thread % 32
    tail = n - full  # the last, partial warp's lanes
    return xp.where(thread < full, warp * 96 + site * 32 + lane, 3 * full + site * tail + (thread - full))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--xp", default="numpy", choices=("numpy", "cupy"))
    parser.add_argument("--accesses", type=int, default=10_000_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    xp: Any = np
    sync = lambda: None  # noqa: E731
    if args.xp == "cupy":
        import cupy

        xp = cupy
        sync = cupy.cuda.Device().synchronize
    log, arrays = vecadd_log(args.accesses, xp)
    sync()
    for run in range(args.runs):
        t0 = time.perf_counter()
        result = analyse(log, log.shape[1], SITES, arrays, (256, 1, 1), xp)
        sync()
        t1 = time.perf_counter()
        for key, touch in list(result.touch.items()):
            result.touch[key] = touch.to_host()
        sync()
        ms, copy_ms = (time.perf_counter() - t0) * 1000, (time.perf_counter() - t1) * 1000
        label = "first (kernels load)" if run == 0 else "again"
        print(
            f"{args.xp}: {log.shape[1]:,} accesses, analysis {ms:8.1f} ms, of which maps to the host "
            f"{copy_ms:6.1f} ms  ({label})"
        )
    # float32, every warp full but perhaps the last: 4 sectors per request (3.9999 with a short one)
    lines = {(r.array, r.kind): round(r.sectors_per_request or 0.0, 2) for r in result.lines}
    assert lines == {("A", "load"): 4.0, ("B", "load"): 4.0, ("C", "store"): 4.0}, lines
    assert result.arrays["C"].untouched == 0 and result.arrays["C"].multi_writer == 0


if __name__ == "__main__":
    main()
