"""The ``record`` experiment on a GPU: the record stays on the device.

Verification and the field shown run on the GPU with CuPy; only what is displayed or saved
crosses to the host, through pinned memory (a 64 MB copy: 1.2 ms pinned, 20 ms pageable).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from simtviz.backends.base import Backend, Progress, WarmUpStep
from simtviz.backends.cuda_tools import launch_or_reject, synchronize_or_fail, to_host_pinned
from simtviz.backends.gpu_timing import GpuTimer
from simtviz.core.errors import OutOfDeviceMemory
from simtviz.core.launch import LaunchConfig
from simtviz.core.oracle import CHECKED_FIELDS, Mismatch, Verification, expected_field
from simtviz.core.recording import Recording
from simtviz.core.schema import COLOR_FIELDS, DEFAULT_COLOR_FIELD, RECORD_FIELDS, allocate, record_nbytes
from simtviz.core.window import Window


class _Compiled:
    """Whether this process has JIT-compiled the kernels (numba caches them per process)."""

    done = False


def record_on_gpu(backend: Backend, request: Any, progress: Progress | None = None) -> Recording:
    """Launch the request on the GPU backend's device; verify there; keep the record there."""
    import cupy as cp

    from simtviz.kernels.record import record_threads

    compile_once(backend)
    info = backend.info()
    config, window = request.config, request.chosen_window
    threads = window.threads
    try:
        fields = allocate(threads, cp)
    except cp.cuda.memory.OutOfMemoryError as exc:
        cp.get_default_memory_pool().free_all_blocks()
        raise OutOfDeviceMemory(
            record_nbytes(threads),
            None,
            f"record {threads:,} threads",
            detail=str(exc),
            smaller="a smaller window (--budget)",
        ) from exc
    win = cp.asarray(np.array([*window.origin, *window.size], dtype=np.int64))
    ended = cp.zeros(1, dtype=cp.int64)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    host_start = time.perf_counter()
    # Events around a bare launch would time the host's argument handling too (≈100 µs for ten
    # CuPy arrays, more than the kernel below 2^20 threads): the GPU is kept busy while the
    # launch is queued, so the events' interval is GPU time only (as vecadd times its kernel).
    timer = gpu_timer(backend)
    hold_ns = getattr(backend, "_record_hold_ns", HOLD_RECORD_NS)
    timer.hold(hold_ns)
    start.record()
    t0 = time.perf_counter()
    launch_or_reject(
        lambda: record_threads[config.grid.as_tuple(), config.block.as_tuple()](
            *(fields[name] for name in RECORD_FIELDS), win, ended
        ),
        config,
        info.limits,
    )
    launch_host_ms = (time.perf_counter() - t0) * 1000
    stop.record()
    gpu_stayed_busy = not start.done  # still holding when the launch was queued
    if not gpu_stayed_busy:  # this host is slower than the hold allows: hold longer next time
        backend._record_hold_ns = min(4 * hold_ns, HOLD_RECORD_MAX_NS)  # type: ignore[attr-defined]
    synchronize_or_fail(stop.synchronize)
    kernel_ms = cp.cuda.get_elapsed_time(start, stop) if gpu_stayed_busy else None
    span_ms, run_ms = thread_spans_ms(fields["t_ns"], ended)
    launch_ms = (time.perf_counter() - host_start) * 1000
    t0 = time.perf_counter()
    verification = verify_on_device(cp, fields, config, window, info.limits.multiprocessors or 1)
    verify_ms = (time.perf_counter() - t0) * 1000
    if progress:
        progress(1.0)
    return Recording(
        config,
        window,
        fields,
        info.backend_id,
        verification,
        {
            "wall_ms": launch_ms,
            "kernel_ms": kernel_ms,
            "span_ms": span_ms,
            "run_span_ms": run_ms,
            "launch_host_ms": launch_host_ms,
            "verify_ms": verify_ms,
            "copy_ms": None,
        },
        xp=cp,
        to_host=to_host_pinned,
    )


# The hold before a recording launch: 10× the host's launch cost, and ≈1 ms on the Run → map
# time. If the host still takes longer (a paused process), the events are discarded, not shown,
# and the next launch holds 4× longer (up to HOLD_RECORD_MAX_NS).
HOLD_RECORD_NS = 1_000_000
HOLD_RECORD_MAX_NS = 64_000_000


def gpu_timer(backend: Backend) -> GpuTimer:
    """The backend's GpuTimer (its hold kernel compiled once per process)."""
    import cupy as cp

    timer: GpuTimer | None = getattr(backend, "_gpu_timer", None)
    if timer is None:
        timer = GpuTimer(cp)
        backend._gpu_timer = timer  # type: ignore[attr-defined]
    return timer


