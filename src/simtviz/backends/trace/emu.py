"""The traced kernel on simtviz's lockstep CPU emulator (``simtviz.emu``): no numba at all.

The rewritten tree (core/trace/rewrite.py) is interpreted as it is, and so are the helpers it
calls: kernels/trace_helpers.py is read as text, so the log this writes follows any change to
the helpers' format. Rows equal the simulator's as a multiset and, per thread, in program order
(each thread's accesses take their log slots in the order it makes them).

Unlike the simulator, the threads of a block run in lockstep: a read-modify-write without
atomics loses updates as on a GPU, and the findings say where (``lost_note``). There is no GPU
clock: ``kernel_ms`` and ``instrumented_ms`` are None.
"""

from __future__ import annotations

import time

import numpy as np

from simtviz.backends.base import Progress
from simtviz.backends.trace.prepare import new_counters, new_log, prepare, read_counts, window_args
from simtviz.core.errors import KernelFailed
from simtviz.core.trace.analysis import analyse
from simtviz.core.trace.model import TraceRequest, TraceResult
from simtviz.core.trace.rewrite import COUNT, LOG, Site

BACKEND_ID = "emu"


def lost_note(lost: dict[tuple[str, int], int], arrays: set[str], sites: tuple[Site, ...] = ()) -> str | None:
    """One sentence on the plain stores that lost to another thread's in the same step: lost
    updates where the line also reads the array (``bins[b] += 1``), else colliding stores."""
    rows = sorted((line, name, count) for (name, line), count in lost.items() if name in arrays)
    if not rows:
        return None
    read_back = {(s.line, s.array) for s in sites if s.kind == "load"}
    updates = [(line, name, count) for line, name, count in rows if (line, name) in read_back]
    if updates:
        where = "; ".join(f"line {line}: {count:,} stores to {name}" for line, name, count in updates)
        return (
            f"Lost updates ({where}): threads that stored the same element in the same step ran in "
            "lockstep, as a warp does, and one store won; use cuda.atomic.add for a read-modify-write."
        )
    where = "; ".join(f"line {line}: {count:,} to {name}" for line, name, count in rows)
    return (
        f"Colliding stores ({where}): threads stored the same element in the same step and one "
        "store won (harmless only if they all wrote the same value)."
    )


def run_trace_emu(request: TraceRequest, progress: Progress | None = None) -> TraceResult:
    from simtviz import emu

    prepared = prepare(request)
    try:
        if progress:
            progress(0.05)
        prepared.check_compiles()
        t0 = time.perf_counter()
        module = emu.load_source(prepared.rewrite.tree, str(prepared.path), "__traced__")
        # The whole budget: NumPy's zeros are pages the OS hands out only where a row is written,
        # so a kernel's every access is logged up to the budget, as on the GPU (a cap per thread
        # kept the first 64 of each thread's accesses in lockstep order, not the GPU's).
        capacity = max(1, request.budget)
        # Device memory: copies, so that the inputs stay as they were built.
        work = [v.copy() if isinstance(v, np.ndarray) else v for v in prepared.host]
        log, count = new_log(capacity), new_counters()

        def report(share: float) -> None:
            if progress:
                progress(0.05 + 0.3 * share)

        try:
            stats = emu.launch(
                module,
                prepared.rewrite.kernel,
                request.grid,
                request.block,
                [*work, log, count, *window_args(request)],
                progress=report,
                unwatched=(LOG, COUNT),
            )
        except emu.KernelError as exc:
            where = f"line {exc.line}: " if exc.line else ""
            kind = next(
                (k.__name__ for k in (IndexError, ZeroDivisionError) if isinstance(exc, k)),
                type(exc).__name__,
            )
            raise KernelFailed(f"{where}{kind}: {exc.message}", line=exc.line or 0) from exc
        run_s = time.perf_counter() - t0
        if progress:
            progress(0.4)
        accesses, window_accesses = read_counts(count)
        logged = min(window_accesses, capacity)
        host_log = np.ascontiguousarray(log[:, :logged])
        outputs = {s.name: v for s, v in zip(prepared.specs, work, strict=True) if isinstance(v, np.ndarray)}
        t1 = time.perf_counter()
        analysis = analyse(host_log, accesses, prepared.rewrite.sites, prepared.arrays, request.block, np)
        result = prepared.result(
            request, BACKEND_ID, analysis, host_log, outputs, run_s, time.perf_counter() - t1, window_accesses
        )
        note = lost_note(stats.lost, set(prepared.rewrite.array_names), prepared.rewrite.sites)
        if note:
            result.notes.append(note)
        prepared.conclude(request, result)
        if progress:
            progress(1.0)
        return result
    finally:
        prepared.cleanup()
