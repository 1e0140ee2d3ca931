"""The Exercises tab: pick an exercise, write the kernel, Check it, read why each check failed.

The editor holds the student's own file (kept in the settings per exercise, and savable as a
.py); it starts from the exercise's starter, never from an answer (none is shipped). Check is
``session.run("exercise", request)``: the experiment is isolated, so it grades in a child process
of its own (``backends.exercise``: every case traced in one process; the session keeps one
started ahead so that a check answers in about a second), on the session's backend kind. The
tab shows what the session's signals bring; it never reaches into the window. Progress (passed,
hints shown) is kept per exercise in the settings. A teacher exports the list with its
statements as one HTML page (File → Export exercises as HTML…).
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from simtviz.backends.base import DEVICE_WORDS, BackendKind
from simtviz.core.exercise.catalog import exercise, exercises
from simtviz.core.exercise.handout import handout_html
from simtviz.core.exercise.model import CHECK_TITLES, Exercise, Report
from simtviz.qt.tabs.kernel.editor import CodeEditor

if TYPE_CHECKING:
    from simtviz.qt.session import RunSession

KEY = "exercises/"  # exercises/current, exercises/<id>/source, …/passed, …/hints
SAVE_DELAY_MS = 400
EXERCISE_RUN = "exercise"  # the experiment this tab runs


class ExercisesTab(QWidget):
    """objectName ``exercisesTab``: ``select(id)``, ``set_source(text)``, ``check()``,
    ``report()``, ``progress()`` and ``export_html(path)`` for tests and scripts."""

    def __init__(self, session: RunSession) -> None:
        super().__init__()
        self.setObjectName("exercisesTab")
        self.session = session
        # Where the window keeps its settings (the session carries it); alone: the default file.
        qs = session.store
        self._qs: QSettings = qs if isinstance(qs, QSettings) else QSettings()
        self._current: Exercise = exercises()[0]
        self._report: Report | None = None
        self._loading = False
        self._dirty = False  # the editor differs from what the settings hold
        self._ready = False  # nothing is written to the settings while the tab is being built
        self._save_timer = QTimer(self, singleShot=True, interval=SAVE_DELAY_MS)
        self._save_timer.timeout.connect(self._save_source)
        self._build()
        session.resultArrived.connect(self._on_result)
        session.runFailed.connect(self._on_run_failed)
        session.runProgress.connect(self._on_progress)
        current = str(self._qs.value(KEY + "current", exercises()[0].id))
        self.select(current if current in {e.id for e in exercises()} else exercises()[0].id)
        self._ready = True

    # --- layout ------------------------------------------------------------------------------
    def _build(self) -> None:
        self.list = QListWidget(objectName="exerciseList")
        for e in exercises():
            item = QListWidgetItem(e.title)
            item.setData(Qt.ItemDataRole.UserRole, e.id)
            item.setToolTip(f"{e.signature} — {e.topic}")
            self.list.addItem(item)
        self.list.currentItemChanged.connect(self._on_pick)
        self.statement = QTextBrowser(objectName="exerciseStatement")
        self.editor = CodeEditor()
        self.editor.setObjectName("exerciseEditor")
        self.editor.textChanged.connect(self._on_edit)

        self.checkButton = QPushButton("Check", objectName="exerciseCheckButton")
        self.checkButton.setToolTip("Run your kernel on the exercise's launches and grade what it does")
        self.checkButton.clicked.connect(self.check)
        self.hintButton = QPushButton("Next hint", objectName="exerciseHintButton")
        self.hintButton.clicked.connect(self.next_hint)
        self.resetButton = QPushButton("Start over", objectName="exerciseReset")
        self.resetButton.setToolTip("Put the starter file back in the editor")
        self.resetButton.clicked.connect(self.reset_to_starter)
        self.openButton = QPushButton("Open…", objectName="exerciseOpen")
        self.openButton.clicked.connect(lambda: self.open_file())
        self.saveButton = QPushButton("Save as…", objectName="exerciseSave")
        self.saveButton.clicked.connect(lambda: self.save_file())
        self.bar = QProgressBar(objectName="exerciseProgress", maximum=1000, textVisible=False)
        self.bar.setVisible(False)
        buttons = QHBoxLayout()
        for w in (self.checkButton, self.hintButton, self.resetButton, self.openButton, self.saveButton):
            buttons.addWidget(w)
        buttons.addWidget(self.bar, 1)

        self.status = QLabel(objectName="exerciseStatus", wordWrap=True)
        self.results = QTableWidget(0, 3, objectName="exerciseResults")
        self.results.setHorizontalHeaderLabels(["Check", "", "Why"])
        self.results.horizontalHeader().setStretchLastSection(True)
        self.results.verticalHeader().setVisible(False)
        self.results.setWordWrap(True)
        self.explain = QLabel(objectName="exerciseExplain", wordWrap=True)
        self.explain.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hints = QLabel(objectName="exerciseHints", wordWrap=True)

        work = QWidget()
        lay = QVBoxLayout(work)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.editor, 3)
        lay.addLayout(buttons)
        lay.addWidget(self.status)
        lay.addWidget(self.results, 2)
        lay.addWidget(self.explain)
        lay.addWidget(self.hints)
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self.statement)
        right.addWidget(work)
        right.setStretchFactor(1, 2)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.list)
        split.addWidget(right)
        split.setStretchFactor(1, 4)
        split.setSizes([200, 900])
        outer = QVBoxLayout(self)
        outer.addWidget(split)

    # --- the exercise shown ------------------------------------------------------------------
    def select(self, exercise_id: str) -> None:
        for row in range(self.list.count()):
            if self.list.item(row).data(Qt.ItemDataRole.UserRole) == exercise_id:
                self.list.setCurrentRow(row)
                return
        raise KeyError(exercise_id)

    def current(self) -> Exercise:
        return self._current

    def _on_pick(self, item: QListWidgetItem | None, _previous: Any = None) -> None:
        if item is None:
            return
        self._save_source()
        self._current = exercise(str(item.data(Qt.ItemDataRole.UserRole)))
        if self._ready:
            self._qs.setValue(KEY + "current", self._current.id)
        self._loading = True
        self.editor.setPlainText(self._stored_source(self._current))
        self._loading = False
        self._dirty = False
        self.editor.mark_line(None)
        self._report = None
        self.statement.setHtml(_statement_html(self._current))
        self.results.setRowCount(0)
        self.explain.clear()
        self.status.setText(self._progress_words(self._current))
        self._show_hints()

    def _stored_source(self, e: Exercise) -> str:
        text = self._qs.value(f"{KEY}{e.id}/source", None)
        return str(text) if isinstance(text, str) and text else e.starter

    def source(self) -> str:
        return self.editor.toPlainText()

    def set_source(self, text: str) -> None:
        self.editor.setPlainText(text)
        self._dirty = True
        self._save_source()

    def reset_to_starter(self) -> None:
        self.set_source(self._current.starter)

    def _on_edit(self) -> None:
        if not self._loading:
            self._dirty = True
            self._save_timer.start()

    def _save_source(self) -> None:
        if self._dirty and hasattr(self, "editor"):
            self._qs.setValue(f"{KEY}{self._current.id}/source", self.editor.toPlainText())
            self._dirty = False

    # --- hints and progress ------------------------------------------------------------------
    def hints_shown(self, e: Exercise | None = None) -> int:
        e = e or self._current
        try:
            return max(0, min(len(e.hints), int(self._qs.value(f"{KEY}{e.id}/hints", 0))))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return 0

    def next_hint(self) -> None:
        shown = min(len(self._current.hints), self.hints_shown() + 1)
        self._qs.setValue(f"{KEY}{self._current.id}/hints", shown)
        self._show_hints()

    def _show_hints(self) -> None:
        e, shown = self._current, self.hints_shown()
        self.hints.setText("\n".join(f"Hint {k}: {h}" for k, h in enumerate(e.hints[:shown], 1)))
        self.hintButton.setEnabled(shown < len(e.hints))
        self.hintButton.setText(f"Next hint ({shown}/{len(e.hints)})")

    def progress(self) -> dict[str, bool]:
        """Exercise id → passed (every check) at its last Check."""
        return {e.id: self._passed(e) for e in exercises()}

    def _passed(self, e: Exercise) -> bool:
        return str(self._qs.value(f"{KEY}{e.id}/passed", "false")).lower() == "true"

    def _progress_words(self, e: Exercise) -> str:
        return "Passed: every check." if self._passed(e) else "Not passed yet: write the kernel, then Check."

    def _mark_list(self) -> None:
        for row in range(self.list.count()):
            item = self.list.item(row)
            e = exercise(str(item.data(Qt.ItemDataRole.UserRole)))
            item.setText(("✓ " if self._passed(e) else "") + e.title)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._mark_list()
        self.session.prewarm(EXERCISE_RUN)

    # --- Check -------------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        """True while a Check is in progress."""
        return self.session.running(EXERCISE_RUN)

    def check(self) -> bool:
        """Grade the editor's kernel; False when a check is already running."""
        from simtviz.backends.exercise import ExerciseRequest

        if self.busy:
            return False
        self._save_source()
        self.editor.mark_line(None)
        request = ExerciseRequest(self._current.id, self.source(), f"{self._current.kernel}.py")
        if not self.session.run(EXERCISE_RUN, request):
            return False
        self.status.setText(f"Checking {self._current.title}: {len(self._current.cases)} launches…")
        self.bar.setValue(0)
        self.bar.setVisible(True)
        self.checkButton.setEnabled(False)
        return True

    def report(self) -> Report | None:
        return self._report

    def _on_progress(self, experiment: str, fraction: float) -> None:
        if experiment == EXERCISE_RUN:
            self.bar.setValue(int(fraction * 1000))

    def _on_result(self, experiment: str, report: Report) -> None:
        if experiment == EXERCISE_RUN:
            self._on_finished(report)

    def _on_run_failed(self, experiment: str, _request: Any, exc: BaseException, _tb: str) -> None:
        if experiment == EXERCISE_RUN:
            self._on_failed(exc)

    def _on_finished(self, report: Report) -> None:
        self.bar.setVisible(False)
        self.checkButton.setEnabled(True)
        if report.exercise != self._current.id:  # the student moved on meanwhile
            return
        self._report = report
        self._qs.setValue(f"{KEY}{report.exercise}/passed", report.passed)
        self.results.setRowCount(len(report.checks))
        for row, c in enumerate(report.checks):
            self.results.setItem(row, 0, QTableWidgetItem(CHECK_TITLES[c.name]))
            self.results.setItem(row, 1, QTableWidgetItem("pass" if c.passed else "FAIL"))
            self.results.setItem(row, 2, QTableWidgetItem(c.detail))
        self.results.resizeRowsToContents()
        passed = sum(c.passed for c in report.checks)
        self.status.setText(
            f"{passed} of {len(report.checks)} checks passed on "
            + (
                report.backend.removeprefix("gpu:")
                if report.backend.startswith("gpu")
                else DEVICE_WORDS[BackendKind(report.backend)]
            )
            + ("." if not report.passed else ": exercise passed.")
        )
        self.explain.setText("\n".join(report.explanations))
        self._mark_list()
        failed = next((c for c in report.checks if not c.passed), None)
        if failed is not None:
            self.editor.mark_line(_first_line(failed.detail))

    def _on_failed(self, exc: BaseException) -> None:
        self.bar.setVisible(False)
        self.checkButton.setEnabled(True)
        self.status.setText(f"Could not check: {exc}")
        self.editor.mark_line(getattr(exc, "line", None) or None)

    # --- files -------------------------------------------------------------------------------
    def open_file(self, path: str | Path | None = None) -> bool:
        if path is None:
            chosen, _ = QFileDialog.getOpenFileName(self, "Open your kernel", "", "Python (*.py)")
            if not chosen:
                return False
            path = chosen
        try:
            self.set_source(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            self.status.setText(f"Could not open {path}: {exc}")
            return False
        return True

    def save_file(self, path: str | Path | None = None) -> Path | None:
        from simtviz.core.files import atomic_write

        if path is None:
            chosen, _ = QFileDialog.getSaveFileName(
                self, "Save your kernel", f"{self._current.kernel}.py", "Python (*.py)"
            )
            if not chosen:
                return None
            path = chosen
        data = self.source().encode("utf-8")
        try:
            return atomic_write(Path(path), lambda fh: fh.write(data))
        except Exception as exc:  # the text stays in the editor and the settings
            self.status.setText(f"Could not save: {exc}")
            return None

    def export_html(self, path: str | Path | None = None) -> Path | None:
        """The exercise list with statements (no answers) as one HTML page, for a class."""
        from simtviz.core.files import atomic_write

        if path is None:
            chosen, _ = QFileDialog.getSaveFileName(
                self, "Export exercises", "exercises.html", "HTML (*.html)"
            )
            if not chosen:
                return None
            path = chosen
        data = handout_html(exercises()).encode("utf-8")
        try:
            return atomic_write(Path(path), lambda fh: fh.write(data))
        except Exception as exc:
            self.status.setText(f"Could not export: {exc}")
            return None


def _first_line(detail: str) -> int | None:
    import re

    found = re.search(r"\blines? (\d+)", detail)
    return int(found.group(1)) if found else None


def _statement_html(e: Exercise) -> str:
    paragraphs = "".join(f"<p>{escape(p)}</p>" for p in e.statement.split("\n\n"))
    launches = "".join(f"<li>{escape(c.words())}</li>" for c in e.cases)
    checks = ", ".join(escape(CHECK_TITLES[c]) for c in e.checks)
    return (
        f"<h3>{escape(e.title)}</h3><p>Write <code>{escape(e.signature)}</code> "
        f"<i>({escape(e.topic)})</i></p>{paragraphs}<pre>{escape(e.picture)}</pre>"
        f"<p>The grader launches:</p><ul>{launches}</ul><p>Checks: {checks}.</p>"
    )
