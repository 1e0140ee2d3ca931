"""Worked by hand: the lesson panel alone (no window, no backend): its progress, navigation,
status lines, result boxes, Try-it buttons, the demos' words, the question box, the page keys and
the handout's figures and dialog."""

from __future__ import annotations

import types
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QGroupBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QWidget,
)

from simtviz.core.errors import LaunchRejected, LaunchTooLarge
from simtviz.core.launch import LaunchConfig
from simtviz.core.lesson import STEPS
from simtviz.qt.tabs.lesson import handout as handout_module
from simtviz.qt.tabs.lesson.demos import cell_of
from simtviz.qt.tabs.lesson.handout import LessonHandout
from simtviz.qt.tabs.lesson.page_keys import PageKeys, takes_page_keys
from simtviz.qt.tabs.lesson.question import PICK, LessonQuestionBox
from simtviz.qt.tabs.lesson.tab import LessonPanel


def _index(section: str) -> int:
    return [s.section for s in STEPS].index(section)


@pytest.fixture
def panel(qtbot) -> LessonPanel:
    p = LessonPanel()
    qtbot.addWidget(p)
    return p


def test_progress_and_the_buttons_at_both_ends(panel: LessonPanel) -> None:
    # 24 steps: the first says 1 of 24, its Previous is off and its Next on.
    assert panel.lessonProgress.text() == "Step 1 of 24"
    assert not panel.lessonPrev.isEnabled() and panel.lessonNext.isEnabled()
    panel.previous()  # nothing before the first
    assert panel.current_step() == 0
    panel.next()
    assert panel.lessonProgress.text() == "Step 2 of 24"
    assert panel.lessonStepList.currentIndex() == 1
    assert panel.lessonPrev.isEnabled() and panel.lessonNext.isEnabled()
    panel.show_step(22)  # the last but one: Next still on
    assert panel.lessonNext.isEnabled()
    panel.next()
    assert panel.current_step() == 23 and panel.lessonProgress.text() == "Step 24 of 24"
    assert panel.lessonPrev.isEnabled() and not panel.lessonNext.isEnabled()
    panel.next()  # nothing after the last
    assert panel.current_step() == 23
    panel.previous()
    assert panel.current_step() == 22
    panel.show_step(99)  # beyond the end: the last step
    assert panel.current_step() == 23
    panel.show_step(-3)
    assert panel.current_step() == 0


def test_the_step_list_goes_to_the_step_picked(panel: LessonPanel) -> None:
    assert panel.lessonStepList.count() == 24
    assert panel.lessonStepList.itemText(0).startswith("2.2 ")
    assert panel.lessonStepList.itemText(23).startswith("B3 ")
    panel.lessonStepList.activated.emit(5)
    assert panel.current_step() == 5 and panel.lessonStepTitle.text().startswith("2.2.1.4 ")


def test_the_title_is_half_again_the_text_size(panel: LessonPanel) -> None:
    from simtviz.qt.theme import point_size

    size = round(point_size(False) * 1.5)
    assert f"font-size: {size}pt" in panel.lessonStepTitle.styleSheet()


def test_the_simulator_note_is_hidden_on_the_gpu_only(panel: LessonPanel) -> None:
    assert panel.lessonSimNote.isVisibleTo(panel)
    assert panel.lessonSimNote.text().startswith("<b>On the CUDA simulator</b> this step shows: ")
    panel.set_backend_kind("gpu")
    assert not panel.lessonSimNote.isVisibleTo(panel)
    panel.set_backend_kind("emu")  # the emulator runs probes on the simulator: the note shows
    assert panel.lessonSimNote.isVisibleTo(panel)
    assert panel._where() == "the CPU emulator"


