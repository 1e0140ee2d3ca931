"""Faults in the desktop app: each gets a clear message and leaves the app working."""

from __future__ import annotations

import numpy as np
import pytest
from fake_backends import FakeGpuBackend
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QMessageBox, QPushButton
from qt_helpers import RUN_TIMEOUT_MS, press_run, set_launch

from simtviz.core.errors import BackendUnavailable, KernelFailed, OutOfDeviceMemory
from simtviz.qt.main_window import MainWindow


def make_window(qtbot, settings_file, factory) -> MainWindow:
    w = MainWindow(settings=settings_file, backend_factory=factory)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def run(qtbot, w, grid=(4, 3, 1), block=(8, 4, 1)) -> None:
    set_launch(w, grid, block)
    press_run(qtbot, w)
    qtbot.waitUntil(lambda: not w.busy, timeout=RUN_TIMEOUT_MS)


def dialog(qtbot, w, name: str) -> QMessageBox:
    qtbot.waitUntil(lambda: w.findChild(QMessageBox, name) is not None, timeout=RUN_TIMEOUT_MS)
    box = w.findChild(QMessageBox, name)
    qtbot.waitUntil(box.isVisible)
    return box


@pytest.fixture
def gpu(qtbot, settings_file):
    backend = FakeGpuBackend()
    w = make_window(qtbot, settings_file, lambda: backend)
    qtbot.waitUntil(lambda: w.session.backend is not None, timeout=RUN_TIMEOUT_MS)
    yield w, backend
    w.close()


def test_gpu_out_of_memory_explains_and_the_app_works_on(qtbot, gpu) -> None:
    w, backend = gpu
    run(qtbot, w)
    qtbot.waitUntil(lambda: w.indexMap.current_image() is not None)
    before = w.indexMap.current_image().copy()
    backend.fail = OutOfDeviceMemory(
        400 * 2**20, None, "record 4,194,304 threads", detail="Out of memory allocating 16,777,216 bytes"
    )
    with qtbot.waitSignal(w.session.runFailed, timeout=RUN_TIMEOUT_MS) as failed:
        run(qtbot, w, (8, 3, 1))
    box = dialog(qtbot, w, "outOfMemoryDialog")
    assert box.windowTitle() == "Not enough GPU memory"
    assert "too little free memory to record 4,194,304 threads" in box.text()
    assert "lower the recording budget" in box.informativeText()
    assert w.findChild(QMessageBox, "launchTooLargeDialog") is None  # forcing would not help
    assert isinstance(failed.args[2], OutOfDeviceMemory)
    np.testing.assert_array_equal(w.indexMap.current_image(), before)
    box.done(QMessageBox.StandardButton.Ok)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None)

    backend.fail = None
    w.set_budget_threads(1000)
    run(qtbot, w, (8, 3, 1))
    qtbot.waitUntil(lambda: w.indexMap.current_image() is not None and not w.indexMap.loading())
    assert w.recording.config.grid.x == 8 and w.recording.threads <= 1000


def test_gpu_error_after_launch_shows_a_dialog_and_keeps_the_map(qtbot, gpu) -> None:
    w, backend = gpu
    run(qtbot, w)
    qtbot.waitUntil(lambda: w.indexMap.current_image() is not None)
    first, before = w.recording, w.indexMap.current_image().copy()
    backend.fail = KernelFailed("the GPU reported an error after the launch: CUDA_ERROR_ILLEGAL_ADDRESS")
    run(qtbot, w, (2, 2, 1))
    box = dialog(qtbot, w, "runErrorDialog")
    assert "CUDA_ERROR_ILLEGAL_ADDRESS" in box.text()
    assert "previous map is still shown" in box.informativeText()
    assert "Traceback" not in box.detailedText()
    assert w.recording is first
    np.testing.assert_array_equal(w.indexMap.current_image(), before)
    box.done(QMessageBox.StandardButton.Ok)
    backend.fail = None
    run(qtbot, w, (2, 2, 1))
    assert w.recording is not first and w.recording.verification.ok


def test_no_gpu_driver_says_so_disables_run_and_offers_the_simulator(qtbot, settings_file) -> None:
    def no_gpu():
        raise BackendUnavailable("numba-cuda finds no usable NVIDIA GPU on this machine")

    w = make_window(qtbot, settings_file, no_gpu)
    box = dialog(qtbot, w, "backendErrorDialog")
    label = w.findChild(QLabel, "backendLabel")
    assert label.text() == "No backend: numba-cuda finds no usable NVIDIA GPU on this machine"
    assert box.text() == "numba-cuda finds no usable NVIDIA GPU on this machine"
    assert not box.detailedText()  # words, no traceback
    assert not w.findChild(QPushButton, "runButton").isEnabled()
    w.run()  # even a programmatic Run neither crashes nor hangs
    qtbot.wait(200)

    qtbot.mouseClick(w.findChild(QPushButton, "useSimulatorButton"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: w.session.backend is not None, timeout=RUN_TIMEOUT_MS)
    assert "simulator" in label.text().lower()
    qtbot.waitUntil(w.findChild(QPushButton, "runButton").isEnabled)
    run(qtbot, w, (2, 1, 1), (32, 1, 1))
    assert w.recording is not None and w.recording.verification.ok
    w.close()
