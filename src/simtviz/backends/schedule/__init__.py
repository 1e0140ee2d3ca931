"""The schedule experiment (issue 13): where and when the blocks ran, beside the theory.

Plain functions; the experiment protocol and the CLI/GUI wire them in:

- ``run_schedule_gpu(request) -> ScheduleResult`` (GPU only; the simulator has no SM ids or clock:
  ``check_can_measure("sim")`` raises ``NothingToMeasure``, the CLI's exit status 5);
- ``occupancy_summary(block, regs, smem, device)`` → the ``simtviz occupancy --json`` dict, for a
  built-in profile (``"9.0"``…) anywhere, or ``"current"`` on a GPU.
"""

from __future__ import annotations

from simtviz.backends.schedule.gpu import driver_blocks_per_sm, run_schedule_gpu
from simtviz.backends.schedule.occupancy import NothingToMeasure, check_can_measure, occupancy_summary

__all__ = [
    "NothingToMeasure",
    "check_can_measure",
    "driver_blocks_per_sm",
    "occupancy_summary",
    "run_schedule_gpu",
]
