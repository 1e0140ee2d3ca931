"""The guide's vecadd on numba's CUDA simulator, with NumPy arrays in place of CuPy's.

``run_vecadd_sim`` needs a process whose numba is the simulated one (the CLI's, or the desktop
app's simulator child); the checks before it are ``simtviz.backends.vecadd.check_sim_request``.
The simulator's arrays are bounds-checked, so the unguarded kernel raises IndexError here
where a GPU would silently write past the end of C: that difference is the result, not hidden.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from simtviz.backends.base import Progress
from simtviz.core.vecadd import SweepRow, VecaddRequest, VecaddResult, check_result, grid_for, numpy_median_ms


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
