"""The schedule view's words, controls and chart, line by line, worked out by hand on a
non-square launch: grid (3, 2, 1) of blocks (48, 2, 1) on 2 SMs, where swapping grid and block,
x and y, first and last, or min and max shows."""

from __future__ import annotations

import numpy as np
import pytest
from hand_schedule import END, SMID, START, SUMMARY, shown
from PySide6.QtCore import QObject, Signal
from qt_helpers import cancelled_file_dialogs

from simtviz.core.errors import Cancelled, NothingToMeasure
from simtviz.core.schedule import ScheduleResult, analyse
from simtviz.core.schedule.occupancy import occupancy, profile_for
from simtviz.qt.tabs.schedule.data import NOTHING_HERE, SCHEDULE, ShownSchedule
from simtviz.qt.tabs.schedule.view import ScheduleView


@pytest.fixture
def view(qtbot) -> ScheduleView:
    v = ScheduleView()
    qtbot.addWidget(v)
    return v


def test_a_saved_schedule_is_described_grid_before_block(view: ScheduleView) -> None:
    view.show_schedule(shown())
    assert view.scheduleMessage.text() == (
        "<b>NVIDIA H100</b>, recorded in hand.npz: grid 3×2×1 = 6 blocks of 48×2×1 threads, "
        "2.5 µs of work per thread; 40 registers/thread, 1,536 B shared memory/block; 2 SMs."
    )


def test_the_controls_follow_the_launch_shown(view: ScheduleView) -> None:
    view.show_schedule(shown())
    # 3 × 2 × 1 = 6 blocks of 48 × 2 × 1 = 96 threads
    assert view.scheduleGridX.value() == 6
    assert view.scheduleBlockX.value() == 96
    assert view.scheduleWork.value() == 2.5
    assert view.scheduleSmem.value() == 1536
    assert view.request().grid == 6 and view.request().block == 96


def test_the_verdict_multiplies_per_sm_by_sms_in_the_plural(view: ScheduleView) -> None:
    view.show_schedule(shown())
    # 2 blocks per SM × 2 SMs = 4 a wave; 6 blocks need ceil(6 / 4) = 2 waves.
    assert view.scheduleVerdict.text() == (
        "<b>✓ They agree.</b> 2 blocks per SM (limited by threads) × 2 SMs = 4 blocks per wave; "
        "6 blocks need ceil(6 / 4) = 2 waves."
    )
    # Two blocks are still plural: "need".
    summary = dict(SUMMARY, blocks=2, theoretical=dict(SUMMARY["theoretical"], waves=1))
    summary["measured"] = dict(SUMMARY["measured"], waves=1)
    view.show_schedule(ShownSchedule(summary, SMID, START, END, None, "x"))
    assert "2 blocks need ceil(2 / 4) = 1 wave." in view.scheduleVerdict.text()


def test_only_the_measured_column_is_bold(view: ScheduleView) -> None:
    view.show_schedule(shown())
    table = view.scheduleFacts
    for r in range(table.rowCount()):
        assert [table.item(r, c).font().bold() for c in range(3)] == [False, False, True]


def test_the_chart_titles_axes_counts_and_tail(view: ScheduleView) -> None:
    view.show_schedule(shown())
    chart = view.scheduleChart
    assert chart.gantt.getAxis("left").labelText == "SM (%smid)"
    assert chart.counts.getAxis("bottom").labelText == "blocks run"
    assert chart.gantt.titleLabel.text == "6 blocks on 2 SMs over 6.0 µs — one bar per block"
    # SM 0 ran 4 blocks, SM 1 ran 2: from 2 to 4
    assert chart.counts.titleLabel.text == "2–4 blocks per SM"
    bars = chart._count_bars.opts
    assert list(bars["y"]) == [0.5, 1.5]  # each count in the middle of its SM's row
    assert list(bars["width"]) == [4, 2]
    # The tail is blocks 4 and 5 on SM 0, 4 → 6 µs; 2 of 2 SMs × 2 = 4 slots: 50 % of a wave.
    assert chart._tail.getRegion() == (4.0, 6.0)
    assert chart.tail_text.toPlainText() == "tail: 2 blocks = 50% of a wave"
    assert (chart.tail_text.pos().x(), chart.tail_text.pos().y()) == (6.0, 0.0)
    assert "wave 1" in view.scheduleLegend.text() and "wave 2 (the tail)" in view.scheduleLegend.text()