def thread_spans_ms(t_ns: Any, ended: Any) -> tuple[float | None, float | None]:
    """The threads' own clock (%globaltimer), reduced on the device (three numbers cross to the
    host): (last start - first start, last block's end - first start). The second is how long
    the recorded threads ran; the kernel's GPU time exceeds it only by the launch's fixed cost."""
    if t_ns.size == 0:
        return None, None
    first = int(t_ns.min().item())
    last_start = int(t_ns.max().item())
    last_end = int(ended[0].item())
    run = (last_end - first) / 1e6 if last_end >= last_start else None
    return (last_start - first) / 1e6, run


def compile_once(backend: Backend) -> None:
    """JIT-compile both kernels with a small launch, so that no timed launch includes the
    compile (~0.9 s, which CUDA events around the first launch would otherwise count)."""
    if _Compiled.done:
        return
    _Compiled.done = True
    from simtviz.backends.record import RecordRequest

    # 64 threads rather than 1: arrays with a single row can type differently (layout) and
    # would leave the real launches to compile again.
    config = LaunchConfig.of((2, 2, 2), (2, 2, 2))
    record_on_gpu(backend, RecordRequest(config, Window.full(config)))


# One launch of each rank: CuPy compiles its elementwise and reduction kernels per dtype and
# number of dimensions, and 1-D, 2-D and 3-D maps reshape the records differently.
WARM_LAUNCHES = (
    LaunchConfig.of(4, 32),
    LaunchConfig.of((4, 3), (8, 4)),
    LaunchConfig.of((2, 2, 2), (4, 4, 2)),
)


def warm_up_record(backend: Backend) -> list[WarmUpStep]:
    """Run every GPU path the first Run → map takes, so that none compiles then: the recording
    kernel, the verifier, the timer's hold kernel, the span's reductions, and the default colour
    field's values, levels, int32 cast and pinned copy, with the inspector's first thread (on the
    H200 these made the first Run after start take 1.8–4.6 s; later runs ≈60 ms).

    Returned, for after ready: the same for every other colour field, one step per field and rank
    (CuPy compiles each field's kernels on first use; a user who picks one soon finds it ready,
    and a Run pressed meanwhile waits for one step at most, not for all 39).
    """
    from simtviz.backends.record import RecordRequest

    compile_once(backend)
    later: list[WarmUpStep] = []
    for config in WARM_LAUNCHES:
        recording = record_on_gpu(backend, RecordRequest(config, Window.full(config)))
        _draw(recording, DEFAULT_COLOR_FIELD)
        recording.thread_at(0)  # the inspector's first hover
        for field in COLOR_FIELDS:
            if field != DEFAULT_COLOR_FIELD:
                later.append(WarmUpStep(f"record: {field}, {config.rank}-D", _drawing(recording, field)))
    return later


def _drawing(recording: Recording, field: str) -> Callable[[], None]:
    return lambda: _draw(recording, field)


def _draw(recording: Recording, field: str) -> None:
    """The map image of ``field``'s first plane, as the index map asks for it."""
    from simtviz.core import maps

    maps.map_images(recording, field, (0,))


def first_mismatch_at(row: int, fields: dict[str, Any], config: LaunchConfig, window: Window) -> Mismatch:
    """The first field of ``row`` that disagrees with the formulas, with both values."""
    wx, wy, _ = window.size
    ox, oy, oz = window.origin
    here = Window((row % wx + ox, (row // wx) % wy + oy, row // (wx * wy) + oz), (1, 1, 1))
    for name in CHECKED_FIELDS:
        recorded = np.atleast_1d(fields[name][row].get())
        expected = np.atleast_1d(expected_field(name, config, here)[0])
        if not np.array_equal(recorded, expected):
            return Mismatch(row, name, tuple(int(v) for v in recorded), tuple(int(v) for v in expected))
    raise AssertionError(f"row {row} was reported as a mismatch but matches")


def verify_on_device(
    cp: Any, fields: dict[str, Any], config: LaunchConfig, window: Window, multiprocessors: int
) -> Verification:
    """Every thread checked against the formulas in one fused kernel; only counts come back."""
    from simtviz.kernels.verify import BAD_ROWS, COUNTERS, FIRST_BAD_ROW, VERIFY_FIELDS, verify_records

    n = window.threads
    counters = np.zeros(COUNTERS, dtype=np.int64)
    counters[FIRST_BAD_ROW] = n
    bad = cp.asarray(counters)
    if n:
        threads = 256
        blocks = min(-(-n // threads), 32 * multiprocessors)
        verify_records[blocks, threads](
            *(fields[name] for name in VERIFY_FIELDS),
            cp.asarray(np.array([*window.origin, *window.size], dtype=np.int64)),
            cp.asarray(np.array(config.block.as_tuple(), dtype=np.int64)),
            n,
            bad,
        )
    counts = [int(v) for v in bad.get()]
    by_field = dict(zip(VERIFY_FIELDS, counts[:BAD_ROWS], strict=True))
    matched = n - counts[BAD_ROWS]
    first = None
    if matched != n:
        first = first_mismatch_at(counts[FIRST_BAD_ROW], fields, config, window)
    return Verification(matched, n, by_field, first)
