"""The vector-add panel: the guide's §2.2.5 program, run, verified and timed, with its code shown.

Every run goes through the run session (the simulator itself runs in the backend's child
process, never in this one). Long simulator runs are estimated first (the launch line says
"asks first"); the backend refuses them unforced and the session asks "Run it anyway?", as for
every experiment, in the vector add's words (``VecaddRequest.threads_in_words``). A rejected
launch (block 2048, §2.2.6) opens the same dialog as the index map.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from simtviz.backends.base import DEVICE_WORDS, BackendInfo, BackendKind
from simtviz.core.errors import Cancelled, LaunchRejected, LaunchTooLarge
from simtviz.core.estimates import estimate_seconds, format_duration, max_threads_unasked
from simtviz.core.launch import launch_text
from simtviz.core.vecadd import (
    DEFAULT_BLOCK,
    GPU_WOULD_NOT_RAISE,
    MEASUREMENT_NOTES,
    SIM_DEFAULT_N,
    VecaddRequest,
    VecaddResult,
    default_n,
    default_repeat,
    grid_for,
    idle_threads,
    program_source,
    report_lines,
    timing_lines,
)
from simtviz.qt import dialogs
from simtviz.qt.session import VECADD, RunSession
from simtviz.qt.widgets.progress import ProgressPanel
from simtviz.qt.widgets.spins import INT32_MAX

LESSON = (
    "Kernels are not bounds-checked on a GPU — CuPy arrays included (the guide says otherwise; it "
    "is wrong). The grid is rounded up to whole blocks, so the last block has threads past the end "
    "of the vectors; without <code>if work_index &lt; C.size</code> they write past the end of C "
    "and nothing reports it. On the GPU this panel counts those writes in a canary region after C; "
    "the CPU simulator bounds-checks like NumPy and raises IndexError instead."
)


class VecaddPanel(QWidget):
    """``vecaddPanel``: N, block, variant, Run; the code, the verdict, timings and the sweep."""

    resultShown = Signal(object)  # VecaddResult, after the panel shows it

    def __init__(self, session: RunSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("vecaddPanel")
        self._session = session
        self._n_edited = False
        self._shown = "Not run yet."  # the last result's text: a run refused unforced keeps it
        self._build()
        session.backendReady.connect(self._on_ready)
        session.busyChanged.connect(self._on_busy)
        session.runStarted.connect(self._on_started)
        session.resultArrived.connect(self._on_result)
        session.runFailed.connect(self._on_error)
        if session.info is not None:
            self._on_ready(session.info)
        self._refresh()

    # ----- layout -----
    def _build(self) -> None:
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)

        self.vecaddN = QSpinBox(objectName="vecaddN")
        self.vecaddN.setRange(0, INT32_MAX)  # invalid sizes must be enterable, never clamped
        self.vecaddN.setValue(SIM_DEFAULT_N)
        self.vecaddN.setGroupSeparatorShown(True)
        self.vecaddN.setToolTip("vector_size: the guide uses 2^24 + 11, not a multiple of the block size")
        self.vecaddBlock = QSpinBox(objectName="vecaddBlock")
        self.vecaddBlock.setRange(0, 4096)  # 2048 is the guide's §2.2.6 error: it must be enterable
        self.vecaddBlock.setValue(DEFAULT_BLOCK)
        self.vecaddBlock.setToolTip("block_size: threads per block (a GPU allows at most 1024)")
        self.vecaddVariant = QComboBox(objectName="vecaddVariant")
        self.vecaddVariant.addItem("guarded: if work_index < C.size", True)
        self.vecaddVariant.addItem("as printed in the guide (no guard)", False)
        self.vecaddRepeat = QSpinBox(objectName="vecaddRepeat")
        self.vecaddRepeat.setRange(1, 10_000)
        self.vecaddRepeat.setValue(1)
        self.vecaddRepeat.setToolTip("Timed launches (the GPU uses at least 20 for its medians)")

        form = QFormLayout()
        form.addRow("N (vector_size)", self.vecaddN)
        form.addRow("block_size", self.vecaddBlock)
        form.addRow("kernel", self.vecaddVariant)
        form.addRow("timed launches", self.vecaddRepeat)
        self.vecaddLaunch = QLabel(objectName="vecaddLaunch")
        self.vecaddLaunch.setWordWrap(True)
        self.vecaddLaunch.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow(self.vecaddLaunch)

        self.vecaddRunButton = QPushButton("Run", objectName="vecaddRunButton")
        self.vecaddRunButton.setToolTip("Run the program: launch, synchronize, copy back, verify, time")
        self.vecaddSweepButton = QPushButton("Run + block-size sweep", objectName="vecaddSweepButton")
        self.vecaddSweepButton.setToolTip("Also time block sizes 32 … 1024 with the guarded kernel")
        buttons = QHBoxLayout()
        for button in (self.vecaddRunButton, self.vecaddSweepButton):
            buttons.addWidget(button)
        self.vecaddProgress = ProgressPanel(
            self._session, VECADD, self._describe, name="vecaddProgress", cancel_name="vecaddCancelButton"
        )

        self.vecaddLesson = QLabel(LESSON, objectName="vecaddLesson")
        self.vecaddLesson.setWordWrap(True)
        self.vecaddLesson.setTextFormat(Qt.TextFormat.RichText)

        self.vecaddCode = QPlainTextEdit(objectName="vecaddCode")
        self.vecaddCode.setReadOnly(True)  # read-only stays selectable and copyable
        self.vecaddCode.setFont(mono)
        self.vecaddCode.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.vecaddCodeNote = QLabel(objectName="vecaddCodeNote")
        self.vecaddCodeNote.setWordWrap(True)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.addLayout(form)
        left_layout.addLayout(buttons)
        left_layout.addWidget(self.vecaddProgress)
        left_layout.addWidget(QLabel("<b>The code this runs</b> (§2.2.5, errata corrected)"))
        left_layout.addWidget(self.vecaddCodeNote)
        left_layout.addWidget(self.vecaddCode, 1)

        self.vecaddResult = QLabel(self._shown, objectName="vecaddResult")
        self.vecaddResult.setWordWrap(True)
        self.vecaddResult.setTextFormat(Qt.TextFormat.PlainText)
        self.vecaddResult.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.vecaddResult.setFont(mono)
        self.vecaddResult.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)

        self.vecaddTimings = QGroupBox("Timings", objectName="vecaddTimings")
        self.vecaddTimings.setToolTip("Hover over a timing for how it was measured")
        self._timings_grid = QGridLayout(self.vecaddTimings)
        self._timing_labels: dict[str, tuple[QLabel, QLabel]] = {}

        self.vecaddSweepChart = pg.PlotWidget(objectName="vecaddSweepChart")
        # The window's own colours rather than pyqtgraph's black, so it follows the theme.
        self.vecaddSweepChart.setBackground(self.palette().base().color())
        self.vecaddSweepChart.getAxis("left").enableAutoSIPrefix(False)  # "kGB/s" helps nobody
        for axis in ("left", "bottom"):
            self.vecaddSweepChart.getAxis(axis).setTextPen(self.palette().text().color())
            self.vecaddSweepChart.getAxis(axis).setPen(self.palette().text().color())
        self.vecaddSweepChart.setMinimumHeight(180)
        self.vecaddSweepChart.showGrid(y=True, alpha=0.3)
        self.vecaddSweepChart.setLabel("bottom", "threads per block")
        self.vecaddSweepChart.setTitle("Block-size sweep: run it with “Run + block-size sweep”")
        self._bars: pg.BarGraphItem | None = None
        self.vecaddSweepTable = QTableWidget(0, 5, objectName="vecaddSweepTable")
        self.vecaddSweepTable.setHorizontalHeaderLabels(["block", "grid", "idle threads", "time", "GB/s"])
        self.vecaddSweepTable.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.vecaddSweepTable.verticalHeader().setVisible(False)
        self.vecaddSweepTable.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)

        # The verdict heads the right column; what explains it follows and scrolls (the tab's
        # one scroll area). The sweep's chart and table appear once a sweep ran: empty, they
        # took the screen's height from the verdict.
        self.vecaddSweepChart.setVisible(False)
        self.vecaddSweepTable.setVisible(False)
        self.vecaddSweepTable.setMinimumHeight(160)
        right = QWidget(objectName="vecaddResults")
        right_layout = QVBoxLayout(right)
        right_layout.addWidget(self.vecaddResult)
        right_layout.addWidget(self.vecaddTimings)
        right_layout.addWidget(self.vecaddSweepChart)
        right_layout.addWidget(self.vecaddSweepTable)
        right_layout.addWidget(self.vecaddLesson)
        right_layout.addStretch(1)
        right_scroll = QScrollArea(objectName="vecaddResultsScroll")
        right_scroll.setWidget(right)
        right_scroll.setWidgetResizable(True)
        right_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        right_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        for label in (self.vecaddResult, self.vecaddLesson, self.vecaddLaunch, self.vecaddCodeNote):
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.vecaddVariant.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.vecaddVariant.setMinimumContentsLength(10)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(right_scroll)
        splitter.setSizes([560, 640])
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)

        bold = QFont()
        bold.setBold(True)
        self._bold = bold
        self._show_timings(None)

        self.vecaddN.valueChanged.connect(self._on_n_edited)
        self.vecaddBlock.valueChanged.connect(self._refresh)
        self.vecaddVariant.currentIndexChanged.connect(self._refresh)
        self.vecaddRepeat.valueChanged.connect(self._refresh)
        self.vecaddRunButton.clicked.connect(lambda: self.run(sweep=False))
        self.vecaddSweepButton.clicked.connect(lambda: self.run(sweep=True))

    # ----- state -----
    @property
    def kind(self) -> str:
        """``gpu`` or ``sim``; until the backend is ready, assume the slow one."""
        return self._session.kind

    def _on_ready(self, info: BackendInfo) -> None:
        if not self._n_edited:
            with QSignalBlocker(self.vecaddN):
                self.vecaddN.setValue(default_n(info.kind))
        self.vecaddRepeat.setValue(default_repeat(info.kind))
        self._refresh()

    def _on_busy(self, busy: bool) -> None:
        # One run at a time in the whole app: the index map's run keeps this one waiting.
        self.vecaddRunButton.setEnabled(not busy)
        self.vecaddSweepButton.setEnabled(not busy)

    def _on_n_edited(self) -> None:
        self._n_edited = True
        self._refresh()

    def request(self, sweep: bool = False, force: bool = False) -> VecaddRequest:
        return VecaddRequest(
            n=self.vecaddN.value(),
            block=self.vecaddBlock.value(),
            repeat=self.vecaddRepeat.value(),
            guarded=bool(self.vecaddVariant.currentData()),
            force=force,
            sweep=sweep,
        )

    def needs_confirmation(self, request: VecaddRequest) -> bool:
        return self.kind != "gpu" and request.simulated_threads() > max_threads_unasked(self.kind)

    def _where(self) -> str:
        """Where the run goes, in words ("the CPU emulator")."""
        return DEVICE_WORDS[BackendKind(self.kind)]

    def _estimate(self, request: VecaddRequest) -> float:
        return estimate_seconds(self.kind, request.simulated_threads(), "vecadd")

    def _refresh(self) -> None:
        request = self.request()
        n, block = request.n, request.block
        grid = grid_for(n, block)
        text = (
            f"grid_size = ceil({n:,} / {block:,}) = {grid:,} blocks → {grid * block:,} threads, "
            f"{idle_threads(n, block):,} idle in the last block."
        )
        if self.kind != "gpu":
            eta = format_duration(self._estimate(request))
            text += f" On {self._where()}: about {eta}"
            text += " — asks first." if self.needs_confirmation(request) else "."
        else:
            text += " On the GPU: well under a second (plus ≈0.6 s to compile the first time)."
        if block > 1024:
            text += f" {block:,} threads per block is more than any GPU allows (1,024): the launch will fail."
        self.vecaddLaunch.setText(text)
        self.vecaddCode.setPlainText(program_source(n, block, request.guarded))
        self.vecaddCodeNote.setText(
            f"On {self._where()} the same kernel runs on NumPy arrays (no CuPy without a GPU)."
            if self.kind != "gpu"
            else "C sits at the start of a larger buffer whose canary tail counts writes past its end."
        )

    # ----- running -----
    def run(self, sweep: bool = False, force: bool = False) -> bool:
        """Run the program (through the worker); a long simulator run unforced is refused there,
        and the session asks "Run it anyway?". False when the session is busy."""
        return self._session.run(VECADD, self.request(sweep, force))

    def _on_started(self, experiment: str, request: VecaddRequest) -> None:
        # The session's run_anyway starts runs too: what runs is said here, not where Run is.
        if experiment == VECADD:
            launch = launch_text("vecadd", grid_for(request.n, request.block), request.block, None)
            self.vecaddResult.setText(f"Running {launch} on {self._where()}…")

    def _describe(self, request: VecaddRequest) -> tuple[str, float | None]:
        """For the progress panel: what runs and, on the simulator, how long it should take."""
        what = f"Running the vector add (N = {request.n:,})"
        return what, self._estimate(request) if self.kind != "gpu" else None

    def _on_result(self, experiment: str, result: VecaddResult) -> None:
        if experiment == VECADD:
            self.show_result(result)

    def _on_error(self, experiment: str, request: VecaddRequest, exc: BaseException, _tb: str) -> None:
        if experiment != VECADD:
            return
        facts = dialogs.too_large(exc)
        if isinstance(exc, LaunchRejected):
            self.vecaddResult.setText(f"Launch rejected: {exc.driver_text}\n{exc.explanation}\nNothing ran.")
            dialogs.show_launch_error(self, exc)
        elif facts is not None and facts.out_of_memory:
            self.vecaddResult.setText(f"Not enough GPU memory: {facts.what}\nTry a smaller N.")
        elif isinstance(exc, LaunchTooLarge):
            self.vecaddResult.setText(self._shown)  # nothing ran: the session asks; No keeps this
        elif isinstance(exc, Cancelled):
            self.vecaddResult.setText("Cancelled.")
        else:
            self.vecaddResult.setText(f"The run failed: {type(exc).__name__}: {exc}")

    # ----- showing -----
    def show_result(self, result: VecaddResult) -> None:
        lines = report_lines(result, include_sweep=False)  # the sweep has its own table and chart
        if result.kernel_error is not None and result.simulated and GPU_WOULD_NOT_RAISE not in lines:
            lines.append(GPU_WOULD_NOT_RAISE)
        # The verdict first, where the eye lands: the chapter's punchline must not need a scroll.
        verdict = lines.pop(lines.index("Test succeeded" if "Test succeeded" in lines else "Test failed"))
        self._shown = "\n".join([verdict, *lines])
        self.vecaddResult.setText(self._shown)
        self._show_timings(result)
        self._show_sweep(result)
        self.resultShown.emit(result)

    def _show_timings(self, result: VecaddResult | None) -> None:
        rows = timing_lines(result) if result is not None else []
        if result is None:
            rows = [(label, "—", how) for label, _v, how in timing_lines(VecaddResult("sim", 0, 0, 0))]
        while self._timings_grid.count():
            item = self._timings_grid.takeAt(0)
            if item is not None and (old := item.widget()) is not None:
                old.deleteLater()
        self._timing_labels.clear()
        for row, (label, value, how) in enumerate(rows):
            name = QLabel(label)
            shown = QLabel(value if value != "—" else "— (not measurable here)" if result else "—")
            shown.setFont(self._bold)
            shown.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            for widget in (name, shown):
                widget.setToolTip(how)
                widget.setWordWrap(True)  # rows grow downwards, never past the column's edge
            shown.setObjectName("vecaddTiming_" + "".join(ch if ch.isalnum() else "_" for ch in label))
            self._timings_grid.addWidget(name, row, 0)
            self._timings_grid.addWidget(shown, row, 1)
            self._timing_labels[label] = (name, shown)

    def timing_tooltips(self) -> dict[str, str]:
        """label → tooltip, for tests and scripting."""
        return {label: shown.toolTip() for label, (_name, shown) in self._timing_labels.items()}

    def _show_sweep(self, result: VecaddResult) -> None:
        chart = self.vecaddSweepChart
        if result.sweep_note and not result.sweep:
            # Asked for and missing: say why rather than leave the last chart standing.
            if self._bars is not None:
                chart.removeItem(self._bars)
                self._bars = None
            chart.setVisible(True)
            chart.setTitle("No block-size sweep: the unguarded kernel raised first (see the result)")
            chart.setToolTip(result.sweep_note)
            self.vecaddSweepTable.setRowCount(0)
            return
        if not result.sweep:
            return
        chart.setVisible(True)
        self.vecaddSweepTable.setVisible(True)
        if self._bars is not None:
            chart.removeItem(self._bars)
        on_gpu = result.on_gpu
        values = [(row.bandwidth_GBps if on_gpu else row.sim_wall_ms) or 0.0 for row in result.sweep]
        self._bars = pg.BarGraphItem(x=list(range(len(values))), height=values, width=0.6, brush="#4c9be8")
        chart.addItem(self._bars)
        chart.getAxis("bottom").setTicks([[(i, str(row.block)) for i, row in enumerate(result.sweep)]])
        if on_gpu:
            chart.setLabel("left", "effective bandwidth (GB/s)")
            chart.setTitle("Bandwidth per block size (GPU, median of 20 launches each)")
        else:
            # the emulator's sweep is CPU wall-clock too: never a GPU title over its bars
            where = DEVICE_WORDS[BackendKind.EMU if result.backend == "emu" else BackendKind.SIM]
            chart.setLabel("left", f"wall-clock on {where} (ms)")
            chart.setTitle(f"Wall-clock per block size on {where} (not GPU bandwidth)")
        chart.getPlotItem().getViewBox().setMouseEnabled(x=False, y=False)
        chart.setToolTip(MEASUREMENT_NOTES["bandwidth_GBps" if on_gpu else "sim_wall_ms"])
        table = self.vecaddSweepTable
        table.setRowCount(len(result.sweep))
        for r, row in enumerate(result.sweep):
            time_text = (
                f"{row.kernel_ms:.4f} ms"
                if row.kernel_ms is not None
                else f"{row.sim_wall_ms:.0f} ms (sim)"
                if row.sim_wall_ms is not None
                else "—"
            )
            cells = [
                f"{row.block}",
                f"{row.grid:,}",
                f"{row.idle_threads:,}",
                time_text,
                "—" if row.bandwidth_GBps is None else f"{row.bandwidth_GBps:,.0f}",
            ]
            for c, cell in enumerate(cells):
                table.setItem(r, c, QTableWidgetItem(cell))
