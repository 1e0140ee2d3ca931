"""How long a run will take, before it runs: one rate table for every backend and experiment.

The estimate decides when a run needs confirmation (the simulator runs up to
``SIM_MAX_THREADS_UNASKED`` threads without asking) and what the question says.
"""

from __future__ import annotations

from typing import Final

# The simulator runs any launch up to this many threads without asking (CONTRACT.md).
SIM_MAX_THREADS_UNASKED: Final = 131_072
# On a GPU only absurd launches ask: past ~5 s of GPU time at the rate below.
GPU_MAX_THREADS_UNASKED: Final = 1 << 40

# Simulated threads a second, per experiment, measured on the 2-core CPU machines
# (docs/BENCHMARKS.md). The simulator runs one Python thread per CUDA thread.
# record: 3,800–4,400 threads/s. vecadd: 6,000–9,000 once warm, ≈2,500 in a cold process or on a
# busy machine; the estimate leans slow, and adds the second a fresh process takes to start.
# trace: the student's kernel, each access a logged helper call; a fresh child process per run.
SIM_THREADS_PER_SECOND: Final[dict[str, float]] = {"record": 4_000.0, "vecadd": 2_500.0, "trace": 2_500.0}
SIM_STARTUP_SECONDS: Final[dict[str, float]] = {"vecadd": 1.0, "trace": 2.0}
# An experiment without its own measured rate is estimated at the slowest one.
SIM_DEFAULT_THREADS_PER_SECOND: Final = min(SIM_THREADS_PER_SECOND.values())
# On the H200 a launch of 2.2 × 10^12 threads (grid 2^31 - 1 of 1024, a window recording) took
# 4.4 s by CUDA events: ≈ 5 × 10^11 threads/s. The estimate stays on the safe side (slower GPUs).
GPU_THREADS_PER_SECOND: Final = 2.0e11


def threads_per_second(kind: str, experiment: str = "record") -> float:
    """The rate used for ``experiment`` on backend ``kind`` (``"gpu"`` or ``"sim"``)."""
    if kind == "gpu":
        return GPU_THREADS_PER_SECOND
    return SIM_THREADS_PER_SECOND.get(experiment, SIM_DEFAULT_THREADS_PER_SECOND)


def estimate_seconds(kind: str, threads: int, experiment: str = "record") -> float:
    """Seconds ``threads`` threads of ``experiment`` take on backend ``kind``, leaning slow."""
    startup = SIM_STARTUP_SECONDS.get(experiment, 0.0) if kind == "sim" else 0.0
    return threads / threads_per_second(kind, experiment) + startup


def max_threads_unasked(kind: str) -> int:
    return SIM_MAX_THREADS_UNASKED if kind == "sim" else GPU_MAX_THREADS_UNASKED


def format_duration(seconds: float) -> str:
    """``450 ms``, ``42 s``, ``4 min``, ``2.5 h``, ``12 days``: one unit, rounded for a person."""
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:,.0f} days"
