"""The Your kernel tab: the student writes a numba kernel and sees every memory access it makes.

Opening a file or choosing a template only puts text in the editor; nothing runs until Run, and
then through ``session.run("trace", request)``: the trace experiment is isolated, so the kernel
runs in a child process of its own (``backends/isolated.py``), on the session's backend kind,
with a time limit; results, failures and progress come from the session's signals, and a long
launch is asked about by the session ("Run it anyway?").
The editor's text (and the launch, the arguments) are saved in the settings on every edit,
debounced, so a crash loses nothing.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QSettings, QSignalBlocker, Qt, QTimer
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTabWidget,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from simtviz.backends import info_for
from simtviz.core.errors import Cancelled, LaunchTooLarge, describe
from simtviz.core.trace.infer import DEFAULT_ARRAY, infer_specs
from simtviz.core.trace.model import (
    TraceRequest,
    TraceResult,
    window_for,
)
from simtviz.core.trace.report import findings
from simtviz.core.trace.source import TraceUnsupported, find_kernels
from simtviz.core.trace.templates import templates
from simtviz.core.trace.words import element_words, look_at
from simtviz.qt.tabs.kernel import files as kernel_files
from simtviz.qt.tabs.kernel.editor import CodeEditor
from simtviz.qt.tabs.kernel.run import fit_findings, refused_now
from simtviz.qt.tabs.kernel.settings import KernelSettings
from simtviz.qt.tabs.kernel.views import SHOWN_ACCESSES, ArraysPanel, LinesTable, TraceData, WarpSectorsView
from simtviz.qt.widgets.spins import INT32_MAX
from simtviz.qt.widgets.text_box import ScrollingText

if TYPE_CHECKING:
    from simtviz.qt.session import RunSession

log = logging.getLogger(__name__)
SAVE_DELAY_MS = 400
TRACE_RUN = "trace"  # the experiment this tab runs
KEY = "kernel/"  # settings keys: kernel/source, kernel/template, kernel/grid, …


class KernelTab(QWidget):
    """objectName ``kernelTab``: ``set_args(dict)`` and ``summary()`` for tests and scripts."""

    # Kept by kernel_files: the opened file's name, and "said once" for two settings warnings.
    _filename = "kernel.py"
    _said_too_long = False
    _said_unsaved = False

    def __init__(self, session: RunSession) -> None:
        super().__init__()
        self.setObjectName("kernelTab")
        self.session = session
        # Where the window keeps its settings (the session carries it); alone: the default file.
        qs = session.store
        self._qs: QSettings = qs if isinstance(qs, QSettings) else QSettings()
        self._result: TraceResult | None = None
        self._data: TraceData | None = None
        self._loading = False
        # What the backend said about this run (emu → sim), and the findings shown before a run
        # that was then not started (a No to "Run it anyway?").
        self._notes: list[str] = []
        self._before = ""
        self._save_timer = QTimer(self, singleShot=True, interval=SAVE_DELAY_MS)
        self._save_timer.timeout.connect(self.save_state)
        self._build()
        self._restore()
        session.runStarted.connect(self._on_started)
        session.resultArrived.connect(self._on_result)
        session.runFailed.connect(self._on_run_failed)
        session.runProgress.connect(self._on_progress)
        session.runNotice.connect(self._on_notice)

    # --- layout ------------------------------------------------------------------------------
    def _build(self) -> None:
        self.template = QComboBox(objectName="kernelTemplate")
        self.template.addItem("— templates —", None)
        for t in templates():
            self.template.addItem(t.title, t.name)
            self.template.setItemData(self.template.count() - 1, t.description, Qt.ItemDataRole.ToolTipRole)
        self.openButton = QPushButton("Open…", objectName="kernelOpenButton")
        self.saveButton = QPushButton("Save…", objectName="kernelSaveButton")
        self.editor = CodeEditor()
        self.editor.setObjectName("kernelEditor")
        # Template, files and Run on one row over everything: the primary action never scrolls.
        self.template.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.template.setMinimumContentsLength(8)
        left = QWidget()
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.addWidget(self.editor, 1)
        # The launch, the parameters, the check, the budget, the limit and the window; each input
        # is the tab's too (docs/CONTRACT.md's objectNames, kernel_files, tests).
        self.settingsPanel = settings = KernelSettings()
        self.spins, self.args, self.check = settings.spins, settings.args, settings.check
        self.refreshButton = settings.refreshButton
        self.budget, self.timeLimit = settings.budget, settings.timeLimit
        self.windowFirst, self.windowBlocks = settings.windowFirst, settings.windowBlocks
        self.runButton = QPushButton("Run traced", objectName="kernelRunButton")
        self.runButton.setToolTip("Run traced (Ctrl+R or F5 on this tab; Esc cancels)")
        self.cancelButton = QPushButton("Cancel", objectName="kernelCancelButton")
        self.cancelButton.setEnabled(False)
        self.progress = QProgressBar(objectName="kernelProgress")
        self.progress.setRange(0, 1000)
        self.progress.setVisible(False)

        self.result = QTextEdit(objectName="kernelResult")
        self.result.setReadOnly(True)
        self.result.setPlainText("Choose a template or write a kernel, fill in its parameters, press Run.")
        # Two lines that scroll: a long thread list must not take the arrays' height (1280 × 720).
        self.detail = ScrollingText(2, objectName="kernelDetail")
        self.threadSpin = QSpinBox(objectName="kernelThread")
        self.threadSpin.setRange(-1, INT32_MAX)
        self.threadSpin.setValue(-1)
        self.threadSpin.setSpecialValueText("none")
        self.threadSpin.setToolTip("a global thread id: its accesses are outlined in the arrays")

        # The settings scroll in their own box under the editor (the tab's one scroll area).
        settings_scroll = QScrollArea(objectName="kernelSettingsScroll")
        settings_scroll.setWidget(settings)
        settings_scroll.setWidgetResizable(True)
        settings_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        settings_scroll.setFrameShape(QScrollArea.Shape.NoFrame)

        self.arrays = ArraysPanel()
        self.lines = LinesTable()
        self.warp = WarpSectorsView()
        lines_box = QWidget()
        lb = QVBoxLayout(lines_box)
        lb.setContentsMargins(0, 0, 0, 0)
        lb.addWidget(self.lines, 1)
        lb.addWidget(self.warp)
        views = QTabWidget(objectName="kernelViews")
        arrays_box = QWidget()
        ab = QVBoxLayout(arrays_box)
        ab.setContentsMargins(0, 0, 0, 0)
        ab.addWidget(self.arrays, 1)
        th = QHBoxLayout()
        th.addWidget(QLabel("Thread"))
        th.addWidget(self.threadSpin)
        th.addWidget(self.detail, 1)
        ab.addLayout(th)
        views.addTab(arrays_box, "Arrays")
        views.addTab(lines_box, "Per line")

        # [editor ; settings] | [findings ; maps]: the findings and the maps are always in view,
        # beside the code that made them (issue 21: 1280 × 720 in presentation mode).
        code_side = QSplitter(Qt.Orientation.Vertical, objectName="kernelCodeSplitter")
        code_side.addWidget(left)
        code_side.addWidget(settings_scroll)
        code_side.setSizes([500, 400])
        self._results_side = QSplitter(Qt.Orientation.Vertical, objectName="kernelResultSplitter")
        self._results_side.addWidget(self.result)
        self._results_side.addWidget(views)
        self._results_side.setCollapsible(0, False)
        self._results_side.setCollapsible(1, False)
        body = QSplitter(Qt.Orientation.Horizontal, objectName="kernelSplitter")
        body.addWidget(code_side)
        body.addWidget(self._results_side)
        body.setSizes([500, 600])
        self.result.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        top = QHBoxLayout()
        top.addWidget(self.template, 1)
        top.addWidget(self.openButton)
        top.addWidget(self.saveButton)
        top.addSpacing(12)
        top.addWidget(self.runButton)
        top.addWidget(self.cancelButton)
        top.addWidget(self.progress, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(body, 1)

        self.template.activated.connect(self._on_template)
        self.openButton.clicked.connect(lambda: self.open_file())
        self.saveButton.clicked.connect(lambda: self.save_file())
        # Not the slot itself: clicked's `checked` (False) would arrive as `specs` and drop the table.
        self.refreshButton.clicked.connect(lambda: self.refresh_params())
        self.runButton.clicked.connect(self.run)
        self.cancelButton.clicked.connect(self.cancel)
        self.editor.textChanged.connect(self._changed)
        self.args.itemChanged.connect(self._changed)
        self.check.textChanged.connect(self._changed)
        for spin in self.spins.values():
            spin.valueChanged.connect(self._changed)
        self.budget.valueChanged.connect(self._changed)
        self.timeLimit.valueChanged.connect(self._changed)
        self.windowFirst.valueChanged.connect(self._changed)
        self.windowBlocks.valueChanged.connect(self._changed)
        self.arrays.elementClicked.connect(self.select_element)
        self.threadSpin.valueChanged.connect(self.select_thread)
        self.lines.itemSelectionChanged.connect(self._on_line_selected)

    def window_inputs(self) -> tuple[int, int]:
        """(first block, blocks) as typed; blocks 0 means through the last block."""
        return self.settingsPanel.window_inputs()

    def set_window(self, first: int = 0, blocks: int = 0) -> None:
        """The window's inputs; the defaults are the whole launch."""
        self.settingsPanel.set_window(first, blocks)

    # --- state -------------------------------------------------------------------------------
    def _changed(self, *_: Any) -> None:
        if not self._loading:
            self._save_timer.start()

    def save_state(self) -> None:
        """Into the settings now (also called on every edit, after a short pause)."""
        kernel_files.save_state(self)

    def _restore(self) -> None:
        kernel_files.restore(self)

    def _status(self, text: str) -> None:
        self.session.say(text, 15000)

    def _set_dims(self, grid: str, block: str) -> None:
        self.settingsPanel.set_dims(grid, block, KEY)

    def grid(self) -> tuple[int, int, int]:
        return self.settingsPanel.grid()

    def block(self) -> tuple[int, int, int]:
        return self.settingsPanel.block()

    # --- templates and files -------------------------------------------------------------------
    def _on_template(self, index: int) -> None:
        name = self.template.itemData(index)
        if name:
            self.load_template(name)

    def load_template(self, name: str, save: bool = True) -> None:
        t = next(t for t in templates() if t.name == name)
        self._loading = True
        try:
            self.template.setCurrentIndex(max(0, self.template.findData(name)))
            self.editor.setPlainText(t.source)
            self._set_dims(",".join(map(str, t.grid)), ",".join(map(str, t.block)))
            self.refresh_params(dict(t.args))
            self.check.setText(t.check or "")
            self.set_window()  # a template brings its own launch: the window starts as all of it
        finally:
            self._loading = False
        if save:
            self.save_state()

    def refresh_params(self, specs: dict[str, str] | None = None) -> None:
        """The table's rows from the kernel's parameters (read from the text, never run)."""
        keep = dict(self.args.specs()) if specs is None else {}
        keep.update(specs or {})
        try:
            kernels = find_kernels(self.editor.toPlainText())
        except TraceUnsupported:
            kernels = []
        params = list(kernels[0].params) if kernels else list(keep)
        # Types read from the code for what the student has not set (a row left at the table's
        # default included): an index array is int32, a size an int, not all float32.
        inferred = infer_specs(self.editor.toPlainText(), kernels[0].name) if kernels else {}
        for name in params:
            if name in inferred and keep.get(name, DEFAULT_ARRAY) == DEFAULT_ARRAY:
                keep[name] = inferred[name]
        self.args.set_specs(params, keep)

    def set_args(self, specs: dict[str, str]) -> None:
        """NAME → SPEC in the CLI's syntax (docs/CONTRACT.md)."""
        self.refresh_params(dict(specs))

    def open_file(self, path: str | Path | None = None) -> bool:
        """Put a file's text in the editor (it is never run here); see ``kernel_files``."""
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self, "Open a kernel", "", "Python files (*.py)")
            if not path:
                return False
        return kernel_files.open_into(self, path)

    def save_file(self, path: str | Path | None = None) -> Path | None:
        """Write the editor's text; None when nothing was written (the window says why)."""
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Save the kernel", "kernel.py", "Python files (*.py)")
            if not path:
                return None
        return kernel_files.save_from(self, path)

    def _say(self, text: str) -> None:
        """A file's outcome, where the student looks: the result box and the status bar."""
        self.result.setPlainText(text)
        self._status(text)

    # --- running -------------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            # self as context: a call still pending when the window closes is dropped with the tab
            QTimer.singleShot(0, self, lambda: fit_findings(self.result, self._results_side))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        fit_findings(self.result, self._results_side)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        fit_findings(self.result, self._results_side)
        # The student is here to press Run: its process starts now, not when they press it.
        self.session.prewarm(TRACE_RUN)

    @property
    def busy(self) -> bool:
        """True while this tab's traced run is in progress."""
        return self.session.running(TRACE_RUN)

    def request(self, force: bool = False) -> TraceRequest:
        name = self.template.currentData()
        return TraceRequest(
            source=self.editor.toPlainText(),
            grid=self.grid(),
            block=self.block(),
            args=self.args.specs(),
            filename=f"{name}.py" if name else self._filename,
            budget=self.budget.value(),
            check=self.check.text().strip() or None,
            force=force,
            time_limit_s=self.timeLimit.value(),
            window=window_for(self.grid(), *self.window_inputs()),
        )

    def run(self, force: bool = False) -> bool:
        """Check what can be checked here at once (nothing runs), then ``session.run("trace")``."""
        if self.busy:
            return False
        request = self.request(force)
        self.editor.mark_line(None)
        refusal = refused_now(request, info_for(self.session.child_kind()))
        if refusal is not None:
            self._on_failed(refusal)
            return False
        self.save_state()
        return self.session.run(TRACE_RUN, request)

    def cancel(self) -> None:
        self.session.cancel(TRACE_RUN)

    def _set_busy(self, busy: bool) -> None:
        self.runButton.setEnabled(not busy)
        self.cancelButton.setEnabled(busy)
        self.progress.setVisible(busy)
        self.progress.setValue(0)

    def _on_started(self, experiment: str, _request: Any) -> None:
        """A traced run started (Run here, or "Run it anyway?" answered Yes)."""
        if experiment != TRACE_RUN:
            return
        self._notes = []
        self._before = self.result.toPlainText()
        self._set_busy(True)
        self.result.setPlainText(f"Running on {info_for(self.session.child_kind()).device_words}…")

    def _on_progress(self, experiment: str, fraction: float) -> None:
        if experiment == TRACE_RUN:
            self.progress.setValue(int(fraction * 1000))

    def _on_notice(self, experiment: str, line: str) -> None:
        if experiment == TRACE_RUN:
            self._notes.append(line)

    def _on_run_failed(self, experiment: str, _request: Any, exc: BaseException, _tb: str) -> None:
        if experiment != TRACE_RUN:
            return
        if isinstance(exc, LaunchTooLarge):  # the session asks "Run it anyway?"; nothing ran
            self._set_busy(False)
            self.result.setPlainText(self._before)
            return
        self._on_failed(exc)

    def _on_result(self, experiment: str, result: TraceResult) -> None:
        if experiment != TRACE_RUN:
            return
        self._set_busy(False)
        self._result = result
        self._data = TraceData(result)
        # What the backend said about the run (the emulator handing it to the simulator) first.
        result.notes[:0] = [n for n in self._notes if n not in result.notes]
        self._notes = []
        self.result.setPlainText("\n".join(findings(result)))
        self.arrays.show_data(self._data)
        analysis = result.analysis  # the typed result; summary() is for --json and scripts
        self.lines.show_lines(analysis.lines, analysis.shared_lines)
        self.warp.show_request(None)
        self.detail.setText("Click an element to see the threads that touched it.")
        look = look_at(analysis)  # the most urgent finding's line, whatever its kind
        if look:
            self.editor.mark_line(look[0][0])

    def _on_failed(self, exc: BaseException) -> None:
        self._set_busy(False)
        # The previous kernel's maps, table and check must not stand beside this failure.
        self._result = None
        self._data = None
        self.arrays.show_data(None)
        self.lines.show_lines([])
        self.warp.show_request(None)
        self.detail.setText("")
        if isinstance(exc, Cancelled):
            self.result.setPlainText("Cancelled: the kernel's process was ended.")
            return
        try:
            report = describe(exc)
            text = f"{report.title}: {report.what}" + (f"\n{report.todo}" if report.todo else "")
        except KeyError:
            text = f"{type(exc).__name__}: {exc}"
        self.result.setPlainText(text)
        line = getattr(exc, "line", 0)
        if line:
            self.editor.mark_line(int(line))

    def summary(self) -> dict[str, Any] | None:
        """The ``trace --json`` dict of the last run, or None."""
        return self._result.summary() if self._result is not None else None

    # --- selection -----------------------------------------------------------------------------
    def select_element(self, aid: int, element: int) -> None:
        if self._data is None:
            return
        d = self._data
        info = d.result.arrays[aid]
        rows = d.element_rows(aid, element)
        idx = []
        rest = element
        for dim in reversed(info.shape):
            rest, i = divmod(rest, dim)
            idx.append(i)
        where = element_words(info.name, idx[::-1], info.shape)  # a 2-D element by row and column
        if rows.size == 0:
            if d.result.window is not None:
                self.detail.setText(
                    f"{where}: no thread in the window, {d.result.window_words()}, touched it."
                )
            else:
                self.detail.setText(f"{where}: no thread touched it.")
            return
        threads = sorted({int(t) for t in d.thread[rows]})
        listed = "; ".join(f"thread {int(d.thread[r]):,} {d.row_words(r)}" for r in rows[:SHOWN_ACCESSES])
        more = f" … and {rows.size - SHOWN_ACCESSES:,} more" if rows.size > SHOWN_ACCESSES else ""
        self.detail.setText(f"{where}: {rows.size:,} accesses by {len(threads):,} thread(s): {listed}{more}")
        # The last thread to touch it becomes the selected one (its accesses outlined).
        last = int(d.thread[rows[-1]])
        with QSignalBlocker(self.threadSpin):
            self.threadSpin.setValue(last)
        self.arrays.mark_thread(last)

    def select_thread(self, t: int) -> None:
        if self._data is None:
            return
        self.arrays.mark_thread(t if t >= 0 else None)
        if t < 0:
            return
        rows = self._data.thread_rows(t)
        window = self._data.result.window
        if window is not None and not window.first <= t // self._data.per_block <= window.last:
            self.detail.setText(
                f"{self._data.thread_words(t)} is outside the window, {self._data.result.window_words()}: "
                "it ran, but its accesses were not logged."
            )
            return
        text = f"{self._data.thread_words(t)}: {rows.size:,} accesses"
        if rows.size:
            text += ": " + "; ".join(self._data.row_words(r) for r in rows[:SHOWN_ACCESSES])
        self.detail.setText(text)

    def _on_line_selected(self) -> None:
        if self._data is None:
            return
        selected = self.lines.selectionModel().selectedRows()
        if not selected:
            return
        row = self.lines.rows_data[selected[0].row()]
        self.editor.mark_line(row.line)
        sites = [
            s.id for s in self._data.result.sites
            if s.line == row.line and s.array == row.array and s.kind == row.kind
        ]  # fmt: skip
        where = f"line {row.line} {row.kind} {row.array}" + (" (shared)" if row.space == "shared" else "")
        self.warp.show_request(self._data.warp_request(sites), where)
