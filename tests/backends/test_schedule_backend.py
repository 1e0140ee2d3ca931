"""The schedule kernels on the simulator (they run, and record -1: nothing to measure there) and
the occupancy summary for the built-in profiles."""

from __future__ import annotations

import numpy as np
import pytest

from simtviz.backends.schedule import NothingToMeasure, check_can_measure, occupancy_summary
from simtviz.core.schedule import ScheduleRequest, is_measured


@pytest.mark.parametrize("name", ["schedule_blocks", "schedule_blocks_heavy"])
def test_schedule_kernels_run_on_the_simulator(backend_kind: str, name: str) -> None:
    if backend_kind != "sim":
        pytest.skip("simulator behaviour")
    from simtviz.kernels import schedule

    kernel = getattr(schedule, name)
    blocks = 3 * 2
    smid = np.full(blocks, -7, np.int32)
    start = np.full(blocks, -7, np.int64)
    end = np.full(blocks, -7, np.int64)
    # 64 bytes of dynamic shared memory per block; 1 ms of busy work that the simulator skips.
    kernel[(3, 2), (4, 2), 0, 64](np.int64(1_000_000), smid, start, end)
    # Every block wrote its row (thread 0), and the simulator has no SM id or clock: -1.
    assert smid.tolist() == [-1] * blocks
    assert start.tolist() == [-1] * blocks and end.tolist() == [-1] * blocks
    assert not is_measured(smid, start, end)


def test_the_simulator_has_no_schedule() -> None:
    with pytest.raises(NothingToMeasure, match="no SMs"):
        check_can_measure("sim")
    check_can_measure("gpu")


def test_occupancy_summary_for_a_profile() -> None:
    # cc 8.6, 1024 threads × 32 registers: 48 warps per SM // 32 per block = 1 block, 32/48 warps.
    summary = occupancy_summary(1024, 32, 0, "8.6")
    assert summary["cc"] == "8.6" and "computed" in summary["device"]
    assert (summary["blocks_per_sm"], summary["warps_per_sm"], summary["limiter"]) == (1, 32, "threads")
    assert summary["occupancy"] == pytest.approx(2 / 3)
    # No --regs on a profile: 32 assumed (cc 9.0, 256 threads → 8 blocks).
    assert occupancy_summary(256, None, 0, "9.0")["blocks_per_sm"] == 8
    with pytest.raises(ValueError, match=r"6\.1"):
        occupancy_summary(256, 32, 0, "6.1")


def test_schedule_request_checks_its_values() -> None:
    assert ScheduleRequest(10, 256, work_us=20).work_ns == 20_000
    with pytest.raises(ValueError):
        ScheduleRequest(10, 256, work_us=-1)
    with pytest.raises(ValueError, match="heavy"):
        ScheduleRequest(10, 256, max_registers=64)
