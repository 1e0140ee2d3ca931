"""The small interface every backend offers, and the checks they share."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

from simtviz.core.errors import LaunchRejected, LaunchTooLarge
from simtviz.core.launch import LaunchConfig
from simtviz.core.limits import DRIVER_INVALID_VALUE, DeviceLimits, validate
from simtviz.core.recording import Recording
from simtviz.core.window import Window

# The simulator runs any launch up to this many threads without asking (CONTRACT.md).
SIM_MAX_THREADS_UNASKED = 131_072
# Measured on the 2-core CPU machines (docs/BENCHMARKS.md): 3,800–4,400 simulated threads a
# second (one Python thread per CUDA thread). Used only for the estimate shown before a long run.
SIM_THREADS_PER_SECOND = 4_000.0
# On the H200 a launch of 2.2 × 10^12 threads (grid 2^31 - 1 of 1024, a window recording) took
# 4.4 s by CUDA events: ≈ 5 × 10^11 threads/s. The estimate stays on the safe side (slower GPUs);
# past ~5 s of GPU time a launch needs confirmation.
GPU_THREADS_PER_SECOND = 2.0e11
GPU_MAX_THREADS_UNASKED = 1 << 40

Progress = Callable[[float], None]


@dataclass(frozen=True, slots=True)
class BackendInfo:
    kind: str  # "gpu" or "sim"
    backend_id: str  # "gpu:<device name>" or "sim" (as saved in records)
    label: str  # for the window: "NVIDIA H200 — compute 9.0, 132 SMs"
    limits: DeviceLimits


def zero_dimension_text(config: LaunchConfig) -> str | None:
    """numba's own ValueError text for a 0-sized grid or block, raised before the driver is called."""
    for what, dim in (("grid", config.grid), ("block", config.block)):
        if min(dim.as_tuple()) < 1:
            return f"LaunchConfig.{what} values must be >= 1 (got {dim})"
    return None


def simulated_rejection(config: LaunchConfig, limits: DeviceLimits) -> LaunchRejected | None:
    """What a GPU would raise for ``config``, for backends that check no limits themselves."""
    problems = validate(config, limits)
    if not problems:
        return None
    zero = zero_dimension_text(config)
    who = "simtviz's simulator backend, with the text a GPU gives (the simulator checks no limits)"
    if zero:
        return LaunchRejected(zero, config, problems, "ValueError", source=who)
    return LaunchRejected(DRIVER_INVALID_VALUE, config, problems, "CUDAError", source=who)


def estimate_seconds(kind: str, threads: int) -> float:
    rate = SIM_THREADS_PER_SECOND if kind == "sim" else GPU_THREADS_PER_SECOND
    return threads / rate


def check_size(kind: str, config: LaunchConfig, force: bool) -> None:
    """Refuse a valid launch that would run too long here unless ``force`` (CLI ``--force``)."""
    threads = config.total_threads
    limit = SIM_MAX_THREADS_UNASKED if kind == "sim" else GPU_MAX_THREADS_UNASKED
    if force or threads <= limit:
        return
    seconds = estimate_seconds(kind, threads)
    where = "the CUDA simulator" if kind == "sim" else "the GPU"
    raise LaunchTooLarge(
        f"{threads:,} threads would take about {format_duration(seconds)} on {where} "
        f"(it runs up to {limit:,} without asking); use --force to run it anyway",
        seconds,
    )


def format_duration(seconds: float) -> str:
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:,.0f} days"


class Backend(ABC):
    """Launches the instrumented kernel and hands back a verified Recording."""

    kind: str

    @abstractmethod
    def info(self) -> BackendInfo: ...

    def limits(self) -> DeviceLimits:
        return self.info().limits

    @abstractmethod
    def record(
        self,
        config: LaunchConfig,
        window: Window | None = None,
        *,
        force: bool = False,
        progress: Progress | None = None,
    ) -> Recording:
        """Launch ``config`` once; raise LaunchRejected, LaunchTooLarge or KernelFailed."""
