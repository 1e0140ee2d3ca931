"""Backend ``sim``: kernels on numba's CUDA simulator, with NumPy arrays, in this process.

The simulator runs one Python thread per CUDA thread and checks no launch limits, so the
experiments' checks speak for the driver. In-process runs serve the CLI and tests; the desktop
app runs them in a child process (``sim_process``) so that the window stays responsive and
Cancel can stop a run at once.
"""

from __future__ import annotations

from typing import Any

from simtviz.backends.base import Backend, BackendInfo, BackendKind, Progress
from simtviz.backends.experiment import AnyExperiment
from simtviz.core.limits import DeviceLimits

SIM_LABEL = "CUDA simulator on the CPU — no NVIDIA GPU in use"
SIM_LIMITS = DeviceLimits(name="CUDA simulator (limits of every GPU since compute capability 5.0)")


def sim_info(reason: str = "") -> BackendInfo:
    label = SIM_LABEL if not reason else f"CUDA simulator on the CPU — {reason}"
    return BackendInfo(BackendKind.SIM, "sim", label, SIM_LIMITS)


class SimBackend(Backend):
    """Runs the simulator in this process (numba must be, or become, the simulated one)."""

    kind = BackendKind.SIM

    def __init__(self, reason: str = "") -> None:
        self._info = sim_info(reason)

    def info(self) -> BackendInfo:
        return self._info

    def execute(self, experiment: AnyExperiment, request: Any, progress: Progress | None) -> Any:
        return experiment.run_sim(request, self._info, progress)
