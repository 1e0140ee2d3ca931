"""How long a run will take, before it runs: one rate table for every backend and experiment.

The estimate decides when a run needs confirmation (the simulator runs up to
``SIM_MAX_THREADS_UNASKED`` threads without asking) and what the question says. Backends
``gpu``, ``sim`` (numba's CUDA simulator) and ``emu`` (simtviz's lockstep CPU emulator).
"""

from __future__ import annotations

from typing import Final

# The simulator runs any launch up to this many threads without asking (docs/CONTRACT.md).
SIM_MAX_THREADS_UNASKED: Final = 131_072
# On a GPU only absurd launches ask: past ~5 s of GPU time at the rate below.
GPU_MAX_THREADS_UNASKED: Final = 1 << 40

# Simulated threads a second, per experiment, measured on the 2-core CPU machines with
# benchmarks/sim_rates.py (docs/BENCHMARKS.md). The simulator runs one Python thread per CUDA
# thread, and starting and switching those threads, not the kernel's few lines, sets the pace
# once the machine is busy: at 32,768 threads on a loaded machine record ran 3,141/s and vecadd
# 3,057/s (2^20 threads: 6 min, as the issue measured); on an idle one record 4,400–4,900 and
# vecadd 9,000–11,000. One rate for both, on the slow side, so that the index map and the vector
# add give the same estimate for the same number of threads and a run ends early, never late.
SIM_RATE: Final = 3_000.0
# trace: the student's kernel runs each access as a logged helper call in a fresh child process
# per run; its rate is not measured yet, so it takes the same slow-side rate and a 2 s start.
SIM_THREADS_PER_SECOND: Final[dict[str, float]] = {"record": SIM_RATE, "vecadd": SIM_RATE, "trace": SIM_RATE}
SIM_STARTUP_SECONDS: Final[dict[str, float]] = {"vecadd": 1.0, "trace": 2.0}
# An experiment without its own measured rate is estimated at the slowest one.
SIM_DEFAULT_THREADS_PER_SECOND: Final = min(SIM_THREADS_PER_SECOND.values())
# How long a run on the CPU may take before it asks: what the simulator's 131,072 threads take
# at its rate (≈ 44 s). The emulator's limit is derived from it, so both ask at the same wait.
CONFIRM_SECONDS: Final = SIM_MAX_THREADS_UNASKED / SIM_RATE

# Emulated threads a second, per experiment (the lockstep NumPy emulator, ``simtviz.emu``),
# measured by benchmarks/emu_rates.py on the 2-core CPU machine while it was loaded (load 8-12,
# docs/BENCHMARKS.md, 2026-12-03), rounded down: a run ends early, never late.
EMU_THREADS_PER_SECOND: Final[dict[str, float]] = {
    "record": 800_000.0,  # 2^20 threads recorded and verified in 0.6-1.2 s
    "vecadd": 1_500_000.0,  # >= 1.7 M threads/s end to end
    "trace": 300_000.0,  # 0.3-0.7 M threads/s with the analysis (3 accesses per thread)
}
# trace starts a fresh child process per run (no numba to import: NumPy and simtviz).
EMU_STARTUP_SECONDS: Final[dict[str, float]] = {"trace": 0.5}
EMU_DEFAULT_THREADS_PER_SECOND: Final = min(EMU_THREADS_PER_SECOND.values())
# The emulator runs this many threads without asking: CONFIRM_SECONDS at its slowest rate.
EMU_MAX_THREADS_UNASKED: Final = int(CONFIRM_SECONDS * EMU_DEFAULT_THREADS_PER_SECOND)

# On the H200 a launch of 2.2 × 10^12 threads (grid 2^31 - 1 of 1024, a window recording) took
# 4.4 s by CUDA events: ≈ 5 × 10^11 threads/s. The estimate stays on the safe side (slower GPUs).
GPU_THREADS_PER_SECOND: Final = 2.0e11


def threads_per_second(kind: str, experiment: str = "record") -> float:
    """The rate used for ``experiment`` on backend ``kind`` (``"gpu"``, ``"emu"`` or ``"sim"``)."""
    if kind == "gpu":
        return GPU_THREADS_PER_SECOND
    if kind == "emu":
        return EMU_THREADS_PER_SECOND.get(experiment, EMU_DEFAULT_THREADS_PER_SECOND)
    return SIM_THREADS_PER_SECOND.get(experiment, SIM_DEFAULT_THREADS_PER_SECOND)


def estimate_seconds(kind: str, threads: int, experiment: str = "record") -> float:
    """Seconds ``threads`` threads of ``experiment`` take on backend ``kind``, leaning slow."""
    startups = {"sim": SIM_STARTUP_SECONDS, "emu": EMU_STARTUP_SECONDS}.get(kind, {})
    return threads / threads_per_second(kind, experiment) + startups.get(experiment, 0.0)


def max_threads_unasked(kind: str) -> int:
    """Threads a run on backend ``kind`` may have before it asks first (CLI: ``--force``)."""
    if kind == "sim":
        return SIM_MAX_THREADS_UNASKED
    if kind == "emu":
        return EMU_MAX_THREADS_UNASKED
    return GPU_MAX_THREADS_UNASKED


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
