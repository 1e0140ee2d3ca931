"""CUDA helpers every GPU experiment shares, apart from the backend that runs them.

Launch-or-reject (the driver's own error is the lesson), synchronize-or-fail (an error after
launch is sticky: restart needed), a device's limits and memory attributes, and the pinned copy
to the host. Experiments' GPU halves import these; ``backends.gpu`` imports no experiment.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

import numpy as np

from simtviz.core.errors import KernelFailed, LaunchRejected
from simtviz.core.launch import LaunchConfig
from simtviz.core.limits import DeviceLimits, validate


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
    import cupy

    # What cupyx.empty_pinned does, without importing cupyx (its scipy and linalg modules: ≈0.1 s
    # of the GPU start on the H200). The array holds the pinned block through its buffer.
    memory = cupy.cuda.alloc_pinned_memory(array.nbytes)
    out = np.ndarray(array.shape, dtype=array.dtype, buffer=memory)
    array.get(out=out)
    return out
