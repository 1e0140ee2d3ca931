"""Backend ``gpu``: numba-cuda launches the kernel on CuPy arrays; records stay on the device.

Verification and the field shown run on the GPU with CuPy; only what is displayed or saved
crosses to the host, through pinned memory (a 64 MB copy: 1.2 ms pinned, 20 ms pageable).
"""

from __future__ import annotations

import time
import traceback
from typing import Any

import numpy as np

from simtviz.backends.base import Backend, BackendInfo, Progress, check_size
from simtviz.backends.selection import activate
from simtviz.core.errors import BackendUnavailable, KernelFailed, LaunchRejected, LaunchTooLarge
from simtviz.core.launch import LaunchConfig
from simtviz.core.limits import DeviceLimits, validate
from simtviz.core.oracle import CHECKED_FIELDS, RECORD_FIELDS, Mismatch, Verification, expected_field
from simtviz.core.recording import Recording
from simtviz.core.window import BYTES_PER_THREAD, Window, choose_window


def launch_error_types() -> tuple[type[BaseException], ...]:
    """The exceptions a rejected launch raises: cuda.core's CUDAError (numba-cuda >= 0.23),
    numba's CudaAPIError before that, and the ValueError numba raises for 0-sized dimensions."""
    # OverflowError: a dimension too large for the driver's unsigned int never reaches the driver.
    types: list[type[BaseException]] = [ValueError, OverflowError]
    try:
        from numba.cuda.cudadrv.driver import CudaAPIError

        types.append(CudaAPIError)
    except ImportError:  # pragma: no cover - depends on the numba-cuda version
        pass
    try:
        from cuda.core._utils.cuda_utils import CUDAError

        types.append(CUDAError)
    except ImportError:  # pragma: no cover
        pass
    return tuple(types)


def device_limits(device: Any) -> DeviceLimits:
    """Launch limits read from a numba device's attributes."""
    name = device.name.decode() if isinstance(device.name, bytes) else str(device.name)
    return DeviceLimits(
        name=name,
        max_threads_per_block=int(device.MAX_THREADS_PER_BLOCK),
        max_block=(int(device.MAX_BLOCK_DIM_X), int(device.MAX_BLOCK_DIM_Y), int(device.MAX_BLOCK_DIM_Z)),
        max_grid=(int(device.MAX_GRID_DIM_X), int(device.MAX_GRID_DIM_Y), int(device.MAX_GRID_DIM_Z)),
        warp_size=int(device.WARP_SIZE),
        multiprocessors=int(device.MULTIPROCESSOR_COUNT),
        compute_capability=tuple(device.compute_capability),  # type: ignore[arg-type]
    )


def to_host_pinned(array: Any) -> np.ndarray:
    """Copy a CuPy array into page-locked host memory (≈17× faster than pageable for 64 MB)."""
    import cupyx

    out = cupyx.empty_pinned(array.shape, dtype=array.dtype)
    array.get(out=out)
    return out


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


