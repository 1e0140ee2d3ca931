"""The progress panel line by line, by hand: when the time left replaces the estimate (past 2 %),
the bar in thousandths, clamped, shown after half a second, only for its own experiment, hidden
when the session is idle again, and Cancel cancels."""

from __future__ import annotations

import types

import pytest
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from simtviz.qt.widgets.progress import SHOW_AFTER_MS, ProgressPanel


class Session(QObject):
    runStarted = Signal(str, object)
    runProgress = Signal(str, float)
    busyChanged = Signal(bool)

    def __init__(self) -> None:
        super().__init__()
        self.cancelled = 0

    def cancel(self) -> None:
        self.cancelled += 1


@pytest.fixture
def clock(monkeypatch) -> list[float]:
    now = [100.0]
    monkeypatch.setattr("simtviz.qt.widgets.progress.time", types.SimpleNamespace(monotonic=lambda: now[0]))
    return now


@pytest.fixture
def both(qtbot, clock) -> tuple[ProgressPanel, Session]:
    session = Session()
    panel = ProgressPanel(session, "vecadd", lambda n: (f"Running N = {n:,}", 40.0), name="vecaddProgress")
    qtbot.addWidget(panel)
    return panel, session


def test_two_percent_still_shows_the_estimate_and_just_past_it_the_time_left(qtbot, clock) -> None:
    panel = ProgressPanel()
    qtbot.addWidget(panel)
    panel.start("Running", 60.0)
    clock[0] = 101.0
    panel.set_fraction(0.02)  # exactly 2 %: too early to extrapolate
    assert panel.label.text() == "Running — estimated 60 s"
    clock[0] = 104.0
    panel.set_fraction(0.04)  # 4 s for 4 %: 100 s in all, 96 s left
    assert panel.label.text() == "Running — about 96 s left"


def test_without_an_estimate_only_what_runs_is_said(qtbot, clock) -> None:
    panel = ProgressPanel()
    qtbot.addWidget(panel)
    panel.start("Running 12 blocks", None)
    assert panel.label.text() == "Running 12 blocks"


def test_the_bar_counts_thousandths_and_is_clamped(qtbot, clock) -> None:
    panel = ProgressPanel()
    qtbot.addWidget(panel)
    panel.start("x", None)
    panel.set_fraction(0.25)
    assert (panel.bar.minimum(), panel.bar.maximum(), panel.bar.value()) == (0, 1000, 250)
    panel.set_fraction(1.5)
    assert panel.bar.value() == 1000
    panel.set_fraction(-0.5)
    assert panel.bar.value() == 0


def test_shown_after_half_a_second_and_hidden_when_idle(qtbot, clock) -> None:
    session = Session()
    holder = QWidget()
    qtbot.addWidget(holder)
    panel = ProgressPanel(session, "vecadd", lambda n: (f"Running N = {n:,}", 40.0), parent=holder)
    holder.show()
    assert SHOW_AFTER_MS == 500 and panel._timer.interval() == 500
    session.runStarted.emit("vecadd", 3000)
    assert not panel.isVisible()  # a short run never flashes a bar
    assert panel.label.text() == "Running N = 3,000 — estimated 40 s"
    qtbot.waitUntil(panel.isVisible, timeout=2000)
    session.busyChanged.emit(True)
    assert panel.isVisible()
    session.busyChanged.emit(False)
    assert not panel.isVisible()


def test_only_its_own_experiment_moves_it(qtbot, both, clock) -> None:
    panel, session = both
    session.runStarted.emit("record", 7)
    assert panel.label.text() == "" and not panel._timer.isActive()
    session.runStarted.emit("vecadd", 3000)
    clock[0] = 110.0
    session.runProgress.emit("record", 0.5)
    assert panel.bar.value() == 0
    session.runProgress.emit("vecadd", 0.5)  # 10 s for half: 10 s left
    assert panel.bar.value() == 500
    assert panel.label.text() == "Running N = 3,000 — about 10 s left"


def test_cancel_cancels_the_session(qtbot, both) -> None:
    panel, session = both
    assert panel.objectName() == "vecaddProgress" and panel.cancelButton.text() == "Cancel"
    panel.cancelButton.click()
    assert session.cancelled == 1


def test_a_new_run_starts_its_bar_at_zero(qtbot, clock) -> None:
    panel = ProgressPanel()
    qtbot.addWidget(panel)
    panel.start("first", None)
    panel.set_fraction(0.5)
    assert panel.bar.value() == 500
    panel.start("second", 20.0)
    assert panel.bar.value() == 0
    assert panel.label.text() == "second — estimated 20 s"  # the last run's time left is gone
