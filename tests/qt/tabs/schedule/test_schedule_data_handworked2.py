"""A schedule measured in this session (``ShownSchedule.of_result``), made by hand: what the view
draws is the run's own summary and per-block rows, said to come from this GPU, and keeps the run
so that Save can write it."""

from __future__ import annotations

import numpy as np
import pytest

from simtviz.core.schedule import ScheduleResult, analyse
from simtviz.core.schedule.occupancy import occupancy, profile_for
from simtviz.qt.tabs.schedule.data import ShownSchedule

# Five blocks on SMs 0 and 2 (times in ns):
#   block 0: SM 0 [0, 100)   block 1: SM 0 [0, 100)   block 2: SM 2 [50, 300)
#   block 3: SM 0 [100, 250) block 4: SM 0 [100, 200) (they start as 0 and 1 end)
SMID = np.array([0, 0, 2, 0, 0], np.int32)
START = np.array([0, 0, 50, 100, 100], np.int64)
END = np.array([100, 100, 300, 250, 200], np.int64)


def test_a_run_of_this_session_is_shown_with_its_own_figures_and_kept_for_save() -> None:
    result = ScheduleResult(
        backend="gpu:test",
        grid=(5, 1, 1),
        block=(256, 1, 1),
        sms=3,
        work_us=2.0,
        smem_per_block=0,
        # cc 9.0, 256 threads × 64 registers = 16,384 per block: 65,536 / 16,384 = 4 blocks per SM
        occupancy=occupancy(profile_for("9.0"), 256, 64),
        driver_blocks_per_sm=4,
        smid=SMID,
        start_ns=START,
        end_ns=END,
        analysis=analyse(SMID, START, END),
    )
    shown = ShownSchedule.of_result(result)
    assert shown.source == "this GPU" and shown.result is result  # Save writes this run
    assert shown.smid.tolist() == [0, 0, 2, 0, 0]
    assert shown.start_ns.tolist() == [0, 0, 50, 100, 100]
    assert shown.end_ns.tolist() == [100, 100, 300, 250, 200]
    assert shown.grid == (5, 1, 1) and shown.block == (256, 1, 1)
    assert shown.block_xyz(4) == (4, 0, 0)
    s = shown.summary
    assert (s["backend"], s["blocks"], s["sms"], s["regs_per_thread"]) == ("gpu:test", 5, 3, 64)
    # 4 blocks × 8 warps = 32 of 64 warps: 0.5; 5 blocks over 3 SMs × 4 = 12 slots: 1 wave
    assert s["theoretical"]["blocks_per_sm"] == 4 and s["theoretical"]["occupancy"] == 0.5
    assert s["theoretical"]["waves"] == 1
    # measured: SMs 0 and 2 used, at most 2 at once on SM 0, blocks 3 and 4 a second wave,
    # from 0 to 300 ns = 0.3 µs
    m = s["measured"]
    assert (m["sms_used"], m["max_resident_blocks_per_sm"], m["waves"]) == (2, 2, 2)
    assert m["span_us"] == pytest.approx(0.3)
    assert shown.analysis is not None and shown.analysis.tail_blocks == 2
