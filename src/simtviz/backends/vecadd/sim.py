"""The guide's vecadd on numba's CUDA simulator, with NumPy arrays in place of CuPy's.

``run_vecadd_sim`` needs a process whose numba is the simulated one (the CLI's, or the desktop
app's simulator child); the checks before it are ``simtviz.backends.vecadd.check_sim_request``.
The simulator's arrays are bounds-checked, so the unguarded kernel raises IndexError here
where a GPU would silently write past the end of C: that difference is the result, not hidden.
What each backend can know about out-of-bounds writes is said in ``core.vecadd`` (OOB_*).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from simtviz.backends.base import DEVICE_WORDS, BackendKind, Progress
from simtviz.backends.watcher import watching
from simtviz.core.vecadd import (
    SIM_NO_SWEEP_UNGUARDED,
    SweepRow,
    VecaddRequest,
    VecaddResult,
    check_result,
    grid_for,
    numpy_median_ms,
)

PROGRESS_SECONDS = 0.2


def _watched(launch: Callable[[], None], c: np.ndarray, report: Callable[[float], None] | None) -> None:
    """Run ``launch`` while a watcher reports the share of C written so far (C starts at zeros;
    a + b of uniform(-1, 1) inputs is never exactly 0 in practice, so non-zero means written)."""
    tick = None if report is None else lambda: report(float(np.count_nonzero(c)) / max(1, c.size))
    with watching(tick, PROGRESS_SECONDS, "simtviz-vecadd-progress"):
        launch()


def run_vecadd_sim(
    request: VecaddRequest, label: str = "sim", progress: Progress | None = None
) -> VecaddResult:
    """Run the program on the simulator (numba must be, or become, simulated in this process)."""
    from simtviz.backends.selection import activate

    activate("sim")
    from numba import cuda
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray

    from simtviz.kernels.vecadd import kernel_for, vecadd

    n, block = request.n, request.block
    grid = grid_for(n, block)
    repeat = request.repeats("sim")
    result = VecaddResult("sim", n, block, grid, guarded=request.guarded, label=label, repeat=repeat)
    total = max(1, request.simulated_threads())
    done = 0

    def within(threads: int) -> Callable[[float], None] | None:
        """Progress of a launch of ``threads`` threads, as a share of the whole run."""
        if progress is None:
            return None
        report = progress
        return lambda share: report(min(1.0, (done + share * threads) / total))

    def advance(threads: int) -> None:
        nonlocal done
        done += threads
        if progress:
            progress(min(1.0, done / total))

    rng = np.random.default_rng()
    # cp.random.uniform's NumPy twin: float64 (the guide's comment says float32; it is not).
    a = rng.uniform(-1, 1, n)
    b = rng.uniform(-1, 1, n)
    a_d, b_d = cuda.to_device(a), cuda.to_device(b)
    # C wrapped without a copy (as cp.zeros_like(a) would be), so the watcher sees threads write it.
    c = np.zeros_like(a)
    c_d: Any = FakeCUDAArray(c)
    kernel = kernel_for(request.guarded)
    walls = []
    for _ in range(repeat):
        c[...] = 0  # each launch writes C afresh, so its progress can be watched
        t0 = time.perf_counter()
        try:
            _watched(lambda: kernel[grid, block](a_d, b_d, c_d), c, within(grid * block))
            cuda.synchronize()
        except Exception as exc:  # the simulator re-raises what a thread raised (IndexError)
            result.kernel_error = f"{type(exc).__name__}: {exc}"
            result.sim_wall_ms = (time.perf_counter() - t0) * 1000
            # Stopped at the first bad index: how many writes a GPU would make is not measured.
            result.oob_writes = None
            if request.sweep:
                result.sweep_note = SIM_NO_SWEEP_UNGUARDED
            return result
        walls.append((time.perf_counter() - t0) * 1000)
        advance(grid * block)
    result.sim_wall_ms = statistics.median(walls)
    # Every access was bounds-checked and none failed: no write went past the end of C.
    result.oob_writes = 0

    a_np, b_np, c_np = a_d.copy_to_host(), b_d.copy_to_host(), c.copy()
    expected = a_np + b_np
    check_result(result, c_np, expected)
    result.numpy_ms = numpy_median_ms(a_np, b_np)
    result.notes.append(
        f"Ran on {DEVICE_WORDS[BackendKind.SIM]} with NumPy arrays (no CuPy without a GPU); "
        "GPU-only timings are not measurable here."
    )

    if request.sweep:
        # The guarded kernel, as on a GPU (an unguarded run stopped above at its IndexError).
        for sweep_block in request.sweep_blocks:
            row = SweepRow.shape(n, sweep_block)
            c_sweep = np.zeros_like(a)
            c_sweep_d: Any = FakeCUDAArray(c_sweep)
            t0 = time.perf_counter()
            _watched(
                partial(vecadd[row.grid, sweep_block], a_d, b_d, c_sweep_d), c_sweep, within(row.threads)
            )
            cuda.synchronize()
            row.sim_wall_ms = (time.perf_counter() - t0) * 1000
            result.sweep.append(row)
            advance(row.threads)
    if progress:
        progress(1.0)
    return result
