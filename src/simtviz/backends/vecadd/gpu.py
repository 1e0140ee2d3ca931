"""The guide's vecadd on a GPU: the faithful program, then timings that tell the truth.

The program runs as §2.2.5 writes it: float64 ``cp.random.uniform(-1, 1, N)``, the kernel
launched with CuPy arrays, ``device.synchronize()``, copy back, ``assert_array_almost_equal``.
C lives at the start of a larger buffer whose tail (the canary) holds a NaN pattern that no
sum of the inputs can produce, so writes past the end of C are counted, not guessed.

Timing: a numba launch with CuPy arguments costs ≈94 µs of host time, about as long as the
kernel itself, so CUDA events around one launch time the host too; ``backends.gpu_timing``
keeps the GPU busy while the launches are queued, so each event interval is GPU time only.
"""

from __future__ import annotations

import statistics
import time
from functools import partial
from typing import Any

from simtviz.backends.base import Backend, Progress
from simtviz.backends.cuda_tools import launch_or_reject, memory_attributes, synchronize_or_fail
from simtviz.backends.gpu_timing import HOLD_START_NS, BatchTiming, GpuTimer
from simtviz.core.errors import OutOfDeviceMemory
from simtviz.core.estimates import format_duration
from simtviz.core.vecadd import (
    GPU_MIN_REPEAT,
    ITEMSIZE,
    SweepRow,
    VecaddRequest,
    VecaddResult,
    bandwidth_gbps,
    check_result,
    copy_elements,
    dram_peak_gbps,
    grid_for,
    idle_threads,
    numpy_median_ms,
)

# A NaN with a payload: a + b of finite inputs is never this bit pattern.
CANARY_BITS = 0x7FF8_DEAD_BEEF_CAFE
CANARY_SLACK = 256  # elements beyond the last thread's index: shows the writes stop at the grid's end


def _check_memory(cp: Any, request: VecaddRequest, elements: int) -> None:
    free, _total = cp.cuda.runtime.memGetInfo()
    needed = elements * ITEMSIZE
    if not request.force and needed > 0.9 * free:
        raise OutOfDeviceMemory(needed, free, f"N = {request.n:,}", forcible=True, smaller="a smaller --n")


COPY_MIN_REPEAT = 50  # the ceiling's median: enough launches that one slow one cannot lower it


class CopyCeiling:
    """The fastest of two ways to copy the kernel's bytes (cudaMemcpyAsync, CuPy's copy kernel)."""

    def __init__(self, gbps: float | None, timings: list[BatchTiming]) -> None:
        self.gbps = gbps
        self.timings = timings


def measure_copy(cp: Any, timer: GpuTimer, n: int, repeat: int) -> CopyCeiling:
    """A device-to-device copy moving what the kernel moves (``copy_elements``: 1.5 × N doubles
    read and written = 3 × N × 8 bytes), timed like the kernel; the faster of the two methods is
    the ceiling. Measured on the H200 with a copy of N (2 × N × 8 bytes) it was 7 % below the
    kernel: a smaller transfer pays its start and tail over fewer bytes."""
    k = copy_elements(n)
    try:
        timings = _time_copies(cp, timer, k, repeat)
    except cp.cuda.memory.OutOfMemoryError:
        return CopyCeiling(None, [])  # not measured: no room for the scratch buffers
    finally:
        cp.get_default_memory_pool().free_all_blocks()
    best = min(t.median_ms for t in timings)
    # 2 × k elements cross DRAM (read k, write k) = the kernel's 3 × N.
    return CopyCeiling(bandwidth_gbps(k, best, arrays=2), timings)


def _time_copies(cp: Any, timer: GpuTimer, k: int, repeat: int) -> list[BatchTiming]:
    src, dst = cp.ones(k), cp.empty(k)
    runtime, nbytes = cp.cuda.runtime, k * ITEMSIZE
    d2d = runtime.memcpyDeviceToDevice
    memcpy = timer.batch(lambda: runtime.memcpyAsync(dst.data.ptr, src.data.ptr, nbytes, d2d, 0), repeat)
    kernel = timer.batch(lambda: cp.copyto(dst, src), repeat)
    return [memcpy, kernel]


def launch_vecadd(kernel: Any, grid: int, block: int, *args: Any) -> None:
    kernel[grid, block](*args)