def test_colour_by_block_index_names_the_first_and_last_block(view: ScheduleView) -> None:
    view.show_schedule(shown())
    view.scheduleColorBy.setCurrentIndex(view.scheduleColorBy.findData("block"))
    legend = view.scheduleLegend.text()
    assert "block 0 to" in legend and "block 5 (the order blocks are numbered" in legend


def test_a_selected_bar_is_outlined_in_its_own_lane(view: ScheduleView) -> None:
    view.show_schedule(shown())
    # Two lanes per SM row, each 0.5 high; blocks 4 and 5 share SM 0 at 4 → 6 µs, one per lane.
    lanes = {int(analyse(SMID, START, END).lane[b]) for b in (4, 5)}
    assert lanes == {0, 1}
    view.select(5)
    lane = int(analyse(SMID, START, END).lane[5])
    rect = view.scheduleChart._mark.rect()
    assert (rect.left(), rect.top(), rect.width(), rect.height()) == (4.0, 0.5 * lane, 2.0, 0.5)
    # block 5 of grid (3, 2, 1), x fastest: x = 5 % 3 = 2, y = 5 // 3 = 1
    assert view.scheduleSelected.text() == "Block 5 = blockIdx (2, 1, 0): SM 0, 4.00 → 6.00 µs, wave 2 of 2."


def test_a_point_between_lanes_picks_the_bar_of_its_own_sm_row(view: ScheduleView) -> None:
    view.show_schedule(shown())
    # Lanes 0.5 high, bars 80 % of that: lane 0 covers y 0.05–0.45, lane 1 0.55–0.95. At
    # y = 0.98 no bar is hit; the point is still in SM 0's row (0 ≤ y < 1), nearest its lane 1.
    a = analyse(SMID, START, END)
    at = view.bar_at(2.0, 0.98)  # 2 µs: blocks 0 and 2 on SM 0, blocks 1 and 3 on SM 1
    assert at in (0, 2) and int(a.lane[at]) == 1
    assert view.bar_at(2.0, 1.02) in (1, 3)  # just inside SM 1's row


def test_save_is_offered_only_for_a_run_of_this_session(view: ScheduleView) -> None:
    view.show_schedule(shown())
    assert not view.scheduleSaveButton.isEnabled()  # a file: nothing new to save
    result = ScheduleResult(
        backend="gpu:test", grid=(6, 1, 1), block=(256, 1, 1), sms=2, work_us=2.0, smem_per_block=0,
        occupancy=occupancy(profile_for("9.0"), 256, 64), driver_blocks_per_sm=4,
        smid=SMID.astype(np.int32), start_ns=START.astype(np.int64), end_ns=END.astype(np.int64),
        analysis=analyse(SMID, START, END),
    )  # fmt: skip
    view.show_schedule(ShownSchedule.of_result(result))
    assert view.scheduleSaveButton.isEnabled()
    assert "<b>test</b>, measured on this GPU: grid 6×1×1" in view.scheduleMessage.text()


def test_open_and_save_ask_for_npz(view: ScheduleView, monkeypatch) -> None:
    asked = cancelled_file_dialogs(monkeypatch)
    assert view.open_file() is False
    assert asked[-1] == ("Open a schedule", "", "Schedules (*.npz)")
    result = ScheduleResult(
        backend="gpu:test", grid=(6, 1, 1), block=(256, 1, 1), sms=2, work_us=2.0, smem_per_block=0,
        occupancy=occupancy(profile_for("9.0"), 256, 64), driver_blocks_per_sm=4,
        smid=SMID.astype(np.int32), start_ns=START.astype(np.int64), end_ns=END.astype(np.int64),
        analysis=analyse(SMID, START, END),
    )  # fmt: skip
    view.show_schedule(ShownSchedule.of_result(result))
    assert view.save_file() is None
    assert asked[-1] == ("Save the schedule", "schedule.npz", "*.npz")


def test_a_file_that_is_not_a_schedule_is_said(view: ScheduleView, tmp_path) -> None:
    bad = tmp_path / "notes.npz"
    bad.write_bytes(b"not a zip")
    assert view.open_file(bad) is False
    text = view.scheduleMessage.text()
    assert text.startswith(f"<b>Could not open {bad}:</b> ")
    assert text.endswith("(expected a file written by <code>simtviz schedule --out</code>)")


