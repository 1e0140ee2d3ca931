"""The schedule chart and the tab around it, by hand: where the bars lie, one wave has no tail,
wave colours cycle after eight, only a left click picks a bar, a run for another tab is not
shown, and the tab hands a clicked block of a non-square launch to the index map."""

from __future__ import annotations

import types

import numpy as np
import pytest
from hand_schedule import END, SMID, START, SUMMARY, shown
from PySide6.QtCore import QObject, Qt, Signal

from simtviz.core.launch import LaunchConfig
from simtviz.core.schedule import ScheduleResult, analyse
from simtviz.core.schedule.occupancy import occupancy, profile_for
from simtviz.qt.tabs.schedule.data import SCHEDULE, ShownSchedule
from simtviz.qt.tabs.schedule.gantt import wave_colour
from simtviz.qt.tabs.schedule.tab import SchedulePanel
from simtviz.qt.tabs.schedule.view import ScheduleView


def test_the_bars_fill_the_middle_80_percent_of_each_lane(qtbot) -> None:
    view = ScheduleView()
    qtbot.addWidget(view)
    view.show_schedule(shown())
    # 2 lanes of 0.5 per SM row; a bar is 0.4 high with 0.05 above and below. The top bar starts
    # at 0 + 0.05 (SM 0, lane 0); the lowest ends at 1 + 0.5 + 0.05 + 0.4 = 1.95 (SM 1, lane 1).
    rect = view.ganttItem.boundingRect()
    assert (rect.left(), rect.right()) == (0.0, 6.0)
    assert rect.top() == pytest.approx(0.05) and rect.bottom() == pytest.approx(1.95)
    assert view.bar_count() == 6


def test_one_wave_has_no_tail_in_the_legend(qtbot) -> None:
    view = ScheduleView()
    qtbot.addWidget(view)
    smid, start, end = np.array([0, 1]), np.array([0, 0]), np.array([1000, 2000])
    summary = dict(SUMMARY, grid=[2, 1, 1], blocks=2)
    view.show_schedule(ShownSchedule(summary, smid, start, end, analyse(smid, start, end), "x"))
    legend = view.scheduleLegend.text()
    assert "wave 1" in legend and "tail" not in legend


def test_wave_colours_cycle_after_eight() -> None:
    assert wave_colour(0) == "#0072B2" and wave_colour(7) == "#000000"
    assert wave_colour(8) == "#0072B2" and wave_colour(9) == "#E69F00"