def test_try_it_buttons_are_numbered_from_two_and_off_without_a_backend(panel: LessonPanel) -> None:
    # §2.2.5 has four Try-its: lessonTryIt, then lessonTryIt2 … lessonTryIt4.
    panel.show_step(_index("2.2.5"))
    assert panel.lessonTryIt.text() == "▶ Try it: Run the vector add (guarded)"
    second = panel.findChild(QPushButton, "lessonTryIt2")
    fourth = panel.findChild(QPushButton, "lessonTryIt4")
    assert second is not None and second.text() == "▶ Try it: Run it as printed (no guard)"
    assert fourth is not None and fourth.text() == "▶ Try it: Show the dtype of cp.random.uniform"
    assert panel.findChild(QPushButton, "lessonTryIt5") is None
    assert not panel.lessonTryIt.isEnabled() and not fourth.isEnabled()
    # The lead-in has no Try it: no button.
    panel.show_step(0)
    assert not panel.lessonTryIt.isVisibleTo(panel)
    assert panel.findChild(QPushButton, "lessonTryIt2") is None


def test_a_probe_without_a_backend_says_so(panel: LessonPanel) -> None:
    panel.show_step(_index("2.2.2.1"))
    assert not panel.lessonStatus.isVisibleTo(panel)  # no empty line
    panel.try_it(0)
    assert panel.lessonStatus.text() == "No backend: this lesson was opened without the app."
    assert panel.lessonStatus.isVisibleTo(panel)
    panel.try_it(5)  # no sixth Try it: nothing happens
    panel.next()
    assert panel.lessonStatus.text() == "" and not panel.lessonStatus.isVisibleTo(panel)


def test_a_probe_result_is_named_by_its_backend_in_the_status_and_its_box(panel: LessonPanel) -> None:
    panel.show_step(_index("2.2.2.1"))
    result = {
        "probe": "jit_timing",
        "backend": "sim",
        "first_sim_launch_ms": 30.0,
        "second_sim_launch_ms": 2.5,
    }
    panel.show_probe_result("jit_timing", result)
    assert panel.lessonStatus.text() == "jit_timing ran on sim."
    box = panel.findChild(QGroupBox, "lessonResult_jit_timing")
    assert box is not None
    assert box.title() == (
        "jit_timing on sim: first launch (numba compiles) against the second, then float32 arrays"
    )
    assert panel.values_text("jit_timing") == "first_sim_launch_ms: 30.00 ms\nsecond_sim_launch_ms: 2.50 ms"
    assert panel.values_text("warps") == ""
    # The chart went into the handout, captioned with its backend.
    assert [c for _png, c in panel.handout.figures["2.2.2.1"]] == ["jit_timing (sim)"]
    panel.show_probe_result("jit_timing", {"probe": "jit_timing", "backend": "gpu", "error": "no driver"})
    assert panel.lessonStatus.text() == "jit_timing failed on the CUDA simulator: no driver"


def test_a_failed_probe_says_its_exception(panel: LessonPanel) -> None:
    panel._pending_probe = ("2.2.2.1", "jit_timing")
    panel._on_failed("lesson", None, ValueError("bad launch"), "")
    assert panel.lessonStatus.text() == "The probe could not run: ValueError: bad launch"
    panel._on_failed("lesson", None, ValueError("again"), "")  # none pending: unchanged
    assert panel.lessonStatus.text() == "The probe could not run: ValueError: bad launch"


def test_a_card_s_check_shows_its_result_on_its_card(panel: LessonPanel) -> None:
    panel.show_step(_index("2.2.4"))
    card = panel.card("cp-synchronize")
    assert card is not None and card.checkButton.text() == "Check it live"
    panel.show_probe_result(
        "async_timeline", {"probe": "async_timeline", "backend": "sim", "cupy_has_synchronize": True}
    )
    assert card.checkButton.text() == "Check it again"
    assert card.evidence_plain().endswith("→ <b>True</b>")
    assert panel.findChild(QWidget, "lessonTimeline") is not None


