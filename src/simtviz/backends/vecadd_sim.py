"""The guide's vecadd on numba's CUDA simulator, with NumPy arrays in place of CuPy's.

The checks (``check_sim_request``) are cheap and import nothing; ``run_vecadd_sim`` needs a
process whose numba is the simulated one (the CLI's, or the desktop app's simulator child).
The simulator's arrays are bounds-checked, so the unguarded kernel raises IndexError here
where a GPU would silently write past the end of C: that difference is the result, not hidden.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from simtviz.backends.base import SIM_MAX_THREADS_UNASKED, Progress, format_duration, simulated_rejection
from simtviz.core.errors import LaunchTooLarge
from simtviz.core.limits import DeviceLimits
from simtviz.core.vecadd import (
    SweepRow,
    VecaddRequest,
    VecaddResult,
    estimate_sim_seconds,
    grid_for,
)

NUMPY_RUNS = 5


def check_sim_request(request: VecaddRequest, limits: DeviceLimits) -> None:
    """Refuse what a GPU would refuse (with the driver's text), then what would take too long."""
    rejection = simulated_rejection(request.config, limits)
    if rejection is not None:
        rejection.launch_line = request.config.launch_line("vecadd", "a, b, c")
        raise rejection
    threads = request.simulated_threads()
    if request.force or threads <= SIM_MAX_THREADS_UNASKED:
        return
    seconds = estimate_sim_seconds(request)
    raise LaunchTooLarge(
        f"vecadd would run {threads:,} simulated threads, about {format_duration(seconds)} on the CUDA "
        f"simulator (it runs up to {SIM_MAX_THREADS_UNASKED:,} without asking); use --force to run it "
        "anyway, or a smaller --n",
        seconds,
    )


def numpy_median_ms(a_np: np.ndarray, b_np: np.ndarray, runs: int = NUMPY_RUNS) -> float:
    """``a_np + b_np`` on the CPU: median wall-clock of ``runs`` runs."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        _ = a_np + b_np
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def check_result(result: VecaddResult, c_np: np.ndarray, expected: np.ndarray) -> None:
    """The guide's check, ``np.testing.assert_array_almost_equal``, its diagnostic kept verbatim."""
    try:
        np.testing.assert_array_almost_equal(c_np, expected)
    except AssertionError as exc:
        result.verified = False
        result.assertion_text = str(exc).strip()
    else:
        result.verified = True
    result.max_abs_err = float(np.max(np.abs(c_np - expected))) if c_np.size else 0.0


def run_vecadd_sim(
    request: VecaddRequest, label: str = "sim", progress: Progress | None = None
) -> VecaddResult:
    """Run the program on the simulator (numba must be, or become, simulated in this process)."""
    from simtviz.backends.selection import activate

    activate("sim")
    from numba import cuda

    from simtviz.kernels.vecadd import kernel_for, vecadd

    n, block = request.n, request.block
    grid = grid_for(n, block)
    repeat = request.repeats("sim")
    result = VecaddResult("sim", n, block, grid, guarded=request.guarded, label=label, repeat=repeat)
    total = max(1, request.simulated_threads())
    done = 0

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
    c_d = cuda.to_device(np.zeros_like(a))
    kernel = kernel_for(request.guarded)
    walls = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        try:
            kernel[grid, block](a_d, b_d, c_d)
            cuda.synchronize()
        except Exception as exc:  # the simulator re-raises what a thread raised (IndexError)
            result.kernel_error = f"{type(exc).__name__}: {exc}"
            result.sim_wall_ms = (time.perf_counter() - t0) * 1000
            return result
        walls.append((time.perf_counter() - t0) * 1000)
        advance(grid * block)
    result.sim_wall_ms = statistics.median(walls)

    a_np, b_np, c_np = a_d.copy_to_host(), b_d.copy_to_host(), c_d.copy_to_host()
    expected = a_np + b_np
    check_result(result, c_np, expected)
    result.numpy_ms = numpy_median_ms(a_np, b_np)
    result.notes.append(
        "Ran on numba's CUDA simulator with NumPy arrays (no CuPy without a GPU); "
        "GPU-only timings are not measurable here."
    )

    if request.sweep:
        # Always the guarded kernel: the unguarded one would stop at its first IndexError.
        for sweep_block in request.sweep_blocks:
            row = SweepRow.shape(n, sweep_block)
            c_d = cuda.to_device(np.zeros_like(a))
            t0 = time.perf_counter()
            vecadd[row.grid, sweep_block](a_d, b_d, c_d)
            cuda.synchronize()
            row.sim_wall_ms = (time.perf_counter() - t0) * 1000
            result.sweep.append(row)
            advance(row.threads)
    if progress:
        progress(1.0)
    return result