def run_vecadd_gpu(
    backend: Backend, request: VecaddRequest, progress: Progress | None = None
) -> VecaddResult:
    """The whole run on the GPU backend's device: program, check, timings, sweep."""
    import cupy as cp
    from numba import cuda

    from simtviz.kernels.vecadd import kernel_for, vecadd

    info = backend.info()
    n, block = request.n, request.block
    config = request.config
    grid = grid_for(n, block)
    repeat = request.gpu_launches()
    result = VecaddResult(
        info.backend_id, n, block, grid, guarded=request.guarded, label=info.label, repeat=repeat
    )
    canary = idle_threads(n, block) + CANARY_SLACK
    # The unguarded kernel also reads A and B past their ends: pad them too, so that it reads
    # memory this run owns (zeros) rather than whatever follows the allocation.
    pad = 0 if request.guarded else canary
    _check_memory(cp, request, 3 * n + 2 * pad + canary)

    def step(fraction: float) -> None:
        if progress:
            progress(fraction)

    try:
        device = cp.cuda.Device()
        if pad:
            a_store, b_store = cp.zeros(n + pad), cp.zeros(n + pad)
            a, b = a_store[:n], b_store[:n]
            a[...] = cp.random.uniform(-1, 1, n)
            b[...] = cp.random.uniform(-1, 1, n)
        else:
            a = cp.random.uniform(-1, 1, n)
            b = cp.random.uniform(-1, 1, n)
        c_store = cp.empty(n + canary, dtype=a.dtype)
        c = c_store[:n]
        c.fill(0)  # what cp.zeros_like(a) gives, inside the buffer that carries the canary
        c_store[n:].view(cp.uint64).fill(CANARY_BITS)
    except cp.cuda.memory.OutOfMemoryError as exc:
        raise OutOfDeviceMemory(
            (3 * n + 2 * pad + canary) * ITEMSIZE,
            None,
            f"run vecadd with N = {n:,}",
            detail=str(exc),
            smaller="a smaller --n",
        ) from exc

    kernel = kernel_for(request.guarded)
    t0 = time.perf_counter()
    launch_or_reject(
        lambda: kernel[grid, block](a, b, c),
        config,
        info.limits,
        launch_line=config.launch_line(kernel.py_func.__name__, "a, b, c"),
    )
    synchronize_or_fail(device.synchronize)
    result.first_launch_ms = (time.perf_counter() - t0) * 1000
    step(0.1)

    a_np, b_np, c_np = cp.asnumpy(a), cp.asnumpy(b), cp.asnumpy(c)
    expected = a_np + b_np
    check_result(result, c_np, expected)
    result.canary = canary
    result.oob_writes = int(cp.count_nonzero(c_store[n:].view(cp.uint64) != CANARY_BITS).item())
    result.numpy_ms = numpy_median_ms(a_np, b_np)
    step(0.2)

    timer = GpuTimer(cp)
    # Zero-copy numba views: the same kernel and GPU time (measured on the H200: 0.0966 ms with
    # CuPy arguments, 0.0967 ms with these), but ≈29 µs of host time per launch instead of ≈100,
    # so a shorter hold keeps the GPU busy. sync=False: CUDA Array Interface v3 would otherwise
    # synchronize CuPy's stream at each conversion.
    a_nb, b_nb, c_nb = (cuda.as_cuda_array(x, sync=False) for x in (a, b, c))
    kern = timer.batch(lambda: kernel[grid, block](a_nb, b_nb, c_nb), repeat)
    result.kernel_ms = kern.median_ms
    result.bandwidth_GBps = bandwidth_gbps(n, result.kernel_ms)
    result.launch_overhead_numba_us = kern.host_median_us
    step(0.4)

    # The guide's launch, with CuPy arrays, one at a time on an idle GPU: host cost only.
    host = []
    for _ in range(repeat):
        device.synchronize()
        t0 = time.perf_counter()
        kernel[grid, block](a, b, c)
        host.append((time.perf_counter() - t0) * 1e6)
    device.synchronize()
    result.launch_overhead_us = statistics.median(host)
    step(0.5)

    add = timer.batch(lambda: cp.add(a, b, out=c), repeat)
    result.cupy_ms = add.median_ms
    result.cupy_bandwidth_GBps = bandwidth_gbps(n, result.cupy_ms)
    copy = measure_copy(cp, timer, n, max(repeat, COPY_MIN_REPEAT))
    result.copy_GBps = copy.gbps
    result.peak_GBps = dram_peak_gbps(*memory_attributes(cuda.get_current_device()))
    step(0.7)
    if not all(t.gpu_stayed_busy for t in (kern, add, *copy.timings)):
        result.notes.append(
            "Warning: the GPU ran out of queued work during a timed batch even after a "
            f"{format_duration((HOLD_START_NS + repeat * timer.hold_ns_per_launch) / 1e9)} hold; "
            "those medians include host gaps."
        )

    if request.sweep:
        count = GPU_MIN_REPEAT
        for index, sweep_block in enumerate(request.sweep_blocks):
            row = SweepRow.shape(n, sweep_block)
            launch = partial(launch_vecadd, vecadd, row.grid, sweep_block, a_nb, b_nb, c_nb)
            timing = timer.batch(launch, count)
            row.kernel_ms = timing.median_ms
            row.bandwidth_GBps = bandwidth_gbps(n, row.kernel_ms)
            result.sweep.append(row)
            step(0.7 + 0.3 * (index + 1) / len(request.sweep_blocks))
    step(1.0)
    return result