def test_the_views_beyond_the_chapter_are_named_in_words_when_missing(panel: LessonPanel) -> None:
    panel.show_step(_index("B1"))
    panel.demos.try_open_view(STEPS[_index("B1")].try_its[0])
    assert panel.lessonStatus.text() == "Your kernel is not available in this build."
    panel.show_step(_index("B2"))
    panel.demos.try_open_view(STEPS[_index("B2")].try_its[0])
    assert panel.lessonStatus.text() == "The schedule view is not available in this build."
    s = STEPS[_index("2.2.2.2.1")]
    panel.demos.try_index_map(s, s.try_its[0])
    assert panel.lessonStatus.text() == "The index map is not available here."
    s = STEPS[_index("2.2.5")]
    panel.demos.try_vecadd(s, s.try_its[0])
    assert panel.lessonStatus.text() == "The vector-add panel is not available here."


def test_the_vector_add_verdict_and_its_failures(panel: LessonPanel, qtbot) -> None:
    demos = panel.demos
    finished: list[tuple[str, str]] = []
    panel.demoFinished.connect(lambda s, t: finished.append((s, t)))
    s = STEPS[_index("2.2.5")]
    demos._pending_vecadd = ("2.2.5", s.try_its[0])
    demos._on_result("vecadd", types.SimpleNamespace(verified=True, kernel_error=None))
    assert panel.lessonStatus.text() == "Vector add: Test succeeded. The Vector add tab shows the run."
    demos._on_result("vecadd", types.SimpleNamespace(verified=True))  # none pending: ignored
    demos._pending_vecadd = ("2.2.5", s.try_its[1])
    demos._on_result("vecadd", types.SimpleNamespace(verified=False, kernel_error="IndexError"))
    assert (
        panel.lessonStatus.text() == "Vector add: Test failed: IndexError. The Vector add tab shows the run."
    )
    assert finished == [("2.2.5", "Test succeeded"), ("2.2.5", "Test failed: IndexError")]
    # Too large: it waits for "Run it anyway?" and stays pending.
    demos._pending_vecadd = ("2.2.6", s.try_its[0])
    demos._on_failed("vecadd", None, LaunchTooLarge(10**9, 90.0, 10**6, "the CUDA simulator"), "")
    assert panel.lessonStatus.text().startswith("The vector add asks first: ")
    assert demos._pending_vecadd is not None
    config = LaunchConfig.of((1, 1, 1), (2048, 1, 1))
    rejected = LaunchRejected("CUDA_ERROR_INVALID_VALUE", config, [], "CudaAPIError", source="the driver")
    demos._on_failed("vecadd", None, rejected, "")
    assert panel.lessonStatus.text() == (
        f"Launch rejected, as the chapter says: CUDA_ERROR_INVALID_VALUE. {rejected.explanation}"
    )
    assert finished[-1][0] == "2.2.6" and demos._pending_vecadd is None
    demos._pending_vecadd = ("2.2.5", s.try_its[0])
    demos._on_failed("vecadd", None, RuntimeError("gone"), "")
    assert panel.lessonStatus.text() == "The vector add failed: RuntimeError: gone"
    demos._pending_map = ("2.2.2.2.1", s.try_its[0], config)
    demos._on_failed("record", None, RuntimeError("map gone"), "")
    assert panel.lessonStatus.text() == "The index map run failed: map gone"


class _Map:
    def __init__(self) -> None:
        self.pinned: list[object] = []

    def color_field(self) -> str:
        return "blockIdx.y"

    def render_png(self, _width: int) -> bytes:
        return b"png"

    def pin(self, cell: object) -> None:
        self.pinned.append(cell)