@pytest.mark.parametrize(
    ("index", "expected"),
    [
        # index 0 is the "Show a limiting factor …" prompt; then the presets in menu order
        (1, (2464, 256, 20.0, 0, False)),
        (2, (1232, 256, 20.0, 0, True)),
        (3, (1540, 128, 20.0, 40960, False)),  # 40 KiB = 40,960 B
        (4, (9856, 32, 20.0, 0, False)),
    ],
)
def test_a_preset_fills_blocks_then_threads(view: ScheduleView, index: int, expected: tuple) -> None:
    view.scheduleHeavy.setChecked(True) if not expected[4] else None
    view.schedulePreset.activated.emit(index)
    got = (
        view.scheduleGridX.value(),
        view.scheduleBlockX.value(),
        view.scheduleWork.value(),
        view.scheduleSmem.value(),
        view.scheduleHeavy.isChecked(),
    )
    assert got == expected


# --- on a GPU (a stand-in session) ---------------------------------------------------------------


class GpuSession(QObject):
    backendReady = Signal(object)
    backendFailed = Signal(object, str)
    busyChanged = Signal(bool)
    resultArrived = Signal(str, object)
    runFailed = Signal(str, object, object, str)

    def __init__(self, kind: str = "gpu") -> None:
        super().__init__()
        self.kind = kind
        self.can_run = True
        self.runs: list[tuple[str, object]] = []

    def run(self, experiment: str, request: object) -> bool:
        self.runs.append((experiment, request))
        return True


@pytest.fixture
def gpu(qtbot) -> tuple[ScheduleView, GpuSession]:
    session = GpuSession()
    v = ScheduleView(session)
    qtbot.addWidget(v)
    return v, session


def test_on_a_gpu_run_is_offered_and_says_blocks_then_threads(gpu) -> None:
    view, session = gpu
    assert view.scheduleRunButton.isEnabled()
    assert view.scheduleRunButton.toolTip().startswith("Launch the schedule kernel once")
    assert view.scheduleMessage.text().startswith("Press <b>Run on the GPU</b>")
    view.schedulePreset.activated.emit(3)  # 1,540 × 128, 40 KiB
    assert view.run() is True
    experiment, request = session.runs[-1]
    assert experiment == SCHEDULE
    assert (request.grid, request.block, request.smem, request.heavy) == (1540, 128, 40960, False)
    assert view.scheduleMessage.text() == "Running 1,540 blocks of 128 threads, 20 µs of work each …"
    session.can_run = False  # busy: Run waits
    session.busyChanged.emit(True)
    assert not view.scheduleRunButton.isEnabled()


@pytest.mark.parametrize(("kind", "words"), [("emu", "the CPU emulator"), ("sim", "the CUDA simulator")])
def test_off_the_gpu_run_says_which_cpu_backend_cannot(qtbot, kind: str, words: str) -> None:
    view = ScheduleView(GpuSession(kind))
    qtbot.addWidget(view)
    assert not view.scheduleRunButton.isEnabled()
    assert view.scheduleRunButton.toolTip() == f"GPU only: {words} has no SMs and no clock to measure"
    assert view.scheduleMessage.text() == NOTHING_HERE


def test_a_failed_schedule_run_is_said_and_other_tabs_failures_are_not(gpu) -> None:
    view, session = gpu
    before = view.scheduleMessage.text()
    session.runFailed.emit("vecadd", None, ValueError("boom"), "")
    assert view.scheduleMessage.text() == before
    session.runFailed.emit(SCHEDULE, None, ValueError("boom"), "")
    assert view.scheduleMessage.text() == "<b>The run failed:</b> ValueError: boom"
    session.runFailed.emit(SCHEDULE, None, Cancelled("stop"), "")
    assert view.scheduleMessage.text() == "Cancelled."
    session.runFailed.emit(SCHEDULE, None, NothingToMeasure("cpu"), "")
    assert view.scheduleMessage.text() == NOTHING_HERE


def test_an_idle_sm_counts_in_the_rows_but_not_in_the_sms_used(view: ScheduleView) -> None:
    # Two blocks on SMs 0 and 2: SM 1 ran none. Rows 0, 1, 2; 2 SMs used; 0 → 3,000 ns = 3 µs.
    smid, start, end = np.array([0, 2]), np.array([0, 0]), np.array([1000, 3000])
    summary = dict(SUMMARY, grid=[2, 1, 1], blocks=2, sms=3)
    view.show_schedule(ShownSchedule(summary, smid, start, end, analyse(smid, start, end), "x"))
    chart = view.scheduleChart
    assert chart.gantt.titleLabel.text == "2 blocks on 2 SMs over 3.0 µs — one bar per block"
    assert chart.counts.titleLabel.text == "0–1 blocks per SM"
    assert list(chart._count_bars.opts["width"]) == [1, 0, 1]
    assert not chart._tail.isVisible() and not chart.tail_text.isVisible()  # one wave: no tail
