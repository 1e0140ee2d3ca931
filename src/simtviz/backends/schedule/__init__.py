"""The schedule experiment (issue 13): where and when the blocks ran, beside the theory.

``backend.run("schedule", ScheduleRequest(...))`` launches the schedule kernel on a GPU and
returns a ``ScheduleResult``. The simulator has no SM ids and no GPU clock, so ``check`` raises
``NothingToMeasure`` there (the CLI's exit status 5) before anything is started. Plain functions:

- ``run_schedule_gpu(request) -> ScheduleResult`` (GPU only);
- ``occupancy_summary(block, regs, smem, device)`` → the ``simtviz occupancy --json`` dict, for a
  built-in profile (``"9.0"``…) anywhere, or ``"current"`` on a GPU;
- ``gpu_occupancy_facts()`` / ``driver_figure(...)``: the GPU's attributes and the driver's own
  occupancy, for the desktop app's worker (it owns CUDA).
"""

from __future__ import annotations

from simtviz.backends.base import Backend, BackendInfo, Progress, WarmUpStep
from simtviz.backends.experiment import Experiment, register
from simtviz.backends.schedule.gpu import driver_blocks_per_sm, run_schedule_gpu
from simtviz.backends.schedule.occupancy import (
    GpuOccupancyFacts,
    NoGpuForCurrent,
    NothingToMeasure,
    check_can_measure,
    driver_figure,
    gpu_occupancy_facts,
    occupancy_summary,
    profile_label,
)
from simtviz.core.schedule import ScheduleRequest, ScheduleResult


class ScheduleExperiment:
    name = "schedule"

    def check(self, request: ScheduleRequest, info: BackendInfo) -> None:
        # A launch the device would refuse goes to the driver anyway: its own error is the lesson.
        check_can_measure(info.kind)

    def estimate_s(self, request: ScheduleRequest, info: BackendInfo) -> float | None:
        return None  # one launch: W µs × waves, well under a second on a GPU

    def run_gpu(
        self, backend: Backend, request: ScheduleRequest, progress: Progress | None
    ) -> ScheduleResult:
        return run_schedule_gpu(request)

    def warm_up_gpu(self, backend: Backend) -> list[WarmUpStep]:
        """Nothing before ready: the first Run is the index map's. The schedule kernels (≈300 ms
        to compile on the H200; the occupancy panel asks for their registers) compile after
        ready, at low priority, so a Run pressed meanwhile goes first."""
        from simtviz.backends.schedule import occupancy

        # Looked up when it runs (tests replace it).
        return [WarmUpStep("schedule kernels", lambda: occupancy.gpu_occupancy_facts())]

    def run_sim(
        self, request: ScheduleRequest, info: BackendInfo, progress: Progress | None
    ) -> ScheduleResult:
        check_can_measure("sim")  # never reached: check() refuses first
        raise AssertionError("check_can_measure refuses the simulator")


SCHEDULE: Experiment[ScheduleRequest, ScheduleResult] = register(ScheduleExperiment())

__all__ = [
    "SCHEDULE",
    "GpuOccupancyFacts",
    "NoGpuForCurrent",
    "NothingToMeasure",
    "ScheduleExperiment",
    "check_can_measure",
    "driver_blocks_per_sm",
    "driver_figure",
    "gpu_occupancy_facts",
    "occupancy_summary",
    "profile_label",
    "run_schedule_gpu",
]