class GpuBackend(Backend):
    kind = "gpu"

    def __init__(self) -> None:
        activate("gpu")
        try:
            import cupy
            from numba import cuda
        except Exception as exc:  # ImportError, or CuPy failing to find its CUDA libraries
            raise BackendUnavailable(f"the GPU backend cannot start: {exc}") from exc
        if not cuda.is_available():
            raise BackendUnavailable("numba-cuda finds no usable NVIDIA GPU on this machine")
        self._cp = cupy
        self._cuda = cuda
        device = cuda.get_current_device()
        limits = device_limits(device)
        cc = limits.compute_capability or (0, 0)
        self._info = BackendInfo(
            "gpu",
            f"gpu:{limits.name}",
            f"{limits.name} — compute {cc[0]}.{cc[1]}, {limits.multiprocessors} SMs",
            limits,
        )

    def info(self) -> BackendInfo:
        return self._info

    def record(
        self,
        config: LaunchConfig,
        window: Window | None = None,
        *,
        force: bool = False,
        progress: Progress | None = None,
    ) -> Recording:
        cp = self._cp
        from simtviz.kernels.record import record_threads

        self._compile_once()
        violations = validate(config, self._info.limits)
        if not violations:
            check_size("gpu", config, force)
        window = window or choose_window(config)
        threads = window.threads
        try:
            fields = {
                name: cp.full((threads, *shape), -1, dtype=dtype)
                for name, (shape, dtype) in RECORD_FIELDS.items()
            }
        except cp.cuda.memory.OutOfMemoryError as exc:
            cp.get_default_memory_pool().free_all_blocks()
            raise LaunchTooLarge(
                f"the GPU has too little free memory to record {threads:,} threads "
                f"({threads * BYTES_PER_THREAD / 2**30:.1f} GiB); record a smaller window "
                f"(--budget) — CuPy said: {exc}"
            ) from exc
        win = cp.asarray(np.array([*window.origin, *window.size], dtype=np.int64))
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        host_start = time.perf_counter()
        start.record()
        try:
            # The launch is left to the driver even when validate() found a problem: its own
            # error is the lesson. numba raises it here, synchronously, at launch.
            record_threads[config.grid.as_tuple(), config.block.as_tuple()](
                *(fields[name] for name in RECORD_FIELDS), win
            )
        except launch_error_types() as exc:
            raise LaunchRejected(
                str(exc), config, violations, type(exc).__name__, traceback_text=traceback.format_exc()
            ) from exc
        stop.record()
        try:
            stop.synchronize()
        except Exception as exc:  # an error the kernel hit after launch (sticky context error)
            # Such errors (an illegal address, say) are sticky: the CUDA context is unusable after them.
            raise KernelFailed(
                f"the GPU reported an error after the launch: {exc}. "
                "CUDA cannot recover from this in the same process: restart simtviz."
            ) from exc
        kernel_ms = cp.cuda.get_elapsed_time(start, stop)
        launch_ms = (time.perf_counter() - host_start) * 1000
        t0 = time.perf_counter()
        verification = self.verify_on_device(fields, config, window)
        verify_ms = (time.perf_counter() - t0) * 1000
        if progress:
            progress(1.0)
        return Recording(
            config,
            window,
            fields,
            self._info.backend_id,
            verification,
            {"wall_ms": launch_ms, "kernel_ms": kernel_ms, "verify_ms": verify_ms, "copy_ms": None},
            xp=cp,
            to_host=to_host_pinned,
        )

    def _compile_once(self) -> None:
        """JIT-compile both kernels with a one-thread launch, so that no timed launch includes
        the compile (~0.9 s, which CUDA events around the first launch would otherwise count)."""
        if getattr(self, "_compiled", False):
            return
        self._compiled = True
        # 64 threads rather than 1: arrays with a single row can type differently (layout) and
        # would leave the real launches to compile again.
        config = LaunchConfig.of((2, 2, 2), (2, 2, 2))
        self.record(config, Window.full(config))

    def verify_on_device(self, fields: dict[str, Any], config: LaunchConfig, window: Window) -> Verification:
        """Every thread checked against the formulas in one fused kernel; only counts come back."""
        from simtviz.kernels.verify import BAD_ROWS, COUNTERS, FIRST_BAD_ROW, VERIFY_FIELDS, verify_records

        cp = self._cp
        n = window.threads
        counters = np.zeros(COUNTERS, dtype=np.int64)
        counters[FIRST_BAD_ROW] = n
        bad = cp.asarray(counters)
        if n:
            threads = 256
            blocks = min(-(-n // threads), 32 * (self._info.limits.multiprocessors or 1))
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

    def to_host(self, recording: Recording) -> Recording:
        """A copy of ``recording`` with every field in (pinned) host memory."""
        t0 = time.perf_counter()
        fields = {name: to_host_pinned(value) for name, value in recording.fields.items()}
        timings = dict(recording.timings_ms, copy_ms=(time.perf_counter() - t0) * 1000)
        return Recording(
            recording.config,
            recording.window,
            fields,
            recording.backend,
            recording.verification,
            timings,
        )
