"""Backend ``gpu``: numba-cuda launches kernels on CuPy arrays; records stay on the device.

Also the two steps every GPU experiment shares: launch-or-reject (the driver's own error is
the lesson) and synchronize-or-fail (an error after launch is sticky: restart needed).
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from typing import Any

import numpy as np

from simtviz.backends.base import Backend, BackendInfo, BackendKind, Progress
from simtviz.backends.experiment import Experiment
from simtviz.backends.selection import activate
from simtviz.core.errors import BackendUnavailable, KernelFailed, LaunchRejected
from simtviz.core.launch import LaunchConfig
from simtviz.core.limits import DeviceLimits, validate
from simtviz.core.recording import Recording


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


def launch_or_reject(
    launch: Callable[[], Any], config: LaunchConfig, limits: DeviceLimits, launch_line: str = ""
) -> None:
    """Call ``launch``; a launch the driver (or numba) refuses becomes LaunchRejected.

    The launch is left to the driver even when ``validate`` finds a problem: its own error is
    the lesson. numba raises it here, synchronously, at launch.
    """
    try:
        launch()
    except launch_error_types() as exc:
        raise LaunchRejected(
            str(exc),
            config,
            validate(config, limits),
            type(exc).__name__,
            launch_line=launch_line,
            traceback_text=traceback.format_exc(),
        ) from exc


def synchronize_or_fail(synchronize: Callable[[], Any]) -> None:
    """Wait for the GPU; an error the kernel hit after launch becomes KernelFailed(needs_restart).

    Such errors (an illegal address, say) are sticky: the CUDA context is unusable after them.
    """
    try:
        synchronize()
    except Exception as exc:
        raise KernelFailed(f"the GPU reported an error after the launch: {exc}", needs_restart=True) from exc


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
        compute_capability=(int(device.compute_capability[0]), int(device.compute_capability[1])),
    )


# cudaDevAttrMemoryClockRate (kHz) and cudaDevAttrGlobalMemoryBusWidth (bits), for CuPy's runtime.
_ATTR_MEMORY_CLOCK_KHZ = 36
_ATTR_MEMORY_BUS_BITS = 37


def memory_attributes(device: Any) -> tuple[int | None, int | None]:
    """(memory clock in kHz, bus width in bits) of a numba device; CuPy's runtime if numba's
    binding lacks them; (None, None) when neither can say (then no peak is shown)."""
    try:
        return int(device.MEMORY_CLOCK_RATE), int(device.GLOBAL_MEMORY_BUS_WIDTH)
    except Exception:  # an attribute the installed cuda-bindings does not name
        pass
    try:
        import cupy

        runtime, dev = cupy.cuda.runtime, cupy.cuda.Device().id
        return (
            int(runtime.deviceGetAttribute(_ATTR_MEMORY_CLOCK_KHZ, dev)),
            int(runtime.deviceGetAttribute(_ATTR_MEMORY_BUS_BITS, dev)),
        )
    except Exception:
        return None, None


def to_host_pinned(array: Any) -> np.ndarray:
    """Copy a CuPy array into page-locked host memory (≈17× faster than pageable for 64 MB)."""
    import cupyx

    out: np.ndarray = cupyx.empty_pinned(array.shape, dtype=array.dtype)
    array.get(out=out)
    return out


class GpuBackend(Backend):
    kind = BackendKind.GPU

    def __init__(self) -> None:
        activate("gpu")
        try:
            import cupy
            from numba import cuda
        except Exception as exc:  # ImportError, or CuPy failing to find its CUDA libraries
            raise BackendUnavailable(f"the GPU backend cannot start: {exc}") from exc
        if not cuda.is_available():
            raise BackendUnavailable("numba-cuda finds no usable NVIDIA GPU on this machine")
        self.cp: Any = cupy
        self.cuda: Any = cuda
        limits = device_limits(cuda.get_current_device())
        cc = limits.compute_capability or (0, 0)
        self._info = BackendInfo(
            BackendKind.GPU,
            f"gpu:{limits.name}",
            f"{limits.name} — compute {cc[0]}.{cc[1]}, {limits.multiprocessors} SMs",
            limits,
        )

    def info(self) -> BackendInfo:
        return self._info

    def warm_up(self) -> None:
        """Compile, before Run is enabled, everything the first Run → map uses (see
        ``record.gpu.warm_up_record``); the session calls this on the worker at start.

        The schedule kernels too: the occupancy panel asks for their registers as soon as the
        backend is ready, and compiling them then (≈300 ms on the H200) held up the first Run
        queued behind it on the worker."""
        from simtviz.backends.record.gpu import warm_up_record
        from simtviz.backends.schedule.occupancy import gpu_occupancy_facts

        warm_up_record(self)
        gpu_occupancy_facts()

    def execute(self, experiment: Experiment, request: Any, progress: Progress | None) -> Any:
        return experiment.run_gpu(self, request, progress)

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
