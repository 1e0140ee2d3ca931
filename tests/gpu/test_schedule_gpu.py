"""On a real GPU: the computed occupancy equals the driver's, and the measured schedule equals the theory.

Run as its own process: ``SIMTVIZ_BACKEND=gpu python -m pytest -m gpu tests/gpu/test_schedule_gpu.py``.
With ``SIMTVIZ_SCHEDULE_FIXTURES=DIR`` the three measured launches are saved there as
``schedule-<limiter>.npz`` (fixtures for the schedule view's tests on machines without a GPU).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from simtviz.core.schedule import ScheduleRequest, save_npz
from simtviz.core.schedule.occupancy import occupancy, theoretical_waves

pytestmark = pytest.mark.gpu

# Kernel variants: (heavy, max_registers). The plain kernel uses ~12 registers on sm_90, the
# heavy one ~56; capped copies of the heavy one give other counts from the same source.
VARIANTS = [(False, None), (True, None), (True, 24), (True, 32), (True, 40)]
BLOCKS = [32, 96, 256, 640, 1024]
SMEM = [0, 12_345, 48 * 1024]  # dynamic bytes; 48 KiB is the most a block gets without opting in


@pytest.fixture(scope="module")
def profile():
    from simtviz.backends.schedule.occupancy import current_profile

    return current_profile()


def test_computed_blocks_per_sm_equal_the_drivers(profile) -> None:
    from simtviz.backends.schedule.gpu import compiled_kernel, driver_blocks_per_sm

    rows = []
    for heavy, cap in VARIANTS:
        overload = compiled_kernel(heavy, cap)
        regs = int(overload.regs_per_thread)
        static = int(overload.shared_mem_per_block)
        for block in BLOCKS:
            for smem in SMEM:
                ours = occupancy(profile, block, regs, static + smem)
                theirs = driver_blocks_per_sm(overload, block, smem)
                rows.append((heavy, cap, regs, block, smem, ours.blocks_per_sm, ours.limiter, theirs))
    table = "\n".join(str(r) for r in rows)
    assert len(rows) >= 20
    assert all(r[-1] is not None for r in rows), "the driver's occupancy call was unreachable:\n" + table
    disagreements = [r for r in rows if r[5] != r[-1]]
    assert not disagreements, (
        "computed != driver (heavy, cap, regs, block, smem, ours, limiter, driver):\n"
        + "\n".join(str(r) for r in disagreements)
    )
    # The combinations cover every limiting factor.
    assert {r[6] for r in rows} == {"threads", "blocks", "registers", "shared memory"}, table


# (limiter, request maker): block sizes chosen so that one factor alone limits on cc 9.0.
LAUNCHES = {
    "threads": dict(block=256),  # 8 blocks of 8 warps fill 64 warps
    "registers": dict(block=256, heavy=True),  # ~56 registers → 4 blocks
    "shared memory": dict(block=128, smem=40 * 1024),  # (40 + 1) KiB → 228 // 41 = 5 blocks
    "blocks": dict(block=32),  # 32 one-warp blocks
}


@pytest.mark.parametrize("limiter", list(LAUNCHES))
def test_measured_residency_and_waves_equal_the_theory(profile, limiter: str) -> None:
    from simtviz.backends.schedule import run_schedule_gpu

    params = LAUNCHES[limiter]
    # Size the grid from the theory: 2 full waves and a third of one more (a visible tail).
    probe = run_schedule_gpu(ScheduleRequest(1, **params))
    per_sm = probe.occupancy.blocks_per_sm
    assert probe.occupancy.limiter == limiter, probe.occupancy
    capacity = profile.sms * per_sm
    blocks = 2 * capacity + capacity // 3
    result = run_schedule_gpu(ScheduleRequest(blocks, work_us=20.0, **params))
    summary = result.summary()
    assert result.driver_blocks_per_sm == per_sm, summary
    a = result.analysis
    assert a is not None
    assert a.sms_used == profile.sms, summary
    assert a.max_resident_blocks_per_sm == per_sm, summary
    assert a.waves == theoretical_waves(blocks, profile.sms, per_sm) == 3, summary
    assert a.tail_blocks == capacity // 3, summary
    # Every block stayed at least its 20 µs of busy work.
    assert ((result.end_ns - result.start_ns) >= 20_000).all()
    fixtures = os.environ.get("SIMTVIZ_SCHEDULE_FIXTURES")
    if fixtures:
        Path(fixtures).mkdir(parents=True, exist_ok=True)
        save_npz(result, Path(fixtures) / f"schedule-{limiter.replace(' ', '-')}.npz")


def test_occupancy_summary_of_the_current_gpu(profile) -> None:
    from simtviz.backends.schedule import occupancy_summary

    summary = occupancy_summary(256, 64, 0, "current")
    assert summary["cc"] == profile.cc_text
    if profile.cc == (9, 0):
        # 64 × 32 = 2048 per warp → 8 warps per sub-partition × 4 = 32 // 8 = 4 blocks.
        assert (summary["blocks_per_sm"], summary["limiter"]) == (4, "registers")