def test_the_map_demo_says_rows_then_columns_of_a_wide_map(panel: LessonPanel, monkeypatch) -> None:
    # A 3 × 2 grid of 8 × 4 blocks: 2 × 4 = 8 rows, 3 × 8 = 24 columns.
    config = LaunchConfig.of((3, 2, 1), (8, 4, 1))
    recording = types.SimpleNamespace(config=config, plane_shape=lambda: (1, 8, 24))
    tab = types.SimpleNamespace(indexMap=_Map(), inspector=types.SimpleNamespace(go_to=lambda a: True))
    demos = panel.demos
    demos._session = types.SimpleNamespace(recording=recording)
    monkeypatch.setattr(demos, "_map_tab", lambda: tab)
    finished: list[tuple[str, str]] = []
    panel.demoFinished.connect(lambda s, t: finished.append((s, t)))
    t = STEPS[_index("2.2.2.2.2")].try_its[0]
    demos._after_map("2.2.2.2.2", t)
    words = "The index map shows 8 rows × 24 columns, coloured by blockIdx.y."
    assert panel.lessonStatus.text() == words + " Page Down: next step; Page Up: back to this one."
    assert finished == [("2.2.2.2.2", words)]
    (caption,) = [c for _p, c in panel.handout.figures["2.2.2.2.2"]]
    assert caption.endswith(", coloured by blockIdx.y")


def test_the_map_demo_pins_its_thread_by_block_then_thread(panel: LessonPanel, monkeypatch) -> None:
    config = LaunchConfig.of((4, 1, 1), (32, 1, 1))
    recording = types.SimpleNamespace(config=config, plane_shape=lambda: (1, 4, 32))
    asked: list[str] = []
    tab = types.SimpleNamespace(
        indexMap=_Map(), inspector=types.SimpleNamespace(go_to=lambda a: asked.append(a) or True)
    )
    demos = panel.demos
    demos._session = types.SimpleNamespace(recording=recording)
    monkeypatch.setattr(demos, "_map_tab", lambda: tab)
    t = STEPS[_index("2.2.2.3")].try_its[0]
    demos._after_map("2.2.2.3", t)
    assert asked == ["blockIdx 2,0,0 threadIdx 5,0,0"]
    assert " The inspector works out the index of blockIdx (2, 0, 0), threadIdx (5, 0, 0)." in (
        panel.lessonStatus.text()
    )


def test_cell_of_a_thread_of_a_non_square_block() -> None:
    # Block (48, 2, 1): blockIdx (1, 2, 0), threadIdx (5, 1, 0) is global (1·48 + 5, 2·2 + 1, 0) = (53, 5, 0).
    asked: list[tuple[int, int, int]] = []
    config = LaunchConfig.of((3, 5, 1), (48, 2, 1))

    def lookup(g: tuple[int, int, int]) -> tuple[int, int, int]:
        asked.append(g)
        return (0, g[1], g[0])

    recording = types.SimpleNamespace(config=config, cell_of=lookup)
    cell = cell_of(recording, (1, 2, 0), (5, 1, 0))
    assert asked == [(53, 5, 0)]
    assert cell is not None and (cell.plane, cell.row, cell.col) == (0, 5, 53)
    assert cell_of(types.SimpleNamespace(config=config, cell_of=lambda g: None), (0, 0, 0), (0, 0, 0)) is None


def test_a_second_press_on_a_shown_map_counts_its_colourings_round(panel: LessonPanel, monkeypatch) -> None:
    s = STEPS[_index("2.2.2.3")]  # three colourings: threadIdx.x, blockIdx.x, global linear index
    t = s.try_its[0]
    config = LaunchConfig.of((4, 1, 1), (32, 1, 1))
    shown: list[tuple[object, str]] = []
    session = types.SimpleNamespace(
        can_run=True,
        recording=types.SimpleNamespace(config=config, plane_shape=lambda: (1, 4, 32)),
        show_launch=lambda c, colour: shown.append((c, colour)),
    )
    demos = panel.demos
    demos._session = session
    tab = types.SimpleNamespace(indexMap=_Map(), inspector=types.SimpleNamespace(go_to=lambda a: True))
    monkeypatch.setattr(demos, "_map_tab", lambda: tab)
    monkeypatch.setattr(panel.pages, "open_page_of", lambda w, show=None: bool(show and show() is None))
    panel.show_step(_index("2.2.2.3"))
    turns = []
    for _ in range(4):
        demos.try_index_map(s, t)
        turns.append(shown[-1][1])
    # The map shows this launch already: the first press shows the first colouring, then round.
    assert turns == ["threadIdx.x", "blockIdx.x", "global linear index", "threadIdx.x"]
    assert panel.lessonTryIt.text() == "▶ Try it: colour by threadIdx.x (1 of 3)"


