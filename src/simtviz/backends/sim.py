"""Backend ``sim``: the same kernel on numba's CUDA simulator, with NumPy arrays.

The simulator runs one Python thread per CUDA thread and checks no launch limits, so this
backend checks them first and raises what the driver would. In-process runs serve the CLI and
tests; the desktop app runs them in a child process (``sim_process``) so that the window stays
responsive and Cancel can stop a run at once.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from simtviz.backends.base import (
    Backend,
    BackendInfo,
    Progress,
    check_size,
    simulated_rejection,
)
from simtviz.backends.selection import activate
from simtviz.core.errors import KernelFailed
from simtviz.core.launch import LaunchConfig
from simtviz.core.limits import DeviceLimits
from simtviz.core.oracle import RECORD_FIELDS, verify
from simtviz.core.recording import Recording
from simtviz.core.window import Window, choose_window

SIM_LABEL = "CUDA simulator on the CPU — no NVIDIA GPU in use"
SIM_LIMITS = DeviceLimits(name="CUDA simulator (limits of every GPU since compute capability 5.0)")


def sim_info(reason: str = "") -> BackendInfo:
    label = SIM_LABEL if not reason else f"CUDA simulator on the CPU — {reason}"
    return BackendInfo("sim", "sim", label, SIM_LIMITS)


def allocate_fields(threads: int, buffer: Any = None, fill: bool = True) -> dict[str, np.ndarray]:
    """Record arrays for ``threads`` rows, filled with -1 so unwritten rows show up as mismatches.

    With ``buffer`` (a writable byte buffer, e.g. a memory map) the arrays are views into it;
    ``fill=False`` leaves a buffer that its owner already filled as it is.
    """
    fields: dict[str, np.ndarray] = {}
    offset = 0
    for name, (shape, dtype) in RECORD_FIELDS.items():
        full_shape = (threads, *shape)
        count = int(np.prod(full_shape))
        if buffer is None:
            array = np.full(full_shape, -1, dtype=dtype)
        else:
            array = np.frombuffer(buffer, dtype=dtype, count=count, offset=offset).reshape(full_shape)
            if fill:
                array.fill(-1)
        offset += count * np.dtype(dtype).itemsize
        fields[name] = array
    return fields


def fields_nbytes(threads: int) -> int:
    return sum(
        int(np.prod((threads, *shape))) * np.dtype(dtype).itemsize for shape, dtype in RECORD_FIELDS.values()
    )


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
    start = time.perf_counter()
    try:
        record_threads[config.grid.as_tuple(), config.block.as_tuple()](*args)
    except Exception as exc:  # the simulator re-raises what a thread raised
        raise KernelFailed(f"the kernel raised {type(exc).__name__}: {exc}") from exc
    return time.perf_counter() - start


def progress_of(fields: dict[str, np.ndarray]) -> float:
    """Share of rows already written (``warp`` is one of the last fields a thread writes; never -1)."""
    done = np.count_nonzero(fields["warp"] != -1)
    return done / max(1, fields["warp"].shape[0])


class SimBackend(Backend):
    """Runs the simulator in this process (numba must be, or become, the simulated one)."""

    kind = "sim"

    def __init__(self, reason: str = "") -> None:
        self._info = sim_info(reason)

    def info(self) -> BackendInfo:
        return self._info

    def prepare(self, config: LaunchConfig, window: Window | None, force: bool) -> Window:
        """Checks done before any thread runs: limits (as the driver would), then size."""
        rejection = simulated_rejection(config, self._info.limits)
        if rejection is not None:
            raise rejection
        check_size("sim", config, force)
        return window or choose_window(config)

    def record(
        self,
        config: LaunchConfig,
        window: Window | None = None,
        *,
        force: bool = False,
        progress: Progress | None = None,
    ) -> Recording:
        window = self.prepare(config, window, force)
        fields = allocate_fields(window.threads)
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
