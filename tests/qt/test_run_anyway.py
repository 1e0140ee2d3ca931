"""A long run is asked about first; "Run it anyway? Yes" runs the same launch with force, "No" does not."""

from __future__ import annotations

import pytest
from fake_backends import FakeHostBackend
from PySide6.QtWidgets import QApplication, QMessageBox
from qt_helpers import RUN_TIMEOUT_MS, press_run, set_launch

from simtviz.qt.main_window import MainWindow


class AskingBackend(FakeHostBackend):
    """Notes whether each run was forced; the record experiment's own check (a simulator backend
    asks past SIM_MAX_THREADS_UNASKED threads) refuses the unforced long one."""

    def __init__(self) -> None:
        super().__init__()
        self.forces: list[bool] = []

    def run(self, experiment, request, progress=None):  # type: ignore[no-untyped-def]
        self.forces.append(request.force)
        return super().run(experiment, request, progress)


@pytest.fixture
def asking(qtbot, settings_file):
    backend = AskingBackend()
    w = MainWindow(settings=settings_file, backend_factory=lambda: backend)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: w.session.backend is not None, timeout=RUN_TIMEOUT_MS)
    yield w, backend
    w.close()


def _ask(qtbot, w) -> QMessageBox:
    set_launch(w, (129, 1, 1), (1024, 1, 1))  # 132,096 threads: one block past the limit
    press_run(qtbot, w)
    qtbot.waitUntil(
        lambda: w.findChild(QMessageBox, "launchTooLargeDialog") is not None, timeout=RUN_TIMEOUT_MS
    )
    box = w.findChild(QMessageBox, "launchTooLargeDialog")
    qtbot.waitUntil(box.isVisible)
    assert "132,096 threads" in box.text()
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.No)
    return box


def test_yes_runs_the_launch_with_force(qtbot, asking) -> None:
    w, backend = asking
    box = _ask(qtbot, w)
    box.done(QMessageBox.StandardButton.Yes)
    qtbot.waitUntil(lambda: w.recording is not None and not w.busy, timeout=RUN_TIMEOUT_MS)
    assert backend.forces == [False, True]
    assert w.recording.config.total_threads == 132_096


def test_no_runs_nothing(qtbot, asking) -> None:
    w, backend = asking
    box = _ask(qtbot, w)
    box.done(QMessageBox.StandardButton.No)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None)
    qtbot.wait(200)
    assert backend.forces == [False] and w.recording is None
