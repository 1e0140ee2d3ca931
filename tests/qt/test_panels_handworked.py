"""Panels' words and numbers worked out by hand: the schedule table's columns, the Gantt's time
unit, occupancy's limits under their own names and its warp counts, the framing of tall maps, and
the lesson's last step under Page Down."""

from __future__ import annotations

import numpy as np
import pytest

from simtviz.core.schedule import analyse
from simtviz.core.schedule.occupancy import PROFILES, occupancy
from simtviz.qt.map.framing import is_elongated, start_rect
from simtviz.qt.tabs.schedule.data import ShownSchedule, bar_times_us, fact_values

SUMMARY = {
    "backend": "gpu:NVIDIA H200",
    "grid": [2464, 1, 1],
    "block": [256, 1, 1],
    "blocks": 2464,
    "work_us": 20.0,
    "regs_per_thread": 30,
    "smem_per_block": 0,
    "sms": 132,
    "driver_blocks_per_sm": 7,
    "theoretical": {"blocks_per_sm": 8, "waves": 3, "limiter": "threads"},
    "measured": {"max_resident_blocks_per_sm": 6, "waves": 4, "sms_used": 130, "span_us": 61.4},
}
NONE = np.zeros(0, np.int64)


def test_the_schedule_facts_keep_theory_driver_and_measured_apart() -> None:
    shown = ShownSchedule(SUMMARY, NONE, NONE, NONE, None, "hand")
    # tail in theory: 2,464 − (3 − 1) × 132 SMs × 8 = 2,464 − 2,112 = 352 blocks.
    assert fact_values(shown) == {
        "resident": (8, 7, 6),
        "waves": (3, None, 4),
        "tail": (352, None, None),
        "sms": (132, None, 130),
    }


def test_the_schedule_table_shows_them_in_their_columns(qtbot) -> None:
    from simtviz.qt.tabs.schedule.view import ScheduleView

    view = ScheduleView()
    qtbot.addWidget(view)
    view.show_schedule(ShownSchedule(SUMMARY, NONE, NONE, NONE, None, "hand"))
    table = view.scheduleFacts
    heads = [table.horizontalHeaderItem(c).text() for c in range(3)]
    rows = {
        table.verticalHeaderItem(r).text(): dict(
            zip(heads, (table.item(r, c).text() for c in range(3)), strict=True)
        )
        for r in range(table.rowCount())
    }
    assert rows["resident blocks / SM"] == {"theory": "8", "driver": "7", "measured": "6"}
    assert rows["waves"] == {"theory": "3", "driver": "—", "measured": "4"}
    assert rows["tail (last wave) blocks"] == {"theory": "352", "driver": "—", "measured": "—"}
    assert rows["SMs used"] == {"theory": "132", "driver": "—", "measured": "130"}


def test_gantt_bars_are_in_microseconds_from_the_first_start() -> None:
    # Starts 1,000 / 1,500 / 3,000 / 4,000 ns, ends 3,000 / 3,500 / 6,000 / 7,000 ns; the first
    # start (1,000 ns) is 0 µs: starts 0, 0.5, 2, 3 µs; ends 2, 2.5, 5, 6 µs.
    smid = np.array([0, 1, 0, 1])
    start = np.array([1000, 1500, 3000, 4000])
    end = np.array([3000, 3500, 6000, 7000])
    a = analyse(smid, start, end)
    shown = ShownSchedule(SUMMARY, smid, start, end, a, "hand")
    x0, x1 = bar_times_us(shown, a)
    assert x0.tolist() == [0.0, 0.5, 2.0, 3.0]
    assert x1.tolist() == [2.0, 2.5, 5.0, 6.0]
    assert a.span_us == 6.0  # 7,000 − 1,000 ns


def test_the_gantt_axis_says_microseconds_and_its_bars_span_them(qtbot) -> None:
    from simtviz.qt.tabs.schedule.view import ScheduleView

    view = ScheduleView()
    qtbot.addWidget(view)
    smid = np.array([0, 1, 0, 1])
    start = np.array([1000, 1500, 3000, 4000])
    end = np.array([3000, 3500, 6000, 7000])
    view.show_schedule(ShownSchedule(SUMMARY, smid, start, end, analyse(smid, start, end), "hand"))
    assert view.gantt.getAxis("bottom").labelText == "time since the first block started (µs)"
    rect = view.ganttItem.boundingRect()
    assert (rect.left(), rect.right()) == (0.0, 6.0)  # 0 to 6 µs, as worked out above


# --- occupancy -----------------------------------------------------------------------------------


