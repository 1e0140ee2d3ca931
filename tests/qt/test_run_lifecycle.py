"""Runs off the GUI thread: rejected launches, long runs, Cancel, closing mid-run."""

from __future__ import annotations

import time

import numpy as np
import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton, QWidget
from qt_helpers import press_run, set_launch

from simtviz.core.errors import Cancelled, LaunchRejected
from simtviz.core.limits import DRIVER_INVALID_VALUE

# About 8 s on the simulator (≈6,000 threads/s): long enough to measure, then cancelled.
LONG_GRID, LONG_BLOCK = (200, 1, 1), (256, 1, 1)


def test_invalid_block_shows_driver_error_then_valid_launch_draws(qtbot, window, run_launch) -> None:
    first = run_launch((4, 3, 1), (8, 4, 1))
    before = window.findChild(QWidget, "indexMap").current_image().copy()

    set_launch(window, (4, 1, 1), (2048, 1, 1))
    run = window.findChild(QPushButton, "runButton")
    assert run.isEnabled()  # invalid launches stay triable
    assert "2,048 > 1,024" in window.findChild(QWidget, "launchWarnings").text()
    with qtbot.waitSignal(window.session.runFailed, timeout=20_000) as failed:
        press_run(qtbot, window)
    qtbot.waitUntil(lambda: window.findChild(QMessageBox, "launchErrorDialog") is not None, timeout=20_000)
    dialog = window.findChild(QMessageBox, "launchErrorDialog")
    qtbot.waitUntil(dialog.isVisible)
    assert dialog.windowTitle() == "Kernel launch failed"
    assert dialog.text().startswith("This launch cannot run: blockDim")  # headed in words
    assert DRIVER_INVALID_VALUE in dialog.informativeText()  # the driver's text, verbatim
    assert "the previous map is still shown" in dialog.informativeText()
    assert "2,048 > 1,024" in dialog.informativeText()
    assert "record_threads[4, 2048]" in dialog.detailedText()
    assert isinstance(failed.args[2], LaunchRejected)
    # The previous map is still there.
    assert window.recording is first
    np.testing.assert_array_equal(window.findChild(QWidget, "indexMap").current_image(), before)

    dialog.done(QMessageBox.StandardButton.Close)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None)
    recording = run_launch((2, 1, 1), (64, 1, 1))
    assert recording.verification.ok
    assert window.findChild(QWidget, "indexMap").current_image().shape == (2, 64)


@pytest.mark.window_backend("sim")
def test_event_loop_keeps_running_during_a_long_run_and_cancel_stops_it(qtbot, window, run_launch) -> None:
    previous = run_launch((2, 1, 1), (32, 1, 1))
    ticks: list[float] = []
    timer = QTimer(interval=10)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))

    set_launch(window, LONG_GRID, LONG_BLOCK)
    press_run(qtbot, window)
    assert window.busy
    assert not window.findChild(QPushButton, "runButton").isEnabled()
    timer.start()
    progress = window.findChild(QWidget, "progressPanel")
    qtbot.waitUntil(progress.isVisible, timeout=5_000)  # appears after half a second
    qtbot.wait(3_000)
    timer.stop()
    gaps = np.diff(ticks)
    assert len(ticks) > 100
    # A run on the GUI thread would stall it for the whole 3 s; a loaded machine's scheduler
    # alone can hold a 10 ms timer back ~0.1 s, which is no freeze a user would see.
    assert gaps.max() < 0.5, f"the event loop stalled for {gaps.max() * 1000:.0f} ms"
    assert window.busy, "the long run should still be running"
    assert window.indexMapTab.progressPanel.bar.value() > 0

    cancelled_at = time.perf_counter()
    with qtbot.waitSignal(window.session.runFailed, timeout=2_000) as failed:
        qtbot.mouseClick(window.findChild(QPushButton, "cancelButton"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.busy, timeout=2_000)
    assert time.perf_counter() - cancelled_at < 1.0
    assert isinstance(failed.args[2], Cancelled)
    assert window.recording is previous
    assert not progress.isVisible()
    # The app works on: the next run starts a fresh simulator process.
    assert run_launch((1, 1, 1), (16, 1, 1)).verification.ok


@pytest.mark.window_backend("sim")
def test_escape_cancels(qtbot, window) -> None:
    set_launch(window, LONG_GRID, LONG_BLOCK)
    press_run(qtbot, window)
    qtbot.wait(300)
    with qtbot.waitSignal(window.session.runFailed, timeout=2_000) as failed:
        window.cancelAction.trigger()
    qtbot.waitUntil(lambda: not window.busy, timeout=2_000)
    assert isinstance(failed.args[2], Cancelled)


@pytest.mark.window_backend("sim")
def test_closing_the_window_mid_run_does_not_hang(qtbot, window) -> None:
    set_launch(window, LONG_GRID, LONG_BLOCK)
    press_run(qtbot, window)
    qtbot.wait(700)
    backend = window.session.backend
    started = time.perf_counter()
    window.close()
    assert time.perf_counter() - started <= 2.0
    assert backend._proc is None  # the simulator's child process is gone


@pytest.mark.window_backend("sim")
def test_too_large_launch_asks_first(qtbot, window) -> None:
    set_launch(window, (600, 1, 1), (256, 1, 1))  # 153,600 threads > 131,072
    press_run(qtbot, window)
    qtbot.waitUntil(lambda: window.findChild(QMessageBox, "launchTooLargeDialog") is not None, timeout=20_000)
    box = window.findChild(QMessageBox, "launchTooLargeDialog")
    assert "153,600 threads" in box.text()
    assert "about" in box.informativeText()
    box.done(QMessageBox.StandardButton.No)
    qtbot.wait(100)
    assert not window.busy and window.recording is None
