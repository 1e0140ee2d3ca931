"""The traced kernel on a GPU (numba-cuda + CuPy), and its own time as written and as traced.

Order: the first launch of the traced kernel on fresh arrays is the run whose log and results
are reported (its wall time, compile included, is ``compile_s``). Then, when asked, both
kernels are timed like the vecadd panel does (simtviz.backends.gpu_timing.GpuTimer: a hold
kernel keeps the GPU busy while the launches are queued, so events measure GPU time, not the
host's launch cost) on scratch copies of the inputs, so the reported results are untouched. Each
timed traced launch gets its own zeroed counter, so every launch logs as the reported one did.
The kernel as written is not timed when the traced run found a shared-memory access out of
bounds: shared memory has no guard, and such an access can fault (a global one past a CuPy
allocation lands in its padding, as the unguarded vecadd's do).
The analysis runs on the GPU (CuPy); only the summary, the maps and the log come back.
"""

from __future__ import annotations

import time
import traceback
from typing import Any

import numpy as np

from simtviz.backends.base import Progress
from simtviz.backends.trace.prepare import new_counters, prepare, read_counts, window_args
from simtviz.core.errors import KernelFailed, LaunchRejected
from simtviz.core.trace.analysis import LOG_FIELDS, analyse
from simtviz.core.trace.args import ArraySpec
from simtviz.core.trace.model import TraceRequest, TraceResult

TIMED_LAUNCHES = 20
LOG_BYTES_PER_ACCESS = LOG_FIELDS * 8


def _launch_rejected(exc: BaseException, request: TraceRequest, kernel_name: str) -> LaunchRejected:
    from simtviz.core.launch import Dim3, LaunchConfig
    from simtviz.core.limits import validate

    config = LaunchConfig(Dim3(*request.grid), Dim3(*request.block))
    return LaunchRejected(
        str(exc),
        config,
        validate(config),
        type(exc).__name__,
        launch_line=f"{kernel_name}[{request.grid}, {request.block}](...)",
        traceback_text=traceback.format_exc(),
    )


def run_trace_gpu(request: TraceRequest, progress: Progress | None = None) -> TraceResult:
    import cupy as cp
    from numba import cuda

    from simtviz.backends.cuda_tools import launch_error_types

    prepared = prepare(request)
    try:
        device = cp.cuda.Device()
        name = cuda.get_current_device().name
        name = name.decode() if isinstance(name, bytes) else str(name)
        free, _total = cp.cuda.runtime.memGetInfo()
        array_bytes = sum(np.asarray(v).nbytes for v in prepared.host)
        capacity = max(1, request.budget)
        # the log gets at most half of what the arrays leave free
        capacity = max(1, min(capacity, int((free - 2 * array_bytes) * 0.5) // LOG_BYTES_PER_ACCESS))

        def fresh() -> list[Any]:
            return [
                cp.asarray(v) if isinstance(s, ArraySpec) else v
                for s, v in zip(prepared.specs, prepared.host, strict=True)
            ]

        args = fresh()
        log = cp.zeros((LOG_FIELDS, capacity), dtype=cp.int64)
        count = cp.asarray(new_counters())
        window = window_args(request)
        if progress:
            progress(0.05)
        t0 = time.perf_counter()
        try:
            kernel = prepared.kernel(traced=True)
            kernel[request.grid, request.block](*args, log, count, *window)
        except launch_error_types() as exc:
            if type(exc) is ValueError and "LaunchConfig" not in str(exc):
                raise prepared.compile_error(exc) from exc
            raise _launch_rejected(exc, request, prepared.rewrite.kernel) from exc
        except Exception as exc:  # numba's typing/lowering errors: on the student's line
            if type(exc).__module__.startswith("numba"):
                raise prepared.compile_error(exc) from exc
            raise
        try:
            device.synchronize()
        except Exception as exc:  # a fault inside the kernel (sticky context error)
            raise KernelFailed(f"the GPU reported an error after the launch: {exc}") from exc
        compile_s = time.perf_counter() - t0
        if progress:
            progress(0.4)

        accesses, window_accesses = read_counts(count.get())
        logged = min(window_accesses, capacity)
        t1 = time.perf_counter()
        analysis = analyse(
            log[:, :logged], accesses, prepared.rewrite.sites, prepared.arrays, request.block, cp
        )
        for key, touch in list(analysis.touch.items()):
            analysis.touch[key] = touch.to_host()
        device.synchronize()
        analysis_s = time.perf_counter() - t1
        host_log = cp.asnumpy(log[:, :logged])
        outputs = {
            s.name: cp.asnumpy(a)
            for s, a in zip(prepared.specs, args, strict=True)
            if isinstance(s, ArraySpec)
        }
        del log
        if progress:
            progress(0.6)

        result = prepared.result(
            request, f"gpu:{name}", analysis, host_log, outputs, compile_s, analysis_s, window_accesses
        )
        if request.time_kernel:
            shared_oob = [o for o in analysis.oob if o.space == "shared"]
            if shared_oob:
                first = shared_oob[0]
                result.notes.append(
                    f"the kernel as written was not timed: it indexes the shared array {first.array} "
                    f"out of bounds (line {first.line}), which on a GPU can fault"
                )
            _time_kernels(prepared, request, result, fresh, capacity, time_plain=not shared_oob)
        prepared.conclude(request, result)
        if progress:
            progress(1.0)
        return result
    finally:
        prepared.cleanup()


def _time_kernels(
    prepared: Any,
    request: TraceRequest,
    result: TraceResult,
    fresh: Any,
    capacity: int,
    time_plain: bool = True,
) -> None:
    import cupy as cp
    from numba import cuda

    from simtviz.backends.gpu_timing import HOLD_ATTEMPTS, GpuTimer

    timer = GpuTimer(cp)
    scratch = fresh()
    # numba views of the CuPy arrays: the same GPU time, a third of the host time per launch
    views = [cuda.as_cuda_array(a, sync=False) if isinstance(a, cp.ndarray) else a for a in scratch]
    grid, block = request.grid, request.block
    busy = True
    if time_plain:
        plain = prepared.kernel(traced=False)
        timing = timer.batch(lambda: plain[grid, block](*views), TIMED_LAUNCHES)
        result.kernel_ms = timing.median_ms
        busy = timing.gpu_stayed_busy

    traced = prepared.kernel(traced=True)
    log = cuda.as_cuda_array(cp.zeros((LOG_FIELDS, capacity), dtype=cp.int64), sync=False)
    launches = 1 + HOLD_ATTEMPTS * TIMED_LAUNCHES
    counters = cp.zeros((launches, len(new_counters())), dtype=cp.int64)
    counter_views = [cuda.as_cuda_array(counters[k], sync=False) for k in range(launches)]
    next_counter = iter(counter_views)
    window = window_args(request)
    timing = timer.batch(
        lambda: traced[grid, block](*views, log, next(next_counter), *window), TIMED_LAUNCHES
    )
    result.instrumented_ms = timing.median_ms
    if not (busy and timing.gpu_stayed_busy):
        result.notes.append("the GPU ran out of queued work while timing: those times include host gaps")
