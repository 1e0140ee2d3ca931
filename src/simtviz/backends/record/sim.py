"""The ``record`` experiment on numba's CUDA simulator, with NumPy arrays.

Runs in whichever process calls it (the CLI's, or the desktop app's simulator child): numba
must be, or become, the simulated one there.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from simtviz.backends.base import BackendInfo, Progress
from simtviz.backends.selection import activate
from simtviz.backends.watcher import watching
from simtviz.core.errors import KernelFailed
from simtviz.core.launch import LaunchConfig
from simtviz.core.oracle import verify
from simtviz.core.recording import Recording
from simtviz.core.schema import RECORD_FIELDS, allocate
from simtviz.core.window import Window

PROGRESS_SECONDS = 0.1


def window_array(window: Window) -> np.ndarray:
    return np.array([*window.origin, *window.size], dtype=np.int64)


def run_kernel_in_simulator(config: LaunchConfig, window: Window, fields: dict[str, np.ndarray]) -> float:
    """Launch the recording kernel on the simulator, writing into ``fields`` in place.

    Returns the wall-clock seconds of the launch. Must run in a process whose numba is simulated.
    """
    activate("sim")
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray

    from simtviz.kernels.record import record_threads

    # FakeCUDAArray wraps without copying, so rows appear as threads write them (progress) and
    # nothing is copied back at the end.
    args = [FakeCUDAArray(fields[name]) for name in RECORD_FIELDS]
    args.append(FakeCUDAArray(window_array(window)))
    args.append(FakeCUDAArray(np.zeros(1, dtype=np.int64)))  # no clock here: stays unread
    start = time.perf_counter()
    try:
        record_threads[config.grid.as_tuple(), config.block.as_tuple()](*args)
    except Exception as exc:  # the simulator re-raises what a thread raised
        raise KernelFailed(f"the kernel raised {type(exc).__name__}: {exc}") from exc
    return time.perf_counter() - start


def progress_of(fields: dict[str, np.ndarray]) -> float:
    """Share of rows already written (``warp`` is one of the last fields a thread writes; never -1)."""
    done = np.count_nonzero(fields["warp"] != -1)
    return float(done / max(1, fields["warp"].shape[0]))


def launch_progress(rows_written: int, blocks_done: int, config: LaunchConfig) -> float:
    """Share of the whole launch done: blocks finished, or at least the recorded threads that ran.

    A launch larger than the recording budget records only a window of it; its rows fill long
    before the launch ends, so they alone would say 100 % early.
    """
    blocks = max(1, config.grid.volume)
    threads = max(1, config.total_threads)
    return min(1.0, max(blocks_done / blocks, rows_written / threads))


class BlockCounter:
    """Counts the blocks the simulator has finished, during ``counting()``."""

    def __init__(self) -> None:
        self.done = 0

    @contextlib.contextmanager
    def counting(self) -> Iterator[bool]:
        """Yields False where this numba's simulator has no per-block hook (then rows count alone)."""
        try:
            from numba.cuda.simulator import kernel as simulated

            manager = simulated.BlockManager
            original = manager.run
        except (ImportError, AttributeError):
            yield False
            return
        counter = self

        def run(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return original(self, *args, **kwargs)
            finally:
                counter.done += 1

        manager.run = run
        try:
            yield True
        finally:
            manager.run = original


def record_in_simulator(request: Any, info: BackendInfo, progress: Progress | None = None) -> Recording:
    """Run the request's launch on the simulator and verify every thread against the formulas."""
    config, window = request.config, request.chosen_window
    fields = allocate(window.threads)
    blocks = BlockCounter()
    tick: Callable[[], None] | None = None
    if progress is not None:
        report = progress

        # The launch blocks this thread; a watcher reports the share of the launch done so far.
        def report_share() -> None:
            rows = int(np.count_nonzero(fields["warp"] != -1))
            report(min(0.99, launch_progress(rows, blocks.done, config)))

        tick = report_share

    with watching(tick, PROGRESS_SECONDS), blocks.counting():
        seconds = run_kernel_in_simulator(config, window, fields)
    if progress:
        progress(1.0)
    return finish_recording(config, window, fields, seconds)


def finish_recording(
    config: LaunchConfig, window: Window, fields: dict[str, np.ndarray], seconds: float
) -> Recording:
    start = time.perf_counter()
    verification = verify(fields, config, window)
    verify_ms = (time.perf_counter() - start) * 1000
    return Recording(
        config,
        window,
        fields,
        "sim",
        verification,
        # The simulator has no GPU clock: kernel time on a GPU is unknown here, not zero.
        {"wall_ms": seconds * 1000, "kernel_ms": None, "verify_ms": verify_ms, "copy_ms": None},
    )
