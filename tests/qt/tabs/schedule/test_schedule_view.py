"""The schedule and occupancy views, drawing schedules recorded on an NVIDIA H100 (fixtures)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from repo_paths import DATA
from simtviz.core.schedule import load_npz

FIXTURES = DATA / "schedule"
# name → (blocks, measured most resident blocks per SM, measured waves), from the H100 run.
RECORDED = {
    "schedule-threads": (2464, 8, 3),
    "schedule-registers": (1232, 4, 3),
    "schedule-shared-memory": (1540, 5, 3),
    "schedule-blocks": (9856, 32, 3),
}


@pytest.fixture
def panel(qtbot):
    from simtviz.qt.tabs.schedule.tab import SchedulePanel

    p = SchedulePanel()
    qtbot.addWidget(p)
    p.resize(1600, 900)
    p.show()
    qtbot.waitExposed(p)
    return p


def facts(view) -> dict[str, list[str]]:
    table = view.scheduleFacts
    return {
        table.verticalHeaderItem(r).text(): [table.item(r, c).text() for c in range(3)]
        for r in range(table.rowCount())
    }


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_a_recorded_schedule_is_drawn_with_its_measured_figures(panel, name: str) -> None:
    blocks, resident, waves = RECORDED[name]
    view = panel.scheduleView
    assert view.summary() is None
    assert view.open_file(FIXTURES / f"{name}.npz")
    assert view.bar_count() == blocks  # one bar per block
    shown = facts(view)
    assert shown["resident blocks / SM"][2] == str(resident)
    assert shown["waves"][2] == str(waves)
    # Theory and driver beside it; on these launches all three agree.
    assert shown["resident blocks / SM"][0] == str(resident) == shown["resident blocks / SM"][1]
    assert "agree" in view.scheduleVerdict.text() and "disagree" not in view.scheduleVerdict.text()
    assert "wave 3 (the tail)" in view.scheduleLegend.text()
    assert view.summary() == load_npz(FIXTURES / f"{name}.npz")["summary"]


def test_the_tail_is_the_partial_last_wave(panel) -> None:
    # 2,464 blocks, 132 SMs × 8 = 1,056 per wave: two full waves, then 2,464 - 2,112 = 352.
    view = panel.scheduleView
    view.open_file(FIXTURES / "schedule-threads.npz")
    assert facts(view)["tail (last wave) blocks"][:3:2] == ["352", "352"]
    assert "tail: 352 blocks = 33% of a wave" in view.scheduleChart.tail_text.toPlainText()


def test_clicking_a_bar_selects_that_block(panel, qtbot) -> None:
    view = panel.scheduleView
    view.open_file(FIXTURES / "schedule-registers.npz")
    data = load_npz(FIXTURES / "schedule-registers.npz")
    block = 1000
    with qtbot.waitSignal(view.blockClicked) as caught:
        qtbot.mouseClick(
            view.scheduleChart.viewport(), Qt.MouseButton.LeftButton, pos=view.bar_view_pos(block)
        )
    clicked = caught.args[0]
    # The bar under the mouse: on the block's SM, at its time (a neighbour in a thin lane is
    # acceptable only if it is the same SM and overlaps in time).
    assert data["smid"][clicked] == data["smid"][block]
    assert view.selected() == clicked
    text = view.scheduleSelected.text()
    assert f"blockIdx ({clicked}, 0, 0)" in text and f"SM {data['smid'][clicked]}" in text


def test_disagreement_is_shown(panel) -> None:
    from simtviz.qt.tabs.schedule.tab import ShownSchedule

    view = panel.scheduleView
    shown = ShownSchedule.of_file(FIXTURES / "schedule-threads.npz")
    summary = dict(shown.summary, driver_blocks_per_sm=7)
    view.show_schedule(ShownSchedule(summary, shown.smid, shown.start_ns, shown.end_ns, shown.analysis, "x"))
    assert "disagree" in view.scheduleVerdict.text()
    assert "the driver says 7 blocks per SM, simtviz computed 8" in view.scheduleVerdict.text()


def test_opening_a_schedule_shows_its_launch_in_the_occupancy_view(panel) -> None:
    panel.scheduleView.open_file(FIXTURES / "schedule-shared-memory.npz")
    s = panel.occupancyView.summary()
    # 128 threads, 12 registers, 40 KiB: (40 + 1) KiB per block, 228 // 41 = 5 blocks.
    assert (s["block"], s["regs_per_thread"], s["smem_per_block"]) == (128, 12, 40960)
    assert (s["blocks_per_sm"], s["limiter"]) == (5, "shared memory")


@pytest.mark.parametrize(
    ("block", "regs", "smem", "blocks", "limiter"),
    [
        (256, 32, 0, 8, "threads"),  # 2048 / 256
        (256, 64, 0, 4, "registers"),  # 64 × 32 = 2048 per warp: 32 warps fit, 8 per block
        (256, 32, 49152, 4, "shared memory"),  # 228 KiB // 49 KiB
        (32, 32, 0, 32, "blocks"),  # at most 32 per SM on cc 9.0
    ],
)
def test_the_occupancy_view_follows_each_limiter(
    panel, block: int, regs: int, smem: int, blocks: int, limiter: str
) -> None:
    view = panel.occupancyView
    view.set_device("9.0")
    view.occupancyBlock.setValue(block)
    view.occupancyRegs.setValue(regs)
    view.occupancySmem.setValue(smem)
    s = view.summary()
    assert (s["blocks_per_sm"], s["limiter"]) == (blocks, limiter)
    assert f"{blocks} blocks per SM" in view.occupancyResult.text()
    assert f"limited by <b>{limiter}" in view.occupancyResult.text()
    assert "public profile" in view.occupancyNote.text() and "not measured" in view.occupancyNote.text()
    # The chart marks the current launch.
    xs, ys = view._here.getData()
    assert (xs[0], ys[0]) == (block, pytest.approx(s["occupancy"] * 100))


def test_readable_in_presentation_mode(panel, qtbot) -> None:
    panel.setStyleSheet("QWidget { font-size: 20pt; }")
    panel.scheduleView.open_file(FIXTURES / "schedule-threads.npz")
    qtbot.wait(10)
    axis = panel.scheduleView.gantt.getAxis("bottom")
    assert axis.style["tickFont"].pointSize() >= 18
    chart_axis = panel.occupancyView.occupancyChart.getPlotItem().getAxis("left")
    assert chart_axis.style["tickFont"].pointSize() >= 18


def test_in_the_app_on_the_simulator(window, qtbot) -> None:
    tab = window.scheduleTab
    view = tab.scheduleView
    assert window.findChild(type(view), "scheduleView") is view
    assert "Nothing to measure" in view.scheduleMessage.text()
    assert not view.scheduleRunButton.isEnabled()
    # The occupancy half works without a GPU.
    assert window.scheduleTab.occupancyView.summary()["cc"] == "9.0"


def test_a_clicked_block_is_pinned_in_the_index_map_and_inspector(window, qtbot, run_launch) -> None:
    from simtviz.core.schedule import analyse
    from simtviz.qt.tabs.schedule.tab import ShownSchedule

    run_launch((8, 1, 1), (32, 1, 1))
    # A hand-made schedule of that launch: 8 blocks on 2 SMs, two at a time, 10 µs each.
    smid = np.array([0, 1, 0, 1, 0, 1, 0, 1])
    start = np.array([0, 0, 0, 0, 10, 10, 10, 10]) * 1000
    end = start + 10_000
    summary = load_npz(FIXTURES / "schedule-threads.npz")["summary"]
    summary.update(grid=[8, 1, 1], block=[32, 1, 1], blocks=8)
    view = window.scheduleTab.scheduleView
    view.show_schedule(ShownSchedule(summary, smid, start, end, analyse(smid, start, end), "hand-made"))
    window.tabs.setCurrentWidget(window.scheduleTab)
    view.select(5)
    assert window.tabs.currentIndex() == 0
    cell = window.indexMap.pinned()
    assert cell is not None and (cell.row, cell.col) == (5, 0)  # row = blockIdx.x, column = threadIdx.x
    qtbot.waitUntil(lambda: "blockIdx" in window.inspector.text(), timeout=5000)
    assert "(5, 0, 0)" in window.inspector.text()
