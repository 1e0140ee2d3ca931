"""The traced kernel on numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1 before numba's import).

The simulator runs each thread as Python, so the log's rows are exactly the accesses the
threads made. It times nothing (``kernel_ms`` and ``instrumented_ms`` are None).
"""

from __future__ import annotations

import time

import numpy as np

from simtviz.backends.base import DEVICE_WORDS, BackendKind, Progress
from simtviz.backends.trace.prepare import new_counters, new_log, prepare, read_counts, window_args
from simtviz.core.errors import BackendUnavailable, KernelFailed, LaunchTooLarge
from simtviz.core.estimates import SIM_MAX_THREADS_UNASKED, estimate_seconds
from simtviz.core.trace.analysis import analyse
from simtviz.core.trace.args import ArraySpec
from simtviz.core.trace.model import SIM_BUDGET, TraceRequest, TraceResult
from simtviz.core.trace.words import simulated_failure_words


def _too_large(threads: int, limit: int) -> LaunchTooLarge:
    where = DEVICE_WORDS[BackendKind.SIM]
    return LaunchTooLarge(threads, estimate_seconds("sim", threads, "trace"), limit, where)


def run_trace_sim(request: TraceRequest, progress: Progress | None = None) -> TraceResult:
    from numba import config, cuda
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray

    if not config.ENABLE_CUDASIM:
        raise BackendUnavailable("run_trace_sim needs NUMBA_ENABLE_CUDASIM=1 set before numba is imported")
    if request.threads > SIM_MAX_THREADS_UNASKED and not request.force:
        raise _too_large(request.threads, SIM_MAX_THREADS_UNASKED)
    prepared = prepare(request)
    try:
        if progress:
            progress(0.05)
        t0 = time.perf_counter()
        kernel = prepared.kernel(traced=True)
        # Up to the budget, as on the GPU: the host log is wrapped, not copied, so only the rows
        # written take memory (a cap of 64 rows per thread kept a loop's first accesses only).
        capacity = max(1, min(request.budget, SIM_BUDGET))
        device_args = [
            cuda.to_device(v) if isinstance(s, ArraySpec) else v
            for s, v in zip(prepared.specs, prepared.host, strict=True)
        ]
        host_rows = new_log(capacity)
        log = FakeCUDAArray(host_rows)
        count = cuda.to_device(new_counters())
        try:
            kernel[request.grid, request.block](*device_args, log, count, *window_args(request))
        except Exception as exc:  # the student's code raised inside a simulated thread
            line = prepared.failure_line(exc)
            raise KernelFailed(simulated_failure_words(exc, line, prepared.specs), line=line or 0) from exc
        run_s = time.perf_counter() - t0
        if progress:
            progress(0.8)
        accesses, window_accesses = read_counts(count.copy_to_host())
        logged = min(window_accesses, capacity)
        host_log = np.ascontiguousarray(host_rows[:, :logged])
        outputs = {
            s.name: d.copy_to_host()
            for s, d in zip(prepared.specs, device_args, strict=True)
            if isinstance(s, ArraySpec)
        }
        t1 = time.perf_counter()
        analysis = analyse(host_log, accesses, prepared.rewrite.sites, prepared.arrays, request.block, np)
        result = prepared.result(
            request, "sim", analysis, host_log, outputs, run_s, time.perf_counter() - t1, window_accesses
        )
        prepared.conclude(request, result)
        if progress:
            progress(1.0)
        return result
    finally:
        prepared.cleanup()
