"""The Schedule tab's sentences at a count of one: "1 block per SM", "1 wave" (never "1 blocks")."""

from __future__ import annotations

import pytest

from repo_paths import DATA


@pytest.fixture
def panel(qtbot):
    from simtviz.qt.tabs.schedule.tab import SchedulePanel

    p = SchedulePanel()
    qtbot.addWidget(p)
    return p


def test_the_occupancy_result_says_one_block_per_sm(panel) -> None:
    view = panel.occupancyView
    view.set_device("9.0")
    # 1,024 threads × 64 registers = 65,536 registers a block: the SM's whole file (cc 9.0), so 1 block.
    view.occupancyBlock.setValue(1024)
    view.occupancyRegs.setValue(64)
    view.occupancySmem.setValue(0)
    text = view.occupancyResult.text()
    assert "<b>1 block per SM</b>" in text
    # 1,024 / 32 = 32 warps of 64.
    assert "32 of 64 warps" in text
    # Two blocks of 512 threads: 2 × 512 × 64 = 65,536, so 2 blocks, plural again.
    view.occupancyBlock.setValue(512)
    assert "<b>2 blocks per SM</b>" in view.occupancyResult.text()


def test_the_verdict_of_a_one_block_launch_speaks_in_the_singular(panel) -> None:
    from simtviz.qt.tabs.schedule.tab import ShownSchedule

    shown = ShownSchedule.of_file(DATA / "schedule" / "schedule-registers.npz")
    theory = dict(shown.summary["theoretical"], blocks_per_sm=1, waves=1)
    measured = dict(shown.summary["measured"], max_resident_blocks_per_sm=1, waves=1)
    summary = dict(
        shown.summary, theoretical=theory, measured=measured, driver_blocks_per_sm=1, blocks=1, sms=132
    )
    view = panel.scheduleView
    view.show_schedule(ShownSchedule(summary, shown.smid, shown.start_ns, shown.end_ns, shown.analysis, "x"))
    # 132 SMs × 1 block = 132 blocks a wave; 1 block needs ceil(1 / 132) = 1 wave.
    assert (
        "1 block per SM (limited by registers) × 132 SMs = 132 blocks per wave; "
        "1 block needs ceil(1 / 132) = 1 wave." in view.scheduleVerdict.text()
    )
