"""The Your kernel tab's views, line by line, by hand: a wide matrix's title in row-major order,
the legend with and without a window, the warp drawn for a line (its FIRST executed request),
"none" in the thread box clearing the outlines, and the findings box's eight lines."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fake_backends import FakeHostBackend
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QSplitter, QTextEdit, QWidget

from hand_traces import Row, sites_of, traced
from simtviz.core.trace.analysis import ArrayInfo
from simtviz.core.trace.model import BlockWindow
from simtviz.qt.session import RunSession
from simtviz.qt.tabs.kernel.run import fit_findings
from simtviz.qt.tabs.kernel.tab import KernelTab
from simtviz.qt.tabs.kernel.views import ArraysPanel, TraceData


@pytest.fixture
def tab(qtbot: Any, tmp_path: Any) -> Iterator[KernelTab]:
    s = RunSession(lambda: FakeHostBackend())
    s.store = QSettings(str(tmp_path / "simtviz.ini"), QSettings.Format.IniFormat)
    t = KernelTab(s)
    qtbot.addWidget(t)
    yield t
    s.close()


def _wide(window: BlockWindow | None = None) -> Any:
    # M int32 (3, 5) on grid (3, 1, 1) of blocks (64, 1, 1): thread 0 loads M[0, 0], thread 70
    # (block 1) loads M[2, 4].
    arrays = (ArrayInfo("M", (3, 5), "int32"),)
    sites = sites_of(arrays, (5, "M", "load"))
    result = traced((3, 1, 1), (64, 1, 1), arrays, sites, [Row(0, 0, (0, 0)), Row(70, 0, (2, 4))])
    result.window = window
    return result


def test_a_wide_matrix_is_titled_rows_then_columns(qtbot: Any) -> None:
    panel = ArraysPanel()
    qtbot.addWidget(panel)
    panel.show_data(TraceData(_wide()))
    (view,) = panel.views
    assert view.plot.titleLabel.text == "M int32[3, 5]"
    assert (view.rows, view.cols) == (3, 5)


def test_the_legend_says_grey_is_untouched_by_the_windows_threads_only_with_a_window(qtbot: Any) -> None:
    panel = ArraysPanel()
    qtbot.addWidget(panel)
    panel.show_data(TraceData(_wide()))
    assert panel.legend.text() == "grey: untouched; red: stored by more than one thread"
    panel.show_data(TraceData(_wide(BlockWindow(1, 1))))
    assert (
        panel.legend.text() == "grey: untouched by the window's threads; red: stored by more than one thread"
    )


def test_a_lines_warp_is_the_warp_of_its_first_logged_access() -> None:
    # Block of 64 threads: threads 0..3 (warp 0) then 40..43 (warp 1, lanes 8..11) load A[t].
    arrays = (ArrayInfo("A", (64,), "float32"),)
    sites = sites_of(arrays, (5, "A", "load"))
    rows = [Row(t, 0, (t,)) for t in (0, 1, 2, 3, 40, 41, 42, 43)]
    request = TraceData(traced((1, 1, 1), (64, 1, 1), arrays, sites, rows)).warp_request([0])
    assert request is not None
    assert (request["warp"], request["lanes"], request["offsets"]) == (0, [0, 1, 2, 3], [0, 4, 8, 12])


def test_none_in_the_thread_box_clears_the_outlines(tab: KernelTab) -> None:
    tab.session.resultArrived.emit("trace", _wide())
    tab.threadSpin.setValue(70)  # M[2, 4] outlined: the cell's centre (4.5, 2.5)
    (view,) = tab.arrays.views
    xs, ys = view.marks.getData()
    assert ([float(x) for x in xs], [float(y) for y in ys]) == ([4.5], [2.5])
    tab.threadSpin.setValue(-1)  # "none"
    assert tab.threadSpin.text() == "none"
    xs, _ = view.marks.getData()
    assert len(xs) == 0


def test_the_findings_box_gets_eight_lines_where_there_is_room(qtbot: Any) -> None:
    splitter = QSplitter(Qt.Orientation.Vertical)
    result, maps = QTextEdit(), QWidget()
    maps.setMinimumHeight(50)
    splitter.addWidget(result)
    splitter.addWidget(maps)
    qtbot.addWidget(splitter)
    splitter.resize(400, 300)  # under 3 × 8 lines: a third would be less
    splitter.show()
    qtbot.waitExposed(splitter)
    total = sum(splitter.sizes())
    fit_findings(result, splitter)
    # 8 lines of text, the frame on both sides, the document's margin on both sides, 2 more
    eight = 8 * result.fontMetrics().lineSpacing()
    frame = 2 * result.frameWidth() + 2 * int(result.document().documentMargin()) + 2
    assert total // 3 < eight + frame < total - 50
    assert splitter.sizes()[0] == eight + frame
    assert sum(splitter.sizes()) == total


def test_a_clicked_element_outlines_the_last_toucher_and_counts_threads_not_accesses(tab: KernelTab) -> None:
    # M (3, 5): thread 7 stores M[2, 4] then loads it again, and loads M[0, 1]; thread 9 loads
    # M[2, 4] and M[1, 0]. M[2, 4]: 3 accesses by 2 threads, the last thread 9.
    arrays = (ArrayInfo("M", (3, 5), "int32"),)
    sites = sites_of(arrays, (5, "M", "store"), (6, "M", "load"))
    rows = [Row(7, 0, (2, 4)), Row(7, 1, (2, 4)), Row(7, 1, (0, 1)), Row(9, 1, (2, 4)), Row(9, 1, (1, 0))]
    tab.session.resultArrived.emit("trace", traced((1, 1, 1), (32, 1, 1), arrays, sites, rows))
    tab.select_element(0, 14)  # 2 × 5 + 4
    assert tab.detail.text().startswith("M[2, 4] (row 2, column 4): 3 accesses by 2 thread(s): ")
    assert tab.threadSpin.value() == 9
    (view,) = tab.arrays.views
    xs, ys = view.marks.getData()
    # thread 9's cells: M[2, 4] (centre x 4.5, y 2.5) and M[1, 0] (0.5, 1.5)
    assert sorted(zip((float(x) for x in xs), (float(y) for y in ys), strict=True)) == [
        (0.5, 1.5),
        (4.5, 2.5),
    ]


def test_a_shared_array_gets_no_map(qtbot: Any) -> None:
    # A global A (64,) and a shared s (32,): one map, A's
    arrays = (ArrayInfo("A", (64,), "float32"), ArrayInfo("s", (32,), "float32", space="shared"))
    sites = sites_of(arrays, (5, "A", "load"), (6, "s", "store"))
    rows = [Row(0, 0, (0,)), Row(0, 1, (0,))]
    panel = ArraysPanel()
    qtbot.addWidget(panel)
    panel.show_data(TraceData(traced((1, 1, 1), (32, 1, 1), arrays, sites, rows)))
    assert [v.objectName() for v in panel.views] == ["kernelArray0"]


def test_the_lines_table_with_shared_lines_heads_its_two_columns_and_counts_with_commas(qtbot: Any) -> None:
    from simtviz.core.trace.stats import LineStats, SharedLineStats
    from simtviz.qt.tabs.kernel.views import LinesTable

    table = LinesTable()
    qtbot.addWidget(table)
    table.show_lines(
        # line 9 loads A 12,345 times in 1,024 requests of 4 sectors each (half of them used)
        [LineStats(9, "A", "load", 12345, 1024, 4096, 4.0, 0.5)],
        # line 2 stores s 7 times, every access out of bounds: no request
        [SharedLineStats(2, "s", "store", 7, 0, 0, None, 0, 0)],
    )
    heads = [table.horizontalHeaderItem(c).text() for c in range(9)]
    assert heads[7:] == ["wavefronts/request", "worst conflict"]
    assert [table.item(0, c).text() for c in range(9)] == [
        "2",
        "s (shared)",
        "store",
        "7",
        "0",
        "—",
        "—",
        "—",
        "—",
    ]
    assert [table.item(1, c).text() for c in range(9)] == [
        "9", "A", "load", "12,345", "1,024", "4", "50%", "—", "—",
    ]  # fmt: skip
