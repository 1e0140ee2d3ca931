"""Where blocks ran → "show this block in the index map": the schedule tab states the intent
(``session.show_block``) and the index map tab answers it, the window bringing it forward.
Neither tab knows the other or the window."""

from __future__ import annotations

from PySide6.QtWidgets import QStatusBar, QTabWidget

from simtviz.core.launch import LaunchConfig
from simtviz.qt.map import Cell

RUN_TIMEOUT_MS = 60_000
CONFIG = LaunchConfig.of((4, 3, 1), (8, 4, 1))


def _status(window) -> str:
    return window.findChild(QStatusBar).currentMessage()


def test_a_block_the_map_does_not_show_is_recorded_then_pinned(qtbot, window) -> None:
    tabs = window.findChild(QTabWidget, "mainTabs")
    tabs.setCurrentIndex(3)  # Where blocks ran
    with qtbot.waitSignal(window.session.recordingChanged, timeout=RUN_TIMEOUT_MS) as arrived:
        window.session.show_block(CONFIG, (2, 1, 0))
        assert tabs.currentIndex() == 0  # the index map came forward at once
        assert window.launchPanel.config() == CONFIG
    assert arrived.args[0].config == CONFIG
    # Thread (0, 0, 0) of blockIdx (2, 1, 0) with 8 × 4 blocks is cuda.grid(2) = (2·8, 1·4) =
    # (16, 4): map row 4, column 16 of plane 0.
    qtbot.waitUntil(lambda: window.indexMap.pinned() == Cell(0, 4, 16), timeout=5_000)
    assert "blockIdx (2, 1, 0)" in window.inspector.text()


def test_a_block_the_map_shows_is_pinned_without_a_run(qtbot, window, run_launch) -> None:
    run_launch((4, 3, 1), (8, 4, 1))
    tabs = window.findChild(QTabWidget, "mainTabs")
    tabs.setCurrentIndex(4)
    started: list[str] = []
    window.session.runStarted.connect(lambda experiment, _request: started.append(experiment))
    window.session.show_block(CONFIG, (3, 2, 0))
    # blockIdx (3, 2, 0): cuda.grid(2) = (3·8, 2·4) = (24, 8): row 8, column 24.
    assert window.indexMap.pinned() == Cell(0, 8, 24)
    assert tabs.currentIndex() == 0 and started == []
    assert _status(window) == "blockIdx (3, 2, 0): its thread (0, 0, 0) is pinned"
