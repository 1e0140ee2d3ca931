"""The guide's vecadd on simtviz's lockstep CPU emulator, with NumPy arrays in place of CuPy's.

The chapter's own kernels (kernels/vecadd.py, read as text) run over every thread at once.
What is true here about the unguarded kernel: the emulator checks every index, so the surplus
threads' accesses past the ends of A, B and C are *counted and skipped* — all of them, where
numba's simulator stops at the first with IndexError and a GPU makes them silently (its canary
counts the writes). ``oob_writes`` is that count of writes past the end of C (a GPU's canary
would count the same writes); C itself comes out right. There is no GPU clock: GPU timings
stay None; the emulator's wall-clock goes in ``sim_wall_ms`` (CPU time, nothing like a GPU's).
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import numpy as np

from simtviz.backends.base import Progress
from simtviz.core.vecadd import SweepRow, VecaddRequest, VecaddResult, check_result, grid_for, numpy_median_ms

BACKEND_ID = "emu"


def _launch(guarded: bool, grid: int, block: int, arrays: list[np.ndarray]) -> tuple[float, Any]:
    from simtviz import emu

    module = emu.load_module("simtviz.kernels.vecadd")
    t0 = time.perf_counter()
    stats = emu.launch(
        module,
        "vecadd" if guarded else "vecadd_unguarded",
        grid,
        block,
        arrays,
        skip_oob=True,
        unwatched="ABC",
    )
    return (time.perf_counter() - t0) * 1000, stats


def run_vecadd_emu(
    request: VecaddRequest, label: str = "emu", progress: Progress | None = None
) -> VecaddResult:
    n, block = request.n, request.block
    grid = grid_for(n, block)
    repeat = request.repeats(BACKEND_ID)
    result = VecaddResult(BACKEND_ID, n, block, grid, guarded=request.guarded, label=label, repeat=repeat)
    launches = repeat + (len(request.sweep_blocks) if request.sweep else 0)
    rng = np.random.default_rng()
    # cp.random.uniform's NumPy twin: float64 (the guide's comment says float32; it is not).
    a = rng.uniform(-1, 1, n)
    b = rng.uniform(-1, 1, n)
    c = np.zeros_like(a)
    walls = []
    stats: Any = None
    for k in range(repeat):  # each launch writes every element of C (the emulator skips the rest)
        wall, stats = _launch(request.guarded, grid, block, [a, b, c])
        walls.append(wall)
        if progress:
            progress((k + 1) / launches)
    result.sim_wall_ms = statistics.median(walls)
    result.oob_writes = stats.oob.get(("C", "store"), 0)
    check_result(result, c.copy(), a + b)
    result.numpy_ms = numpy_median_ms(a, b)
    note = (
        "Ran on simtviz's CPU emulator (lockstep, NumPy arrays, no CuPy): GPU timings are not "
        "measurable here; its wall-clock is the emulator's, nothing like a GPU's."
    )
    if not request.guarded:
        loads = stats.oob.get(("A", "load"), 0) + stats.oob.get(("B", "load"), 0)
        note += (
            f" The emulator checks every index: the {result.oob_writes:,} writes past the end of C "
            f"(and {loads:,} loads past A and B) were counted and skipped. A GPU makes them "
            "silently; numba's simulator stops at the first with IndexError."
        )
    result.notes.append(note)
    if request.sweep:
        for k, sweep_block in enumerate(request.sweep_blocks):
            row = SweepRow.shape(n, sweep_block)
            row.sim_wall_ms, _ = _launch(True, row.grid, sweep_block, [a, b, np.zeros_like(a)])
            result.sweep.append(row)
            if progress:
                progress((repeat + k + 1) / launches)
    if progress:
        progress(1.0)
    return result