def test_a_map_demo_not_shown_yet_says_what_it_runs(panel: LessonPanel, monkeypatch) -> None:
    s = STEPS[_index("2.2.2.2.2")]
    session = types.SimpleNamespace(can_run=True, recording=None, show_launch=lambda c, colour: None)
    panel.demos._session = session
    monkeypatch.setattr(panel.demos, "_map_tab", lambda: object())
    monkeypatch.setattr(panel.pages, "open_page_of", lambda w, show=None: True)
    panel.show_step(_index("2.2.2.2.2"))
    panel.demos.try_index_map(s, s.try_its[0])
    line = LaunchConfig.of((3, 2, 1), (8, 4, 1)).launch_line("kernel", None)
    assert panel.lessonStatus.text() == f"Running {line} on the CUDA simulator …"
    assert panel.demos._pending_map is not None and panel.demos._pending_map[2].grid.as_tuple() == (3, 2, 1)
    session.can_run = False
    panel.demos.try_index_map(s, s.try_its[0])
    assert panel.lessonStatus.text() == "Busy: wait until the current run has finished."


def test_the_question_box_lists_its_choices_after_pick_one(qtbot) -> None:
    box = LessonQuestionBox()
    qtbot.addWidget(box)
    step = next(s for s in STEPS if s.question is not None and s.question.choices)
    choices = list(step.question.choices)
    box.set_step(step, choices[-1], "earlier words")
    items = [box.lessonAnswer.itemText(i) for i in range(box.lessonAnswer.count())]
    assert items == [PICK, *choices] and PICK == "Pick one…"
    assert box.lessonAnswer.currentText() == choices[-1]
    assert not box.lessonAnswer.isEditable()
    assert box.lessonFeedback.text() == "earlier words"
    assert box.answer() == choices[-1]
    # A question to answer with a number: typed, with a hint.
    numeric = next(s for s in STEPS if s.question is not None and not s.question.choices)
    box.set_step(numeric)
    assert box.lessonAnswer.isEditable() and box.lessonAnswer.currentText() == ""
    assert box.lessonAnswer.lineEdit().placeholderText() == "a whole number"
    assert box.answer() is None
    # A step without a question: the box hides.
    box.set_step(STEPS[0])
    assert box.isHidden()
    assert box.show_result("thread_count", {}, "the GPU") is False


def test_the_answer_checked_is_the_one_emitted(qtbot) -> None:
    box = LessonQuestionBox()
    qtbot.addWidget(box)
    numeric = next(s for s in STEPS if s.question is not None and not s.question.choices)
    box.set_step(numeric)
    got: list[tuple[str, str]] = []
    box.answered.connect(lambda s, v: got.append((s, v)))
    box.set_answer_text("70")
    box.lessonCheckAnswer.click()
    assert got == [(numeric.section, "70")] and box.answer() == "70"
    # a result of another probe is not this question's
    assert box.show_result("no_such_probe", {}, "the GPU") is False


def test_page_keys_belong_to_where_the_user_types() -> None:
    editor = QPlainTextEdit()
    assert takes_page_keys(editor)
    editor.setReadOnly(True)
    assert not takes_page_keys(editor)
    assert takes_page_keys(QLineEdit()) and takes_page_keys(QSpinBox())
    assert not takes_page_keys(QLabel()) and not takes_page_keys(None)


