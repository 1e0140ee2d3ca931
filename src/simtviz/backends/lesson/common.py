"""What every lesson probe shares: the result shape, and honest 'cannot measure here' values.

A probe returns a plain dict: ``probe`` (its name), ``backend`` (``gpu:<name>`` or ``sim``), its
measured values, and ``unavailable``: for each value that is None, why it could not be measured
on this backend. A value is never invented to fill a gap.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

Result = dict[str, Any]

SIM_NO_CLOCK = (
    "the CUDA simulator runs each thread as a Python thread on the CPU: "
    "it has no GPU clock, so GPU times cannot be measured there"
)
SIM_NO_EVENTS = "the simulator's CUDA events return -1.0: there is no GPU time to read"
SIM_NO_ASYNC = (
    "the simulator runs the kernel inside the launch call, so the launch returns only "
    "after the kernel has finished: there is no asynchrony to show"
)
SIM_NO_COPY = "the simulator keeps every array in host memory: nothing is copied to or from a GPU"
NO_GPU = "there is no GPU here"


def on_simulator() -> bool:
    """True when numba runs the CUDA simulator (imports numba: call only inside a probe)."""
    from numba import config

    return bool(config.ENABLE_CUDASIM)


def new_result(probe: str, backend: str) -> Result:
    return {"probe": probe, "backend": backend, "unavailable": {}}


def missing(result: Result, reason: str, *keys: str) -> None:
    """Set ``keys`` to None and record why (the reason a student reads beside the gap)."""
    for key in keys:
        result[key] = None
        result["unavailable"][key] = reason


def import_cupy() -> tuple[Any, str | None]:
    """(cupy module, None), or (None, why) when CuPy cannot be imported here."""
    try:
        import cupy
    except Exception as exc:  # ImportError, or a broken CUDA install raising anything
        return None, f"CuPy cannot be imported here ({type(exc).__name__}: {exc})"
    return cupy, None


def cupy_usable(cp: Any) -> str | None:
    """None when CuPy can create an array on a GPU, else why not (its own error text)."""
    try:
        cp.zeros(1)
    except Exception as exc:  # CUDARuntimeError without a driver, CUDADriverError, ...
        return f"CuPy needs a GPU and could not use one here ({type(exc).__name__}: {exc})"
    return None


def gpu_backend_name() -> str:
    from numba import cuda

    name = cuda.get_current_device().name
    return f"gpu:{name.decode() if isinstance(name, bytes) else name}"


def median_seconds(action: Callable[[], Any], repeat: int) -> float:
    """Median host wall time of ``action`` (which must wait for its own GPU work)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def exception_text(exc: BaseException) -> str:
    return f"{type(exc).__module__}.{type(exc).__qualname__}: {exc}"


def app_check(grid: int, block: int) -> str:
    """The app's own words for the broken limit (it checks before launching)."""
    from simtviz.core.launch import Dim3, LaunchConfig
    from simtviz.core.limits import explain, validate

    return explain(validate(LaunchConfig(Dim3(grid), Dim3(block))))
