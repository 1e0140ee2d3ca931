"""A clicked bar of the schedule, described by hand: its block, SM, start and end in µs, and its
wave counted from 1 as the legend counts them ("wave 1", "wave 2 (the tail)")."""

from __future__ import annotations

import numpy as np

from simtviz.core.schedule import analyse
from simtviz.qt.tabs.schedule.data import ShownSchedule
from simtviz.qt.tabs.schedule.view import ScheduleView

SUMMARY = {
    "backend": "gpu:NVIDIA H100",
    "grid": [2, 2, 1],
    "block": [256, 1, 1],
    "blocks": 4,
    "work_us": 2.0,
    "regs_per_thread": 30,
    "smem_per_block": 0,
    "sms": 2,
    "driver_blocks_per_sm": 1,
    "theoretical": {"blocks_per_sm": 1, "waves": 2, "limiter": "threads"},
    "measured": {"max_resident_blocks_per_sm": 1, "waves": 2, "sms_used": 2, "span_us": 6.0},
}


def test_a_clicked_bar_says_its_wave_counted_from_one(qtbot) -> None:
    # Blocks 0 and 1 start first on SMs 0 and 1 (wave 1); block 2 starts on SM 0 when block 0
    # ends (3,000 ns), block 3 on SM 1 after block 1 ends: both wait, so they are wave 2 of 2.
    smid = np.array([0, 1, 0, 1])
    start = np.array([1000, 1500, 3000, 4000])
    end = np.array([3000, 3500, 6000, 7000])
    view = ScheduleView()
    qtbot.addWidget(view)
    view.show_schedule(ShownSchedule(SUMMARY, smid, start, end, analyse(smid, start, end), "hand"))
    # µs since the first start (1,000 ns): block 0 runs 0 → 2 µs, block 3 runs 3 → 6 µs.
    view.select(0)
    assert view.scheduleSelected.text() == "Block 0 = blockIdx (0, 0, 0): SM 0, 0.00 → 2.00 µs, wave 1 of 2."
    # Block 3 of a 2 × 2 grid (x fastest) is blockIdx (1, 1, 0).
    view.select(3)
    assert view.scheduleSelected.text() == "Block 3 = blockIdx (1, 1, 0): SM 1, 3.00 → 6.00 µs, wave 2 of 2."
    assert "wave 1" in view.scheduleLegend.text() and "wave 2 (the tail)" in view.scheduleLegend.text()
