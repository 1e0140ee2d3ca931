"""Worked by hand: the lesson panel with a stand-in run session: what a Try it asks the session
to run and says meanwhile, when its buttons are on, where the handout is saved first, the
backend it names, and the title's size in presentation mode."""

from __future__ import annotations

import types
from typing import Any

import pytest
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QPushButton

from simtviz.core.lesson import STEPS
from simtviz.qt.tabs.lesson import handout as handout_module
from simtviz.qt.tabs.lesson.tab import LessonPanel


class _Session(QObject):
    backendReady = Signal(object)
    busyChanged = Signal(bool)
    resultArrived = Signal(str, object)
    runFailed = Signal(str, object, object, str)
    presentationChanged = Signal(bool)
    recordingChanged = Signal(object)

    def __init__(self, kind: str = "sim") -> None:
        super().__init__()
        self.kind = kind
        self.can_run = True
        self.accept = True
        self.recording = None
        self.info: Any = None
        self.settings = types.SimpleNamespace(presentation=False, export_dir="")
        self.runs: list[tuple[str, Any]] = []

    def run(self, experiment: str, request: Any) -> bool:
        if self.accept:
            self.runs.append((experiment, request))
        return self.accept


def _index(section: str) -> int:
    return [s.section for s in STEPS].index(section)


@pytest.fixture
def session() -> _Session:
    return _Session()


@pytest.fixture
def panel(qtbot, session: _Session) -> LessonPanel:
    p = LessonPanel(session)
    qtbot.addWidget(p)
    return p


def test_a_try_it_runs_its_probe_with_its_parameters_and_says_so(panel: LessonPanel, session) -> None:
    panel.show_step(_index("2.2.3.2"))  # Time 64 MiB copies
    panel.lessonTryIt.click()
    ((experiment, request),) = session.runs
    assert experiment == "lesson"
    assert request.probe == "copy_bandwidth" and dict(request.params) == {"mbytes": 64}
    assert panel.lessonStatus.text() == (
        "Running copy_bandwidth on the CUDA simulator: host↔GPU copies from pageable and pinned memory, "
        "in GB/s …"
    )
    session.accept = False
    panel.lessonTryIt.click()
    assert panel.lessonStatus.text() == "Busy: wait until the current run has finished."


def test_the_second_try_it_runs_the_second_probe(panel: LessonPanel, session) -> None:
    # §2.2.2.3's Try-its: the map, then index_formula, then bounds_check.
    panel.show_step(_index("2.2.2.3"))
    button = panel.findChild(QPushButton, "lessonTryIt3")
    assert button is not None
    button.click()
    assert [r.probe for _e, r in session.runs] == ["bounds_check"]
    panel.findChild(QPushButton, "lessonTryIt2").click()
    assert [r.probe for _e, r in session.runs] == ["bounds_check", "index_formula"]


def test_a_result_of_the_session_reaches_the_panel_and_a_failure_its_status(
    panel: LessonPanel, session
) -> None:
    panel.show_step(_index("2.2.2.1"))
    panel.lessonTryIt.click()
    session.resultArrived.emit("vecadd", {"probe": "jit_timing"})  # another experiment's: ignored
    assert "jit_timing" not in panel.results
    session.resultArrived.emit(
        "lesson", {"probe": "jit_timing", "backend": "sim", "first_sim_launch_ms": 3.0}
    )
    assert panel.results["jit_timing"]["first_sim_launch_ms"] == 3.0
    assert panel.lessonStatus.text() == "jit_timing ran on sim."
    panel.lessonTryIt.click()
    session.runFailed.emit("lesson", None, RuntimeError("child died"), "")
    assert panel.lessonStatus.text() == "The probe could not run: RuntimeError: child died"


def test_the_buttons_follow_whether_the_session_can_run(panel: LessonPanel, session) -> None:
    panel.show_step(_index("2.2.4"))
    card = panel.card("cp-synchronize")
    assert card is not None
    assert panel.lessonTryIt.isEnabled() and card.checkButton.isEnabled()
    assert card.checkButton.isVisibleTo(card)
    session.can_run = False
    session.busyChanged.emit(True)
    assert not panel.lessonTryIt.isEnabled() and not card.checkButton.isEnabled()
    assert card.checkButton.isVisibleTo(card)  # off, still shown: a backend is there
    session.can_run = True
    session.busyChanged.emit(False)
    assert panel.lessonTryIt.isEnabled()


def test_the_backend_ready_hides_the_simulator_note_on_a_gpu(panel: LessonPanel, session) -> None:
    assert panel.lessonSimNote.isVisibleTo(panel)
    session.backendReady.emit(types.SimpleNamespace(kind="gpu"))
    assert not panel.lessonSimNote.isVisibleTo(panel)
    assert panel._where() == "the GPU"


def test_the_handout_is_asked_for_in_the_export_folder_and_names_the_backend(
    panel: LessonPanel, session, monkeypatch, tmp_path
) -> None:
    asked: list[Any] = []
    monkeypatch.setattr(handout_module.dialogs, "ask_save_path", lambda *a: asked.append(a[2]))
    session.settings.export_dir = str(tmp_path)
    assert panel.export_handout() is None
    assert asked == [tmp_path / "simtviz-lesson.html"]
    assert "the CUDA simulator" in panel.handout_html()
    session.info = types.SimpleNamespace(label="NVIDIA H100 (CUDA 12.4)")
    assert "NVIDIA H100 (CUDA 12.4)" in panel.handout_html()


def test_presentation_mode_makes_the_title_larger(panel: LessonPanel, session) -> None:
    from simtviz.qt.theme import point_size

    session.settings.presentation = True
    session.presentationChanged.emit(True)
    assert f"font-size: {round(point_size(True) * 1.5)}pt" in panel.lessonStepTitle.styleSheet()
    assert point_size(True) > point_size(False)