def test_occupancy_explanations_give_each_resources_arithmetic() -> None:
    from simtviz.qt.tabs.schedule.occupancy import limit_reason

    # cc 9.0, 256 threads (8 warps), 64 registers, 40,960 B (see test_cli_text_handworked).
    occ = occupancy(PROFILES["9.0"], 256, 64, 40960)
    assert limit_reason(occ, "threads") == "64 warps // 8 per block"
    assert limit_reason(occ, "blocks") == "cc 9.0 holds at most 32"
    # 64 × 32 = 2,048 registers per warp; 16,384 // 2,048 = 8 per quarter × 4 = 32 warps.
    assert limit_reason(occ, "registers") == "2,048 per warp → 32 warps // 8"
    # 228 KiB = 233,472 B; 40,960 + 1,024 reserved = 41,984 B per block.
    assert limit_reason(occ, "shared memory") == "233,472 B // 41,984 B per block"
    # 100 threads are 4 warps (3 full and 1 partial): 64 // 4
    assert limit_reason(occupancy(PROFILES["9.0"], 100, 32), "threads") == "64 warps // 4 per block"


def test_the_occupancy_table_names_each_limit_by_its_resource(qtbot) -> None:
    from simtviz.qt.tabs.schedule.occupancy import OccupancyView

    view = OccupancyView()
    qtbot.addWidget(view)
    view.set_device("9.0")
    view.set_launch(256, 64, 40960)
    table = view.occupancyLimits
    rows = {table.verticalHeaderItem(r).text(): table.item(r, 0).text() for r in range(table.rowCount())}
    # threads 8, the cap 32, registers 4, shared memory 5 (worked out above)
    assert rows == {"threads": "8", "blocks (cap)": "32", "registers": "4", "shared memory": "5"}
    # 4 blocks × 8 warps = 32 of 64 warps, 50 %
    text = view.occupancyResult.text()
    assert "<b>4 blocks per SM</b> · 32 of 64 warps · <b>50%</b> occupancy" in text
    assert "limited by <b>registers</b>" in text


# --- framing: tall maps are elongated too --------------------------------------------------------


@pytest.mark.parametrize(
    ("rows", "cols", "view", "elongated"),
    [
        # wide: (cols / rows) / (view w / h); 1 × 7 in a square view is 7 > 6; 1 × 6 is 6, not more
        (1, 7, (100, 100), True),
        (1, 6, (100, 100), False),
        # tall: 7 × 1 is 1/7 < 1/6; 6 × 1 is exactly 1/6, not less
        (7, 1, (100, 100), True),
        (6, 1, (100, 100), False),
        # a 1,000 × 10 map in a 1,280 × 720 view: 0.01 / 1.78 = 0.0056 < 1/6
        (1000, 10, (1280, 720), True),
        # 32 × 32 in 1,280 × 720: 1 / 1.78 = 0.56, neither
        (32, 32, (1280, 720), False),
    ],
)
def test_elongated_maps_wide_and_tall(rows: int, cols: int, view: tuple[int, int], elongated: bool) -> None:
    assert is_elongated(rows, cols, *view) is elongated


def test_a_tall_map_opens_on_its_first_rows() -> None:
    # 1,000 rows × 10 columns in 1,280 × 720: the view's shape 1.78; 10 / 1.78 = 5.6 → 6 rows.
    rect, words = start_rect(0, 0, 1000, 10, 1280, 720)
    assert (rect.width(), rect.height()) == (10, 6) and words == "the first 6 of 1,000 rows"
    # 10 × 1,000: 10 × 1.78 = 17.8 → 18 columns.
    rect, words = start_rect(0, 0, 10, 1000, 1280, 720)
    assert (rect.width(), rect.height()) == (18, 10) and words == "the first 18 of 1,000 columns"


# --- the lesson's last step under Page Down ------------------------------------------------------


def test_page_down_on_the_last_step_leaves_it_as_it_is(qtbot) -> None:
    from simtviz.qt.tabs.lesson.tab import LessonPanel

    panel = LessonPanel()
    qtbot.addWidget(panel)
    last = panel.step_count() - 1
    panel.show_step(last)
    panel.lessonStatus.setText("the teacher's result")  # what a re-shown step would wipe
    shown: list[int] = []
    panel.stepChanged.connect(shown.append)
    panel.next()
    assert panel.current_step() == last and shown == []
    assert panel.lessonStatus.text() == "the teacher's result"
    panel.show_step(0)
    panel.lessonStatus.setText("kept")
    panel.previous()  # the first step, Page Up: nothing either
    assert panel.current_step() == 0 and panel.lessonStatus.text() == "kept"


def test_a_lesson_closed_just_after_a_probe_answers_raises_nothing(qtbot) -> None:
    # The result's box is scrolled into view 50 ms after it arrives; a lesson deleted in those
    # 50 ms (the window closed, a test's window torn down) must not be scrolled afterwards: that
    # was a RuntimeError on a deleted QScrollArea in the Qt event loop.
    from simtviz.qt.tabs.lesson.tab import LessonPanel

    panel = LessonPanel()
    panel.show_probe_result("ecosystem", {"probe": "ecosystem", "error": "no GPU here"})
    assert "ecosystem failed" in panel.lessonStatus.text()
    panel.deleteLater()
    qtbot.wait(150)  # pytest-qt fails the test on any exception raised in the event loop
