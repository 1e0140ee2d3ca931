"""The index map tab's words about a cell, worked out by hand: the inspector's "Map row …, column …"
heading, the status line on hover, and where the recording window's column arrows move it.

The launch is 4 × 3 blocks of 8 × 4 threads: 32 columns × 12 rows, so a cell off the diagonal
tells a row from a column, and blockIdx from threadIdx.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_backends import FakeHostBackend
from qt_helpers import RUN_TIMEOUT_MS

from simtviz.core.launch import LaunchConfig
from simtviz.core.window import Window
from simtviz.qt.map import Cell
from simtviz.qt.session import RecordRequest, RunSession
from simtviz.qt.tabs.index_map.tab import IndexMapTab
from simtviz.qt.tabs.index_map.window import moved_origin


@pytest.fixture
def tab(qtbot) -> Iterator[IndexMapTab]:
    session = RunSession(lambda: FakeHostBackend())
    qtbot.waitUntil(lambda: session.backend is not None, timeout=RUN_TIMEOUT_MS)
    t = IndexMapTab(session)
    qtbot.addWidget(t)
    with qtbot.waitSignal(session.recordingChanged, timeout=RUN_TIMEOUT_MS):
        assert session.record(RecordRequest(LaunchConfig.of((4, 3, 1), (8, 4, 1))))
    yield t
    session.close()


def test_the_inspector_heading_names_the_cells_row_and_column(tab: IndexMapTab) -> None:
    # Cell (row 1, column 19): x = 19 = threadIdx.x 3 + blockIdx.x 2 × 8, y = 1 (threadIdx.y 1).
    tab.inspector.set_wide(False)  # beside the map: the heading is shown
    tab.indexMap.pin(Cell(0, 1, 19))
    text = tab.inspector.text()
    assert "Map row 1, column 19" in text
    assert "(3, 1, 0)" in text and "(2, 0, 0)" in text


def test_hovering_a_cell_says_its_thread_and_block_index_in_the_status_bar(qtbot, tab: IndexMapTab) -> None:
    said: list[str] = []
    tab.session.statusRequested.connect(lambda text, _ms: said.append(text))
    # Row 1, column 19: threadIdx (19 % 8, 1 % 4, 0) = (3, 1, 0); blockIdx (19 // 8, 1 // 4, 0) = (2, 0, 0).
    tab.indexMap.hover(Cell(0, 1, 19))
    assert said[-1] == "threadIdx (3, 1, 0), blockIdx (2, 0, 0)"


def test_the_column_arrows_move_a_wide_window_by_its_width() -> None:
    # A 128 × 32 launch (grid 8 × 8 of 16 × 4) seen through a 32-wide, 8-high window at (0, 0):
    # one step right is x + 32 (not + 8, the window's height); one step down is y + 8.
    config = LaunchConfig.of((8, 8, 1), (16, 4, 1))
    window = Window((0, 0, 0), (32, 8, 1))
    assert moved_origin(config, window, 0, 1) == (32, 0, 0)
    assert moved_origin(config, window, 1, 0) == (0, 8, 0)
    # From x = 64: left is 64 − 32 = 32; right is 96, the last window that fits (128 − 32).
    at_64 = Window((64, 0, 0), (32, 8, 1))
    assert moved_origin(config, at_64, 0, -1) == (32, 0, 0)
    assert moved_origin(config, at_64, 0, 1) == (96, 0, 0)
