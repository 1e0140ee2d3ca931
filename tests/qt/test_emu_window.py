"""The window on the CPU emulator: the badge says so, and when the emulator hands a run to numba's
simulator the status bar says why in one line (``backendNotice``), until the next run."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from PySide6.QtWidgets import QLabel
from qt_helpers import RUN_TIMEOUT_MS

from simtviz.backends import experiment
from simtviz.backends.base import BackendInfo, Progress
from simtviz.core.formulas import backend_words


@dataclass(frozen=True)
class EightRequest:
    value: int = 8


class SimOnlyEight:
    """No ``run_emu``: on the emulator it runs in the simulator's child process, with the line."""

    name = "test-window-sim-only"

    def check(self, request: EightRequest, info: BackendInfo) -> None:
        return None

    def estimate_s(self, request: EightRequest, info: BackendInfo) -> float | None:
        return None

    def run_gpu(self, backend: Any, request: EightRequest, progress: Progress | None) -> Any:
        raise AssertionError("no GPU here")

    def run_sim(self, request: EightRequest, info: BackendInfo, progress: Progress | None) -> Any:
        return (info.backend_id, request.value)


experiment.register(SimOnlyEight())


@pytest.fixture
def emu_window(qtbot, settings_file) -> Iterator[Any]:
    from simtviz.gui import create_main_window

    w = create_main_window(backend="emu", settings=settings_file)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: w.session.backend is not None, timeout=RUN_TIMEOUT_MS)
    yield w
    w.close()


def test_the_badge_says_cpu_emulator(emu_window) -> None:
    badge = emu_window.findChild(QLabel, "backendLabel")
    assert badge.text() == "CPU emulator"  # short enough for a projector; the tooltip says more
    assert badge.toolTip().startswith("CPU emulator (lockstep, NumPy)")
    assert emu_window.session.kind == "emu"
    # Presentation mode on a 1280 × 720 projector: the words fit their box.
    emu_window.resize(1280, 720)
    emu_window.set_presentation(True)
    assert badge.fontMetrics().horizontalAdvance(badge.text()) <= badge.contentsRect().width()


def test_a_run_handed_to_the_simulator_says_so_in_the_status_bar(qtbot, emu_window) -> None:
    notice = emu_window.findChild(QLabel, "backendNotice")
    assert not notice.isVisible()
    results: list[Any] = []
    emu_window.session.resultArrived.connect(lambda name, result: results.append((name, result)))
    assert emu_window.session.run("test-window-sim-only", EightRequest())
    qtbot.waitUntil(lambda: bool(results), timeout=RUN_TIMEOUT_MS)
    assert results == [("test-window-sim-only", ("sim", 8))]
    qtbot.waitUntil(notice.isVisible, timeout=RUN_TIMEOUT_MS)
    assert notice.text() == (
        "the CPU emulator cannot run 'test-window-sim-only' yet; "
        "running it on numba's CUDA simulator instead (slower)"
    )
    # A passing status message does not hide it; the next run clears it until it speaks again.
    emu_window.statusBar().showMessage("threadIdx (1, 0, 0)", 3000)
    assert notice.isVisible()
    emu_window.session.runStarted.emit("test-window-sim-only", EightRequest())
    assert not notice.isVisible() and notice.text() == ""


def test_a_record_on_emu_says_which_backend_made_it(qtbot, emu_window) -> None:
    from qt_helpers import press_run, set_launch

    set_launch(emu_window, (2, 1, 1), (32, 1, 1))
    press_run(qtbot, emu_window)
    qtbot.waitUntil(lambda: emu_window.recording is not None and not emu_window.busy, timeout=RUN_TIMEOUT_MS)
    notice = emu_window.findChild(QLabel, "backendNotice")
    backend = emu_window.recording.backend
    # The emulator made it, or the simulator did and the status bar says why: never silently.
    if backend == "emu":
        assert not notice.isVisible()
    else:
        assert backend == "sim" and "CPU emulator cannot" in notice.text() and notice.isVisible()


def test_the_maps_title_names_the_emulator() -> None:
    # Over the map, and so in every exported PNG and snapshot.
    assert backend_words("emu") == "ran on the CPU emulator (lockstep, NumPy)"
    assert backend_words("sim") == "ran on the CUDA simulator (CPU)"


def test_the_kernel_tab_on_emu_says_which_backend_traced(qtbot, emu_window) -> None:
    from PySide6.QtWidgets import QComboBox, QPushButton, QTextEdit

    tab = emu_window.findChild(object, "kernelTab")
    combo = tab.findChild(QComboBox, "kernelTemplate")
    index = combo.findData("vecadd_unguarded")
    combo.setCurrentIndex(index)
    combo.activated.emit(index)
    button = tab.findChild(QPushButton, "kernelRunButton")
    button.click()
    qtbot.waitUntil(lambda: button.isEnabled() and not tab.busy, timeout=60_000)
    text = tab.findChild(QTextEdit, "kernelResult").toPlainText()
    s = tab.summary()
    # 4 × 256 = 1024 threads over 1000 elements: 24 extra threads × 3 accesses.
    assert s["oob_total"] == 72
    fallback = "running the traced kernel on numba's CUDA simulator instead (slower)"
    if s["backend"] == "emu":
        assert fallback not in text and "on the CPU emulator" in text
    else:  # the simulator traced it: the findings say why, once
        assert s["backend"] == "sim" and text.count(fallback) == 1