def test_page_down_is_next_and_page_up_previous(qtbot) -> None:
    owner = QWidget()
    qtbot.addWidget(owner)
    calls: list[str] = []
    keys = PageKeys(owner, lambda: calls.append("next"), lambda: calls.append("previous"))
    by_key = {k.key().toString(): k for k in keys._keys}
    assert set(by_key) == {"PgDown", "PgUp"}
    by_key["PgDown"].activated.emit()
    by_key["PgUp"].activated.emit()
    assert calls == ["next", "previous"]
    assert all(k.context() == Qt.ShortcutContext.WidgetWithChildrenShortcut for k in keys._keys)


def test_page_keys_follow_the_lesson_and_the_tab_it_opened(qtbot) -> None:
    tabs = QTabWidget()
    qtbot.addWidget(tabs)
    lesson, demo, other = QWidget(), QWidget(), QWidget()
    inner = QWidget(demo)
    for page, title in ((lesson, "Lesson"), (demo, "Map"), (other, "Other")):
        tabs.addTab(page, title)
    keys = PageKeys(lesson, lambda: None, lambda: None)
    keys.attach()
    assert keys.tabs() is tabs and keys.lesson_shown()
    assert all(k.isEnabled() for k in keys._keys)
    assert keys.back_to_lesson() is False  # shown already
    assert keys.open_page_of(inner) is True
    assert tabs.currentWidget() is demo and keys.driven_page is demo
    assert all(k.isEnabled() for k in keys._keys)  # on the page it opened: still the lesson's
    assert keys.back_to_lesson() is True and tabs.currentWidget() is lesson
    tabs.setCurrentWidget(other)  # the user went elsewhere: the keys are theirs
    assert keys.driven_page is None
    assert not any(k.isEnabled() for k in keys._keys)
    assert keys.open_page_of(QWidget()) is False


def test_the_handout_keeps_the_last_four_figures_of_a_step() -> None:
    h = LessonHandout()
    for i in range(1, 6):
        h.add_figure("2.2.4", b"", f"fig {i}")
    assert [c for _p, c in h.figures["2.2.4"]] == ["fig 2", "fig 3", "fig 4", "fig 5"]
    h.add_figure("2.2.4", b"", "new map", replace=True)
    assert [c for _p, c in h.figures["2.2.4"]] == ["new map"]
    h.add_figure("2.2.5", b"", "other step")
    assert [c for _p, c in h.figures["2.2.4"]] == ["new map"]


def test_the_handout_asks_for_an_html_page_in_the_export_folder(qtbot, tmp_path: Path, monkeypatch) -> None:
    asked: list[tuple[object, ...]] = []
    target = tmp_path / "out.html"

    def ask(parent, title, start, suffix, filters):
        asked.append((title, start, suffix, filters))
        return target

    monkeypatch.setattr(handout_module.dialogs, "ask_save_path", ask)
    parent = QWidget()
    qtbot.addWidget(parent)
    h = LessonHandout()
    assert h.save(parent, "<p>é</p>", None, str(tmp_path / "exports")) == target
    assert asked == [
        (
            "Export the lesson handout",
            tmp_path / "exports" / "simtviz-lesson.html",
            "html",
            "HTML page (*.html)",
        )
    ]
    assert target.read_bytes() == "<p>é</p>".encode()
    h.save(parent, "x", None, "")
    assert asked[-1][1] == Path.home() / "simtviz-lesson.html"
    monkeypatch.setattr(handout_module.dialogs, "ask_save_path", lambda *a: None)
    assert h.save(parent, "x", None) is None  # cancelled


def test_the_panel_says_where_it_saved_the_handout(panel: LessonPanel, tmp_path: Path) -> None:
    written = panel.export_handout(tmp_path / "h.html")
    assert written == tmp_path / "h.html"
    assert panel.lessonStatus.text() == f"Saved the handout to {tmp_path / 'h.html'}"
