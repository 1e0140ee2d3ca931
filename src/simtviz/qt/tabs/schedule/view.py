"""The schedule view: the measured schedule (Gantt of SMs × time) beside the theory.

``ScheduleView`` (``scheduleView``) shows one schedule — a GPU run through the session, or a
saved ``.npz`` opened anywhere — as one bar per block on its SM's row, the per-SM block counts,
and the measured residency and waves beside the theory and the driver, disagreements in words.
On the simulator it says why there is nothing to measure; ``OccupancyView`` (the tab's other
half) works everywhere.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import QEvent, QPoint, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from simtviz.core.errors import Cancelled, LaunchRejected, NothingToMeasure, RecordFileError
from simtviz.core.schedule import (
    ScheduleRequest,
    ScheduleResult,
    counted,
    disagreements,
    save_npz,
)
from simtviz.qt import dialogs
from simtviz.qt.tabs.schedule.chart import ScheduleChart
from simtviz.qt.tabs.schedule.data import (
    FACT_ROWS,
    NOTHING_HERE,
    PRESETS,
    SCHEDULE,
    ShownSchedule,
    empty_chart,
    fact_values,
    sample_path,
    table_item,
)
from simtviz.qt.widgets.spins import INT32_MAX

if TYPE_CHECKING:
    from simtviz.qt.session import RunSession


class ScheduleView(QWidget):
    """``scheduleView``: the Gantt, the per-SM counts, theory beside measurement; ``summary()``."""

    blockClicked = Signal(int)  # linear block index (x fastest)
    scheduleShown = Signal(object)  # ShownSchedule

    def __init__(self, session: RunSession | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("scheduleView")
        self._session = session
        self._shown: ShownSchedule | None = None
        self._selected: int | None = None
        self._build()
        if session is not None:
            session.backendReady.connect(lambda _info: self._update_controls())
            session.backendFailed.connect(lambda *_: self._update_controls())
            session.busyChanged.connect(lambda _busy: self._update_controls())
            session.resultArrived.connect(self._on_result)
            session.runFailed.connect(self._on_error)
        self._update_controls()

    # ----- layout -----
    def _build(self) -> None:
        self.schedulePreset = QComboBox(objectName="schedulePreset")
        self.schedulePreset.addItem("Show a limiting factor …")
        for label in PRESETS:
            self.schedulePreset.addItem(label)
        self.schedulePreset.activated.connect(self._on_preset)
        self.scheduleGridX = QSpinBox(objectName="scheduleGridX")
        self.scheduleGridX.setRange(0, INT32_MAX)
        self.scheduleGridX.setGroupSeparatorShown(True)
        self.scheduleGridX.setValue(2464)
        self.scheduleBlockX = QSpinBox(objectName="scheduleBlockX")
        self.scheduleBlockX.setRange(0, 4096)  # over 1,024 must be enterable: the driver's error teaches
        self.scheduleBlockX.setValue(256)
        self.scheduleWork = QDoubleSpinBox(objectName="scheduleWork")
        self.scheduleWork.setRange(0.0, 100_000.0)
        self.scheduleWork.setDecimals(1)
        self.scheduleWork.setSuffix(" µs")
        self.scheduleWork.setValue(20.0)
        self.scheduleWork.setToolTip(
            "Every thread spins on the GPU clock this long: blocks stay resident long enough for "
            "residency and waves to show (0: blocks finish in about a microsecond)"
        )
        self.scheduleSmem = QSpinBox(objectName="scheduleSmem")
        self.scheduleSmem.setRange(0, 1 << 20)
        self.scheduleSmem.setSingleStep(1024)
        self.scheduleSmem.setGroupSeparatorShown(True)
        self.scheduleSmem.setSuffix(" B")
        self.scheduleSmem.setToolTip("Dynamic shared memory per block (the launch's 4th argument)")
        self.scheduleHeavy = QCheckBox("register-heavy kernel", objectName="scheduleHeavy")
        self.scheduleHeavy.setToolTip("A variant that keeps many values alive: registers limit residency")
        self.scheduleRunButton = QPushButton("Run on the GPU", objectName="scheduleRunButton")
        self.scheduleRunButton.clicked.connect(self.run)
        self.scheduleOpenButton = QPushButton("Open .npz …", objectName="scheduleOpenButton")
        self.scheduleOpenButton.setToolTip("A schedule saved on a GPU (simtviz schedule --out)")
        self.scheduleOpenButton.clicked.connect(lambda: self.open_file())
        self.scheduleSaveButton = QPushButton("Save .npz …", objectName="scheduleSaveButton")
        self.scheduleSaveButton.clicked.connect(lambda: self.save_file())
        self.scheduleColorBy = QComboBox(objectName="scheduleColorBy")
        self.scheduleColorBy.addItem("wave", "wave")
        self.scheduleColorBy.addItem("block index", "block")
        self.scheduleColorBy.currentIndexChanged.connect(lambda _i: self._draw())

        form = QFormLayout()
        form.addRow(self.schedulePreset)
        form.addRow("blocks (grid.x)", self.scheduleGridX)
        form.addRow("threads per block", self.scheduleBlockX)
        form.addRow("work per thread", self.scheduleWork)
        form.addRow("shared memory", self.scheduleSmem)
        form.addRow(self.scheduleHeavy)
        buttons = QHBoxLayout()
        for b in (self.scheduleRunButton, self.scheduleOpenButton, self.scheduleSaveButton):
            buttons.addWidget(b)
        form.addRow(buttons)
        form.addRow("colour by", self.scheduleColorBy)

        self.scheduleMessage = QLabel(objectName="scheduleMessage", wordWrap=True)
        self.scheduleMessage.setTextFormat(Qt.TextFormat.RichText)
        self.scheduleMessage.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.scheduleFacts = QTableWidget(len(FACT_ROWS), 3, objectName="scheduleFacts")
        self.scheduleFacts.setHorizontalHeaderLabels(["theory", "driver", "measured"])
        self.scheduleFacts.setVerticalHeaderLabels([label for _key, label in FACT_ROWS])
        self.scheduleFacts.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.scheduleFacts.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.scheduleFacts.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.scheduleFacts.setSizeAdjustPolicy(QTableWidget.SizeAdjustPolicy.AdjustToContents)
        self.scheduleFacts.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scheduleFacts.setToolTip(
            "theory: simtviz's occupancy arithmetic; driver: cuOccupancyMaxActiveBlocksPerMultiprocessor; "
            "measured: from the recorded start and end of every block"
        )
        self.scheduleVerdict = QLabel(objectName="scheduleVerdict", wordWrap=True)
        self.scheduleVerdict.setTextFormat(Qt.TextFormat.RichText)
        self.scheduleLegend = QLabel(objectName="scheduleLegend", wordWrap=True)
        self.scheduleLegend.setTextFormat(Qt.TextFormat.RichText)
        self.scheduleSelected = QLabel(
            "Click a bar: that block is shown in the index map and the thread inspector.",
            objectName="scheduleSelected",
            wordWrap=True,
        )
        self.scheduleSelected.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addLayout(form)
        left_layout.addWidget(self.scheduleFacts)
        left_layout.addWidget(self.scheduleVerdict)
        left_layout.addWidget(self.scheduleLegend)
        left_layout.addWidget(self.scheduleSelected)
        left_layout.addStretch(1)

        self.scheduleChart = ScheduleChart()
        self.gantt, self.counts = self.scheduleChart.gantt, self.scheduleChart.counts
        self.ganttItem = self.scheduleChart.ganttItem
        self.scheduleChart.barClicked.connect(self.select)

        # In a scroll area: at presentation sizes the controls scroll instead of squeezing the chart.
        left_scroll = QScrollArea()
        left_scroll.setWidget(left)
        left_scroll.setWidgetResizable(True)
        left_scroll.setMinimumWidth(300)
        self.scheduleChart.setMinimumWidth(400)
        self.scheduleEmpty = empty_chart(self.open_sample)
        self.scheduleChart.setVisible(False)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left_scroll)
        splitter.addWidget(self.scheduleEmpty)
        splitter.addWidget(self.scheduleChart)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([470, 900])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.scheduleMessage)
        layout.addWidget(splitter, 1)
        self._apply_font_size()
        self._show_facts()

    # ----- state -----
    @property
    def kind(self) -> str:
        return self._session.kind if self._session is not None else "sim"

    def summary(self) -> dict[str, Any] | None:
        """The ``schedule --json`` dict of the schedule shown (a GPU run, or one saved on a GPU)."""
        return None if self._shown is None else dict(self._shown.summary)

    @property
    def shown(self) -> ShownSchedule | None:
        return self._shown

    def bar_count(self) -> int:
        return self.ganttItem.bar_count()

    def request(self) -> ScheduleRequest:
        return ScheduleRequest(
            self.scheduleGridX.value(),
            self.scheduleBlockX.value(),
            work_us=self.scheduleWork.value(),
            smem=self.scheduleSmem.value(),
            heavy=self.scheduleHeavy.isChecked(),
        )

    def _on_preset(self, index: int) -> None:
        values = PRESETS.get(self.schedulePreset.itemText(index))
        if values is None:
            return
        blocks, threads, work, smem, heavy = values
        self.scheduleGridX.setValue(blocks)
        self.scheduleBlockX.setValue(threads)
        self.scheduleWork.setValue(work)
        self.scheduleSmem.setValue(smem)
        self.scheduleHeavy.setChecked(heavy)

    def _update_controls(self) -> None:
        session = self._session
        on_gpu = self.kind == "gpu"
        self.scheduleRunButton.setEnabled(on_gpu and session is not None and session.can_run)
        self.scheduleRunButton.setToolTip(
            "Launch the schedule kernel once and record every block's SM, start and end"
            if on_gpu
            else f"GPU only: {'the CPU emulator' if self.kind == 'emu' else 'the CUDA simulator'} "
            "has no SMs and no clock to measure"
        )
        self.scheduleSaveButton.setEnabled(self._shown is not None and self._shown.result is not None)
        if self._shown is None:
            if on_gpu:
                self.scheduleMessage.setText(
                    "Press <b>Run on the GPU</b> (pick a limiting factor first), or open a saved schedule."
                )
            else:
                self.scheduleMessage.setText(NOTHING_HERE)

    # ----- running and opening -----
    def run(self) -> bool:
        """Launch through the session (GPU only); the view updates when the result arrives."""
        if self._session is None or self.kind != "gpu":
            self.scheduleMessage.setText(NOTHING_HERE)
            return False
        request = self.request()
        if self._session.run(SCHEDULE, request):
            self.scheduleMessage.setText(
                f"Running {request.grid:,} blocks of {request.block:,} threads, "
                f"{request.work_us:g} µs of work each …"
            )
            return True
        return False

    def _on_result(self, experiment: str, result: Any) -> None:
        if experiment == SCHEDULE and isinstance(result, ScheduleResult):
            self.show_schedule(ShownSchedule.of_result(result))

    def _on_error(self, experiment: str, _request: Any, exc: BaseException, _tb: str) -> None:
        if experiment != SCHEDULE:
            return
        if isinstance(exc, NothingToMeasure):
            self.scheduleMessage.setText(NOTHING_HERE)
        elif isinstance(exc, LaunchRejected):
            self.scheduleMessage.setText(
                f"<b>Launch rejected:</b> {html.escape(exc.driver_text)}<br>{html.escape(exc.explanation)}"
            )
            dialogs.show_launch_error(self, exc)
        elif isinstance(exc, Cancelled):
            self.scheduleMessage.setText("Cancelled.")
        else:
            self.scheduleMessage.setText(
                f"<b>The run failed:</b> {html.escape(f'{type(exc).__name__}: {exc}')}"
            )

    def open_file(self, path: str | Path | None = None) -> bool:
        """Show a schedule saved as .npz (``simtviz schedule --out``); a dialog asks when no path."""
        if path is None:
            chosen, _ = QFileDialog.getOpenFileName(self, "Open a schedule", "", "Schedules (*.npz)")
            if not chosen:
                return False
            path = chosen
        try:
            shown = ShownSchedule.of_file(path)
        except (OSError, KeyError, ValueError, RecordFileError) as exc:
            self.scheduleMessage.setText(
                f"<b>Could not open {html.escape(str(path))}:</b> {html.escape(str(exc))} "
                "(expected a file written by <code>simtviz schedule --out</code>)"
            )
            return False
        self.show_schedule(shown)
        return True

    def open_sample(self) -> bool:  # the H100 schedule shipped in resources: no GPU needed
        path = sample_path()
        return path is not None and self.open_file(path)

    def save_file(self, path: str | Path | None = None) -> Path | None:
        """Save the GPU run shown (the ``simtviz schedule --out`` format)."""
        shown = self._shown
        if shown is None or shown.result is None:
            return None
        if path is None:
            chosen, _ = QFileDialog.getSaveFileName(self, "Save the schedule", "schedule.npz", "*.npz")
            if not chosen:
                return None
            path = chosen
        written = save_npz(shown.result, path)
        self.scheduleMessage.setText(f"Saved {html.escape(str(written))}")
        return written

    # ----- showing -----
    def show_schedule(self, shown: ShownSchedule) -> None:
        self._shown = shown
        self.scheduleEmpty.setVisible(False)
        self.scheduleChart.setVisible(True)
        self._selected = None
        self.scheduleChart.unmark()
        s = shown.summary
        grid = "×".join(str(v) for v in s["grid"])
        block = "×".join(str(v) for v in s["block"])
        where = "measured on this GPU" if shown.result is not None else f"recorded in {shown.source}"
        self.scheduleMessage.setText(
            f"<b>{html.escape(s['backend'].removeprefix('gpu:'))}</b>, {where}: grid {grid} = "
            f"{s['blocks']:,} blocks of {block} threads, {s['work_us']:g} µs of work per thread; "
            f"{s['regs_per_thread']} registers/thread, {s['smem_per_block']:,} B shared memory/block; "
            f"{s['sms']} SMs."
        )
        # The controls follow the launch shown, so Run repeats it.
        self.scheduleGridX.setValue(int(np.prod(shown.grid)))
        self.scheduleBlockX.setValue(int(np.prod(shown.block)))
        self.scheduleWork.setValue(float(s["work_us"]))
        # The schedule kernel has no static shared memory: all of it was the launch's dynamic part.
        self.scheduleSmem.setValue(max(0, int(s["smem_per_block"])))
        self._draw()
        self._show_facts()
        self._update_controls()
        self.scheduleShown.emit(shown)

    def _show_facts(self) -> None:
        shown = self._shown
        table = self.scheduleFacts
        for r in range(table.rowCount()):
            for c in range(3):
                table.setItem(r, c, table_item("—"))
        if shown is None:
            self.scheduleVerdict.setText("")
            self.scheduleLegend.setText("")
            return
        s = shown.summary
        t = s["theoretical"]

        def text(value: Any) -> str:
            return "—" if value is None else f"{value:,}"

        capacity = s["sms"] * t["blocks_per_sm"]
        rows = fact_values(shown)
        for r, (key, _label) in enumerate(FACT_ROWS):
            for c, value in enumerate(rows[key]):
                table.setItem(r, c, table_item(text(value), bold=c == 2))
        table.resizeRowsToContents()
        problems = disagreements(s)
        limiter = html.escape(t["limiter"])
        if problems:
            self.scheduleVerdict.setText(
                "<span style='color:#d32f2f'><b>⚠ Theory and measurement disagree:</b></span><br>"
                + "<br>".join(f"• {html.escape(p)}" for p in problems)
            )
        else:
            blocks, per_sm, waves = s["blocks"], t["blocks_per_sm"], t["waves"]
            need = "needs" if blocks == 1 else "need"
            self.scheduleVerdict.setText(
                f"<b>✓ They agree.</b> {counted(per_sm, 'block')} per SM (limited by {limiter}) × "
                f"{s['sms']} SMs = {capacity:,} blocks per wave; {counted(blocks, 'block')} {need} "
                f"ceil({blocks:,} / {capacity:,}) = {counted(waves, 'wave')}."
            )

    def _draw(self) -> None:
        legend = self.scheduleChart.draw(self._shown, str(self.scheduleColorBy.currentData()))
        if legend:
            self.scheduleLegend.setText(legend)

    # ----- clicking a bar -----
    def bar_at(self, x_us: float, y: float) -> int | None:
        """The block whose bar covers view point (x µs, y), or None."""
        return self.scheduleChart.bar_at(x_us, y)

    def bar_view_pos(self, block: int) -> QPoint:
        """The centre of ``block``'s bar in ``scheduleChart`` pixels (tests, scripts)."""
        return self.scheduleChart.bar_view_pos(block)

    def select(self, block: int) -> None:
        """Mark ``block`` (linear index), describe it, and emit ``blockClicked``."""
        shown = self._shown
        if shown is None or shown.analysis is None or not self.scheduleChart.has_bars:
            return
        self._selected = block
        sm, x0, x1 = self.scheduleChart.mark(block)
        wave = int(shown.analysis.wave[block]) + 1
        self.scheduleSelected.setText(
            f"Block {block:,} = blockIdx {shown.block_xyz(block)}: SM {sm}, "
            f"{x0:,.2f} → {x1:,.2f} µs, wave {wave} of {shown.analysis.waves}."
        )
        self.blockClicked.emit(block)

    def selected(self) -> int | None:
        return self._selected

    # ----- presentation mode -----
    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._apply_font_size()

    def _apply_font_size(self) -> None:
        """pyqtgraph's axes do not follow Qt style sheets: give them the widget's font size."""
        chart = getattr(self, "scheduleChart", None)  # a font change may come before _build ends
        if chart is not None:
            chart.set_point_size(max(self.font().pointSize(), 9))
