"""The Lesson tab: the chapter (§2.2) step by step, each claim run live, each erratum on a card.

A step shows its explanation, the chapter's code (corrections highlighted), the errata cards,
what the simulator cannot show, and Try it. Try it drives the rest of the app through its public
widgets (the launch panel's spin boxes, ``colorBy``, the vector-add panel) or runs a probe of
``simtviz.backends.lesson`` through the run session, on the worker (GPU) or in the simulator's
child process, and shows its values, and for §2.2.4 and §2.2.2.1 a drawing.

Page Down / Page Up (a presenter remote) step through the lesson while it is shown, and also
while a tab it opened for a demonstration is shown: Page Down then comes back to the next step,
Page Up back to the step that opened it.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPoint, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from simtviz.backends.base import DEVICE_WORDS, BackendKind
from simtviz.backends.lesson import PROBES, LessonRequest
from simtviz.core.lesson import STEPS, Step, probes_of
from simtviz.qt.tabs.lesson.charts import chart_for, widget_png
from simtviz.qt.tabs.lesson.demos import LessonDemos
from simtviz.qt.tabs.lesson.handout import LessonHandout
from simtviz.qt.tabs.lesson.page_keys import PageKeys
from simtviz.qt.tabs.lesson.question import LessonQuestionBox
from simtviz.qt.tabs.lesson.views import ErratumCard, code_html, values_html, values_text, wrap_label

if TYPE_CHECKING:
    from simtviz.qt.session import RunSession

log = logging.getLogger(__name__)

LESSON = "lesson"


def _discard(widget: QWidget) -> None:
    """Take ``widget`` off screen now; Qt deletes it later (it may be inside its own signal)."""
    widget.hide()
    widget.setParent(None)
    widget.deleteLater()


class LessonPanel(QWidget):
    """``lessonPanel``: the steps in the chapter's order; ``step_count()``, ``current_step()``."""

    stepChanged = Signal(int)
    probeShown = Signal(str, object)  # probe name, its result
    demoFinished = Signal(str, str)  # section, what happened (status text)

    def __init__(
        self,
        session: RunSession | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("lessonPanel")
        self._session = session
        self._index = 0
        self._kind = session.kind if session is not None else "sim"
        self.results: dict[str, dict[str, Any]] = {}  # probe → its latest result
        self.answers: dict[str, str] = {}  # section → the student's checked prediction
        self.feedback: dict[str, str] = {}  # section → "you said X, the GPU did Y" after its run
        self.question_runs: dict[str, dict[str, Any]] = {}  # section → the run that answered it
        self.handout = LessonHandout()  # this run's figures, step by step
        self._pending_probe: tuple[str, str] | None = None  # (section, probe) running now
        self._point_size = 11
        self._build()
        # Page Down / Page Up, on the window while the lesson or a tab it opened is shown.
        self.pages = PageKeys(self, self._key_next, self._key_previous)
        # The Try-its that drive the index map, the vector add and other tabs.
        self.demos = LessonDemos(self, self, session)
        if session is not None:
            session.backendReady.connect(lambda info: self.set_backend_kind(str(info.kind)))
            session.busyChanged.connect(lambda _busy: self._update_buttons())
            session.resultArrived.connect(self._on_result)
            session.runFailed.connect(self._on_failed)
            session.presentationChanged.connect(lambda _on: self._restyle())
            # The window puts this panel in its tabs after building it: find them then.
            QTimer.singleShot(0, self, self._attach)  # with ``self``: never after it is gone
        self.show_step(0)

    # --- contract ------------------------------------------------------------------------------
    def step_count(self) -> int:
        return len(STEPS)

    def current_step(self) -> int:
        """0-based index of the step shown."""
        return self._index

    def step(self) -> Step:
        return STEPS[self._index]

    # --- layout --------------------------------------------------------------------------------
    def _build(self) -> None:
        self.lessonStepTitle = wrap_label(name="lessonStepTitle", rich=False)
        self.lessonProgress = QLabel(objectName="lessonProgress")
        self.lessonStepList = QComboBox(objectName="lessonStepList")
        self.lessonStepList.addItems([s.heading for s in STEPS])
        self.lessonStepList.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.lessonStepList.setMinimumContentsLength(12)
        self.lessonStepList.setToolTip("Go to a step")
        self.lessonStepList.activated.connect(self.show_step)
        top = QHBoxLayout()
        top.addWidget(self.lessonProgress)
        top.addStretch(1)
        top.addWidget(self.lessonStepList)

        self.lessonExplanation = wrap_label(name="lessonExplanation")
        self.lessonCode = wrap_label(name="lessonCode")
        self.lessonCode.setStyleSheet("#lessonCode { border: 1px solid #999; padding: 6px; }")
        self.lessonCodeNote = wrap_label(
            "<span style='background-color: #fff3c4; color: #111'>&nbsp;Highlighted&nbsp;</span> "
            "lines are corrected: the chapter prints them wrong.",
            "lessonCodeNote",
        )
        self.lessonSimNote = wrap_label(name="lessonSimNote")
        self.lessonSimNote.setStyleSheet("#lessonSimNote { border-left: 4px solid #888; padding-left: 6px; }")
        self._cards_box = QVBoxLayout()
        self._cards: list[ErratumCard] = []
        self.lessonTryIt = QPushButton(objectName="lessonTryIt")
        self.lessonTryIt.clicked.connect(lambda: self.try_it(0))
        self._more_buttons: list[QPushButton] = []
        self._buttons_box = QVBoxLayout()
        self._buttons_box.addWidget(self.lessonTryIt)
        self.lessonStatus = wrap_label(name="lessonStatus", rich=False)
        self._results_box = QVBoxLayout()

        body = QWidget(objectName="lessonBody")
        layout = QVBoxLayout(body)
        layout.addWidget(self.lessonExplanation)
        # The question comes right after the explanation: asked before the code and the cards.
        self.lessonQuestionBox = LessonQuestionBox()
        self.lessonQuestionBox.answered.connect(self._on_answered)
        self.lessonQuestionBox.concluded.connect(self._on_concluded)
        layout.addWidget(self.lessonQuestionBox)
        layout.addWidget(self.lessonCode)
        layout.addWidget(self.lessonCodeNote)
        layout.addLayout(self._cards_box)
        layout.addWidget(self.lessonSimNote)
        layout.addLayout(self._results_box)
        layout.addStretch(1)
        self.lessonScroll = QScrollArea(objectName="lessonScroll")
        self.lessonScroll.setWidget(body)
        self.lessonScroll.setWidgetResizable(True)
        self.lessonScroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

        self.lessonPrev = QPushButton("◀ Previous", objectName="lessonPrev")
        self.lessonNext = QPushButton("Next ▶", objectName="lessonNext")
        self.lessonPrev.setToolTip("Previous step (Page Up)")
        self.lessonNext.setToolTip("Next step (Page Down)")
        self.lessonExport = QPushButton("Export handout…", objectName="lessonExport")
        self.lessonExport.setToolTip("Save the lesson with this run's numbers and figures as an HTML page")
        self.lessonPrev.clicked.connect(self.previous)
        self.lessonNext.clicked.connect(self.next)
        self.lessonExport.clicked.connect(lambda: self.export_handout())
        nav = QHBoxLayout()
        nav.addWidget(self.lessonPrev)
        nav.addWidget(self.lessonNext)
        nav.addStretch(1)
        nav.addWidget(self.lessonExport)

        # Only the step's text scrolls: its title, Try it, what it said and the navigation stay
        # in view at 1280 × 720 in presentation mode, whatever the step's length.
        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 4, 6, 4)
        outer.setSpacing(4)
        outer.addLayout(top)
        outer.addWidget(self.lessonStepTitle)
        outer.addWidget(self.lessonScroll, stretch=1)
        outer.addLayout(self._buttons_box)
        outer.addWidget(self.lessonStatus)
        outer.addLayout(nav)
        self._restyle()

    def _attach(self) -> None:
        self.pages.attach()
        self._restyle()

    def _open_page_of(self, widget: QWidget, show: Callable[[], object] | None = None) -> bool:
        return self.pages.open_page_of(widget, show)

    def _key_next(self) -> None:
        """Page Down: first what is below on this step, a page at a time, then the next step."""
        if self.pages.back_to_lesson() or not self.reveal(1):
            self.next()

    def _key_previous(self) -> None:
        """Page Up: the mirror of Page Down; the previous step opens at its end."""
        if self.pages.back_to_lesson():  # from a demonstration, Page Up returns to its step
            return
        if not self.reveal(-1) and self._index > 0:
            self.show_step(self._index - 1, at_end=True)

    def _scroll_to(self, name: str) -> None:
        body = self.lessonScroll.widget()
        widget, layout = (body.findChild(QGroupBox, name), body.layout()) if body else (None, None)
        if body is None or layout is None or widget is None or widget.parentWidget() is None:
            return
        layout.activate()  # the result's box was just added: place it first
        QApplication.sendPostedEvents(self.lessonScroll, 0)
        bar = self.lessonScroll.verticalScrollBar()
        bar.setValue(min(bar.maximum(), widget.mapTo(body, QPoint(0, 0)).y()))

    def reveal(self, direction: int) -> bool:
        """Scroll the step's text one page down (``1``) or up (``-1``); False at its end."""
        bar = self.lessonScroll.verticalScrollBar()
        if (direction > 0 and bar.value() >= bar.maximum()) or (direction < 0 and bar.value() <= 0):
            return False
        # A line of the last page stays in view, so the reader keeps their place.
        step = max(1, bar.pageStep() - self.fontMetrics().lineSpacing())
        bar.setValue(bar.value() + direction * step)
        return True

    # --- navigation ----------------------------------------------------------------------------
    def next(self) -> None:
        if self._index + 1 < len(STEPS):
            self.show_step(self._index + 1)

    def previous(self) -> None:
        if self._index > 0:
            self.show_step(self._index - 1)

    def set_backend_kind(self, kind: str) -> None:
        """``gpu`` or ``sim``: the simulator's caveats are shown on the simulator only."""
        self._kind = kind
        self._show_sim_note()

    def show_step(self, index: int, at_end: bool = False) -> None:
        self._index = max(0, min(int(index), len(STEPS) - 1))
        s = self.step()
        self.lessonStepTitle.setText(s.heading)
        self.lessonProgress.setText(f"Step {self._index + 1} of {len(STEPS)}")
        self.lessonStepList.setCurrentIndex(self._index)
        self.lessonCode.setText(code_html(s.code))
        for card in self._cards:
            _discard(card)
        self._cards = [ErratumCard(e, self.check_probe) for e in s.errata]
        for card in self._cards:
            self._cards_box.addWidget(card)
            card.show_result(self.results.get(card.erratum.probe))
        run = self.question_runs.get(s.section)
        self.lessonQuestionBox.set_step(
            s,
            self.answers.get(s.section),
            self.feedback.get(s.section, ""),
            (run, self._where()) if run is not None else None,
        )
        self._reveal()
        for button in self._more_buttons:
            _discard(button)
        self._more_buttons = []
        for i, _t in enumerate(s.try_its[1:], start=1):
            button = QPushButton(objectName=f"lessonTryIt{i + 1}")
            button.clicked.connect(lambda _c=False, i=i: self.try_it(i))
            self._buttons_box.addWidget(button)
            self._more_buttons.append(button)
        self._label_buttons()
        self._show_sim_note()
        self._status("")
        self._show_results()
        self._update_buttons()
        self._restyle()
        bar = self.lessonScroll.verticalScrollBar()
        bar.setValue(0)
        if at_end:  # once the new text is laid out and the scroll range known
            QTimer.singleShot(0, bar, lambda: bar.setValue(bar.maximum()))
        self.stepChanged.emit(self._index)

    def _show_sim_note(self) -> None:
        s = self.step()
        self.lessonSimNote.setText(
            f"<b>On {DEVICE_WORDS[BackendKind.SIM]}</b> this step shows: {html.escape(s.sim_shows)}<br>"
            f"It cannot show: {html.escape(s.sim_cannot)}"
        )
        self.lessonSimNote.setVisible(self._kind != "gpu")  # the emulator runs probes on the simulator

    def _label_buttons(self) -> None:
        s = self.step()
        buttons = [self.lessonTryIt, *self._more_buttons]
        for i, (button, t) in enumerate(zip(buttons, s.try_its, strict=False)):
            label = f"▶ Try it: {t.label}"
            colours = t.params.get("colors", ())
            turn = self.demos.colour_turn.get(s.section)
            if i == 0 and len(colours) > 1 and turn is not None:
                label = f"▶ Try it: colour by {colours[turn]} ({turn + 1} of {len(colours)})"
            button.setText(label)
        self.lessonTryIt.setVisible(bool(s.try_its))

    def _update_buttons(self) -> None:
        can = self._session is not None and self._session.can_run
        for button in (self.lessonTryIt, *self._more_buttons):
            button.setEnabled(can)
        for card in self._cards:
            card.set_enabled_checks(can, self._session is not None)
        self.lessonPrev.setEnabled(self._index > 0)
        self.lessonNext.setEnabled(self._index + 1 < len(STEPS))

    # --- presentation --------------------------------------------------------------------------
    def _presentation(self) -> bool:
        return self._session is not None and self._session.settings.presentation

    def _restyle(self) -> None:
        from simtviz.qt.theme import point_size

        self._point_size = point_size(self._presentation())
        self.lessonStepTitle.setStyleSheet(
            f"#lessonStepTitle {{ font-size: {round(self._point_size * 1.5)}pt; font-weight: bold; }}"
        )
        self.lessonProgress.setStyleSheet("#lessonProgress { font-weight: bold; }")

    # --- Try it --------------------------------------------------------------------------------
    def try_it(self, which: int = 0) -> None:
        """Run the current step's Try-it number ``which`` (0: the ``lessonTryIt`` button)."""
        s = self.step()
        if which >= len(s.try_its):
            return
        t = s.try_its[which]
        actions: dict[str, Callable[[], object]] = {
            "probe": lambda: self.run_probe(t.params["probe"], s.section, t.params),
            "index_map": lambda: self.demos.try_index_map(s, t),
            "vecadd": lambda: self.demos.try_vecadd(s, t),
            "open_view": lambda: self.demos.try_open_view(t),
        }
        actions[t.action]()

    def check_probe(self, probe: str) -> None:
        """An erratum card's "Check it live": its probe, with its defaults."""
        self.run_probe(probe, self.step().section, {})

    def _status(self, text: str) -> None:
        self.lessonStatus.setText(text)
        self.lessonStatus.setVisible(bool(text))  # no empty line of the screen's height

    def _where(self) -> str:
        return DEVICE_WORDS[BackendKind(self._kind)]

    def run_probe(self, probe: str, section: str, params: Mapping[str, Any]) -> bool:
        if self._session is None:
            self._status("No backend: this lesson was opened without the app.")
            return False
        request = LessonRequest(probe, {k: v for k, v in params.items() if k != "probe"})
        if not self._session.run(LESSON, request):
            self._status("Busy: wait until the current run has finished.")
            return False
        self._pending_probe = (section, probe)
        self._status(f"Running {probe} on {self._where()}: {PROBES[probe].what} …")
        return True

    # --- results -------------------------------------------------------------------------------
    def _on_result(self, experiment: str, result: Any) -> None:
        if experiment == LESSON and isinstance(result, dict):
            self.show_probe_result(result.get("probe", ""), result)

    def _on_failed(self, experiment: str, _request: Any, exc: BaseException, _tb: str) -> None:
        if experiment == LESSON and self._pending_probe is not None:
            self._pending_probe = None
            self._status(f"The probe could not run: {type(exc).__name__}: {exc}")

    def show_probe_result(self, probe: str, result: dict[str, Any]) -> None:
        """Keep ``result`` (it may be evidence on other steps too) and show it where it belongs."""
        self.results[probe] = result
        section = self._pending_probe[0] if self._pending_probe else self.step().section
        self._pending_probe = None
        box = self.lessonQuestionBox
        if section == self.step().section and box.show_result(probe, result, self._where()):
            self.question_runs[section] = result
        for card in self._cards:
            if card.erratum.probe == probe:
                card.show_result(result)
        self._show_results()
        # The result just arrived: its top at the top of the view (looked up when the timer
        # fires: the boxes may be rebuilt before then). ``self`` as the timer's context: a panel
        # closed within those 50 ms must not be scrolled after its widgets are deleted.
        QTimer.singleShot(50, self, lambda: self._scroll_to(f"lessonResult_{probe}"))
        if result.get("error"):
            self._status(f"{probe} failed on {self._where()}: {result['error']}")
        else:
            self._status(f"{probe} ran on {result.get('backend', self._where())}.")
        chart = chart_for(probe, result, self.palette().base().color(), self.palette().text().color(), 11)
        if chart is not None:
            chart.resize(900, 340)
            self._add_figure(section, widget_png(chart), f"{probe} ({result.get('backend', '')})")
            chart.deleteLater()
        self.probeShown.emit(probe, result)

    # --- predict, then run ------------------------------------------------------------------------
    def _reveal(self) -> None:
        """A step that asks shows what gives the answer away (the lines after the answer, the code,
        the cards) only once the student has answered or run its Try it."""
        s = self.step()
        shown = s.question is None or s.section in self.answers or s.section in self.feedback
        lines = (*s.explanation, *s.after_answer) if shown else s.explanation
        bullets = "".join(f"<li>{html.escape(line)}</li>" for line in lines)
        beyond = "<p><i>Beyond the chapter.</i></p>" if s.beyond else ""
        picture = f"<pre>{html.escape(s.diagram)}</pre>" if s.diagram and shown else ""
        self.lessonExplanation.setText(f"{beyond}<ul style='margin-left: 0'>{bullets}</ul>{picture}")
        self.lessonCode.setVisible(bool(s.code) and shown)  # a lead-in with no code: no empty box
        self.lessonCodeNote.setVisible("# corrected:" in s.code and shown)
        for card in self._cards:
            card.setVisible(shown)
        if not shown:
            self.lessonQuestionBox.lessonFeedback.setText(
                "Answer first: the code, the rest of the step and the chapter's errors appear once "
                "you check your answer (or press Try it)."
            )

    def _on_answered(self, section: str, value: str) -> None:
        self.answers[section] = value
        self._reveal()

    def _on_concluded(self, section: str, _given: str, text: str) -> None:
        self.feedback[section] = text
        self._reveal()

    def _show_results(self) -> None:
        while self._results_box.count():
            item = self._results_box.takeAt(0)
            if item is not None and (widget := item.widget()) is not None:
                _discard(widget)
        for probe in probes_of(self.step()):
            result = self.results.get(probe)
            if result is None:
                continue
            box = QGroupBox(f"{probe} on {result.get('backend', '?')}: {PROBES[probe].what}")
            box.setObjectName(f"lessonResult_{probe}")
            layout = QVBoxLayout(box)
            chart = chart_for(
                probe, result, self.palette().base().color(), self.palette().text().color(), self._point_size
            )
            if chart is not None:
                layout.addWidget(chart)
            layout.addWidget(wrap_label(values_html(result), f"lessonValues_{probe}"))
            self._results_box.addWidget(box)

    def values_text(self, probe: str) -> str:
        """The values of ``probe``'s latest result as plain text ("" before it ran)."""
        result = self.results.get(probe)
        return values_text(result) if result is not None else ""

    def card(self, erratum_id: str) -> ErratumCard | None:
        return next((c for c in self._cards if c.erratum.id == erratum_id), None)

    # --- the handout (lesson_handout keeps the figures and saves the page) --------------------
    def _add_figure(self, section: str, png: bytes, caption: str, replace: bool = False) -> None:
        self.handout.add_figure(section, png, caption, replace)

    def handout_html(self) -> str:
        backend = ""
        if self._session is not None and self._session.info is not None:
            backend = self._session.info.label
        return self.handout.html(self.results, backend or self._where(), self.answers, self.question_runs)

    def export_handout(self, path: str | Path | None = None) -> Path | None:
        """Write the handout (HTML, this run's numbers and figures); asks where unless ``path``."""
        export_dir = self._session.settings.export_dir if self._session is not None else ""
        written = self.handout.save(self, self.handout_html(), path, export_dir or "")
        if written is not None:
            self._status(f"Saved the handout to {written}")
        return written