def test_only_a_left_click_picks_a_bar(qtbot) -> None:
    view = ScheduleView()
    qtbot.addWidget(view)
    view.resize(1200, 600)
    view.show()
    qtbot.waitExposed(view)
    view.show_schedule(shown())
    qtbot.wait(10)
    pos = view.bar_view_pos(4)
    with qtbot.assertNotEmitted(view.blockClicked, wait=50):
        qtbot.mouseClick(view.scheduleChart.viewport(), Qt.MouseButton.RightButton, pos=pos)
    assert view.selected() is None
    with qtbot.waitSignal(view.blockClicked) as caught:
        qtbot.mouseClick(view.scheduleChart.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert caught.args[0] in (4, 5)  # blocks 4 and 5 share SM 0 at 4 → 6 µs


class Session(QObject):
    backendReady = Signal(object)
    backendFailed = Signal(object, str)
    busyChanged = Signal(bool)
    resultArrived = Signal(str, object)
    runFailed = Signal(str, object, object, str)

    def __init__(self) -> None:
        super().__init__()
        self.kind, self.can_run, self.info = "gpu", True, None
        self.blocks: list[tuple] = []
        self.submitted: list[str] = []
        self.bridge = types.SimpleNamespace(submit=lambda name, *a, **k: self.submitted.append(name))

    def show_block(self, config: LaunchConfig, block: tuple[int, int, int]) -> None:
        self.blocks.append((config, block))


def test_a_result_for_another_experiment_is_not_shown(qtbot) -> None:
    session = Session()
    view = ScheduleView(session)
    qtbot.addWidget(view)
    result = ScheduleResult(
        backend="gpu:test", grid=(6, 1, 1), block=(256, 1, 1), sms=2, work_us=2.0, smem_per_block=0,
        occupancy=occupancy(profile_for("9.0"), 256, 64), driver_blocks_per_sm=4,
        smid=SMID.astype(np.int32), start_ns=START.astype(np.int64), end_ns=END.astype(np.int64),
        analysis=analyse(SMID, START, END),
    )  # fmt: skip
    session.resultArrived.emit("vecadd", result)
    assert view.summary() is None
    session.resultArrived.emit(SCHEDULE, result)
    assert view.summary()["blocks"] == 6


def test_the_tab_hands_the_clicked_block_and_the_launchs_threads_on(qtbot) -> None:
    session = Session()
    panel = SchedulePanel(session)
    qtbot.addWidget(panel)
    panel.scheduleView.show_schedule(shown())
    # the occupancy view gets 48 × 2 × 1 = 96 threads, 40 registers, 1,536 B
    s = panel.occupancyView.summary()
    assert (s["block"], s["regs_per_thread"], s["smem_per_block"]) == (96, 40, 1536)
    panel.scheduleView.select(5)
    config, block = session.blocks[-1]
    assert config == LaunchConfig.of((3, 2, 1), (48, 2, 1))
    assert block == (2, 1, 0)  # 5 % 3 = 2, 5 // 3 = 1


def test_the_occupancy_view_asks_a_gpu_only_and_lists_it_once(qtbot) -> None:
    import dataclasses

    from simtviz.backends.schedule.occupancy import GpuOccupancyFacts
    from simtviz.core.schedule.occupancy import PROFILES
    from simtviz.qt.tabs.schedule.occupancy import OccupancyView

    session = Session()
    view = OccupancyView(session)
    qtbot.addWidget(view)
    session.backendReady.emit(types.SimpleNamespace(kind="sim"))
    assert session.submitted == []  # no GPU to read
    session.backendReady.emit(types.SimpleNamespace(kind="gpu"))
    assert session.submitted == ["occupancy-device"]
    facts = GpuOccupancyFacts(dataclasses.replace(PROFILES["9.0"], measured=True), 30, 72, 0)
    view.set_gpu_facts(facts)
    view.set_gpu_facts(facts)
    texts = [view.occupancyDevice.itemText(i) for i in range(view.occupancyDevice.count())]
    assert sum(t.startswith("this GPU") for t in texts) == 1


def test_a_file_saved_without_sms_or_clock_draws_no_bars(qtbot, tmp_path) -> None:
    from simtviz.core.schedule import save_npz

    # -1 for SM, start and end (what a backend writes when it cannot read them): nothing measured.
    unknown = np.full(3, -1)
    result = ScheduleResult(
        backend="gpu:test", grid=(3, 1, 1), block=(32, 1, 1), sms=132, work_us=0.0, smem_per_block=0,
        occupancy=occupancy(profile_for("9.0"), 32, 30), driver_blocks_per_sm=None,
        smid=unknown.astype(np.int32), start_ns=unknown.astype(np.int64), end_ns=unknown.astype(np.int64),
        analysis=None,
    )  # fmt: skip
    path = save_npz(result, tmp_path / "sim.npz")
    view = ScheduleView()
    qtbot.addWidget(view)
    before = view.scheduleSelected.text()
    assert view.open_file(path)
    assert view.shown.analysis is None and view.bar_count() == 0
    table = view.scheduleFacts
    assert [table.item(r, 2).text() for r in range(table.rowCount())] == ["—"] * 4
    view.select(0)
    assert view.selected() is None and view.scheduleSelected.text() == before


def test_the_chart_opens_on_every_sm_row_and_the_whole_run(qtbot) -> None:
    view = ScheduleView()
    qtbot.addWidget(view)
    view.show_schedule(shown())
    (x0, x1), (y0, y1) = view.gantt.vb.viewRange()
    # 0 → 6 µs and 2 % more; SM rows 0 and 1 exactly (no empty row under them)
    assert (x0, x1) == (0.0, pytest.approx(6.12)) and (y0, y1) == (0.0, 2.0)
    # the counts: SM 0's 4 blocks and 10 % more
    cx0, cx1 = view.counts.vb.viewRange()[0]
    assert (cx0, cx1) == (0.0, pytest.approx(4.4))


def test_a_clicked_bar_counts_the_waves_measured_not_the_theorys(qtbot) -> None:
    view = ScheduleView()
    qtbot.addWidget(view)
    theory = dict(SUMMARY["theoretical"], waves=3)  # theory says 3, the run measured 2
    view.show_schedule(
        ShownSchedule(dict(SUMMARY, theoretical=theory), SMID, START, END, analyse(SMID, START, END), "x")
    )
    view.select(4)
    # block 4 of grid (3, 2, 1): x = 4 % 3 = 1, y = 4 // 3 = 1
    assert view.scheduleSelected.text() == "Block 4 = blockIdx (1, 1, 0): SM 0, 4.00 → 6.00 µs, wave 2 of 2."


def test_the_tail_region_runs_from_its_first_start_to_its_last_end(qtbot) -> None:
    view = ScheduleView()
    qtbot.addWidget(view)
    # As above, but block 5 starts at 4,500 ns: the tail (blocks 4 and 5) runs 4.0 → 6.0 µs.
    start = START.copy()
    start[5] = 4500
    view.show_schedule(ShownSchedule(SUMMARY, SMID, start, END, analyse(SMID, start, END), "x"))
    assert view.scheduleChart._tail.getRegion() == (4.0, 6.0)


def test_blocks_coloured_by_index_go_from_the_first_colour_up(qtbot, monkeypatch) -> None:
    from simtviz.qt.tabs.schedule.gantt import GanttItem

    drawn: list[list[int]] = []
    original = GanttItem.set_bars
    monkeypatch.setattr(
        GanttItem, "set_bars", lambda self, *a: (drawn.append(list(a[4])), original(self, *a))[1]
    )
    view = ScheduleView()
    qtbot.addWidget(view)
    view.show_schedule(shown())
    view.scheduleColorBy.setCurrentIndex(1)  # block index
    # 24 steps over 6 blocks: block b gets step b × 24 // 6 = 4b
    assert drawn[-1] == [0, 4, 8, 12, 16, 20]


def test_a_rejected_schedule_launch_says_the_drivers_words(qtbot, monkeypatch) -> None:
    from simtviz.core.errors import LaunchRejected

    opened: list[object] = []
    monkeypatch.setattr(
        "simtviz.qt.tabs.schedule.view.dialogs.show_launch_error", lambda p, e: opened.append(e)
    )
    session = Session()
    view = ScheduleView(session)
    qtbot.addWidget(view)
    exc = LaunchRejected("CUDA_ERROR_INVALID_VALUE", LaunchConfig.of(1, 2048), [], "CUDAError")
    session.runFailed.emit(SCHEDULE, None, exc, "")
    assert view.scheduleMessage.text() == (
        "<b>Launch rejected:</b> CUDA_ERROR_INVALID_VALUE<br>"
        "The driver did not say which limit; see the details."
    )
    assert opened == [exc]
