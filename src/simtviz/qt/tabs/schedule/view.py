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
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt, Signal
from PySide6.QtGui import QColor, QFont
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
    disagreements,
    save_npz,
)
from simtviz.qt import dialogs
from simtviz.qt.tabs.schedule.data import (
    FACT_ROWS,
    NOTHING_HERE,
    PRESETS,
    SCHEDULE,
    ShownSchedule,
    bar_times_us,
    empty_chart,
    fact_values,
    sample_path,
    table_item,
)
from simtviz.qt.tabs.schedule.gantt import BAR_FILL, INDEX_STEPS, GanttItem, index_colours, wave_colour
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
        self._bars: dict[str, np.ndarray] = {}
        self._lanes = 1
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

        self.scheduleChart = pg.GraphicsLayoutWidget()
        self.scheduleChart.setObjectName("scheduleChart")
        self.scheduleChart.setBackground(self.palette().base().color())
        self.gantt: pg.PlotItem = self.scheduleChart.addPlot(row=0, col=0)
        self.counts: pg.PlotItem = self.scheduleChart.addPlot(row=0, col=1)
        self.scheduleChart.ci.layout.setColumnStretchFactor(0, 6)
        self.scheduleChart.ci.layout.setColumnStretchFactor(1, 1)
        for plot in (self.gantt, self.counts):
            plot.invertY(True)
            plot.hideButtons()
            plot.setMenuEnabled(False)
            plot.showGrid(x=True, alpha=0.25)
        self.counts.setYLink(self.gantt)
        self.counts.getAxis("left").setStyle(showValues=False)
        self.counts.setLabel("bottom", "blocks run")
        self.counts.vb.setMouseEnabled(x=False, y=True)
        self.gantt.setLabel("left", "SM (%smid)")
        self.gantt.setLabel("bottom", "time since the first block started (µs)")
        self.gantt.getAxis("bottom").enableAutoSIPrefix(False)
        self.gantt.getAxis("left").enableAutoSIPrefix(False)
        self.ganttItem = GanttItem()
        self.gantt.addItem(self.ganttItem)
        self._count_bars: pg.BarGraphItem | None = None
        self._tail = pg.LinearRegionItem(movable=False, brush=QColor(213, 94, 0, 40), pen=QColor(213, 94, 0))
        self._tail.setZValue(-10)
        self._tail.setVisible(False)
        self.gantt.addItem(self._tail)
        self._tail_text = pg.TextItem(
            color=QColor(150, 60, 0),
            anchor=(1, 0),
            fill=pg.mkBrush(255, 255, 255, 225),
            border=QColor(213, 94, 0),
        )
        self._tail_text.setZValue(25)
        self._tail_text.setVisible(False)
        self.gantt.addItem(self._tail_text)
        self._mark = pg.QtWidgets.QGraphicsRectItem()
        mark_pen = pg.mkPen("#d32f2f", width=3)
        mark_pen.setCosmetic(True)
        self._mark.setPen(mark_pen)
        self._mark.setZValue(20)
        self._mark.setVisible(False)
        self.gantt.addItem(self._mark)
        self.scheduleChart.scene().sigMouseClicked.connect(self._on_click)

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
        self._mark.setVisible(False)
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
            self.scheduleVerdict.setText(
                f"<b>✓ They agree.</b> {t['blocks_per_sm']} blocks per SM (limited by {limiter}) × "
                f"{s['sms']} SMs = {capacity:,} blocks per wave; {s['blocks']:,} blocks need "
                f"ceil({s['blocks']:,} / {capacity:,}) = {t['waves']} waves."
            )

    def _draw(self) -> None:
        shown = self._shown
        a = shown.analysis if shown is not None else None
        if shown is None or a is None:
            self.ganttItem.set_bars(*(np.zeros(0),) * 5, [])
            self._tail.setVisible(False)
            self._tail_text.setVisible(False)
            if self._count_bars is not None:
                self.counts.removeItem(self._count_bars)
                self._count_bars = None
            return
        x0, x1 = bar_times_us(shown, a)
        sm = np.asarray(shown.smid, np.int64)
        lanes = max(int(a.lane.max()) + 1, 1)
        self._lanes = lanes
        lane_h = 1.0 / lanes
        y0 = sm + a.lane * lane_h + lane_h * (1 - BAR_FILL) / 2
        y1 = y0 + lane_h * BAR_FILL
        self._bars = {"x0": x0, "x1": x1, "y0": y0, "y1": y1, "sm": sm, "lane": a.lane}
        by = self.scheduleColorBy.currentData()
        if by == "block":
            n = len(sm)
            colour = (np.arange(n) * INDEX_STEPS // max(n, 1)).astype(np.int64)
            colours = index_colours()
            self.scheduleLegend.setText(
                f"Colour: block index, from <span style='color:{colours[0]}'>■</span> block 0 to "
                f"<span style='color:{colours[-1]}'>■</span> block {n - 1:,} (the order blocks are "
                "numbered, not the order they ran)."
            )
        else:
            colour = a.wave.astype(np.int64)
            colours = [wave_colour(w) for w in range(a.waves)]
            parts = [
                f"<span style='color:{colours[w]}'>■</span> wave {w + 1}"
                + (" (the tail)" if w == a.waves - 1 and a.waves > 1 else "")
                for w in range(a.waves)
            ]
            self.scheduleLegend.setText(
                "Colour: wave — a block is in wave k+1 when blocks of wave k had to finish on its SM "
                "before it could start.<br>" + " &nbsp; ".join(parts)
            )
        self.ganttItem.set_bars(x0, x1, y0, y1, colour, colours)
        sms = len(a.per_sm_blocks)
        self.gantt.setLimits(yMin=-1, yMax=sms + 1)
        self.gantt.setRange(xRange=(0, float(x1.max()) * 1.02), yRange=(0, sms), padding=0)
        # Per-SM block counts, on the same rows.
        if self._count_bars is not None:
            self.counts.removeItem(self._count_bars)
        counts = a.per_sm_blocks
        self._count_bars = pg.BarGraphItem(
            x0=np.zeros(sms), y=np.arange(sms) + 0.5, height=0.8, width=counts, brush="#7f7f7f", pen=None
        )
        self.counts.addItem(self._count_bars)
        self.counts.setXRange(0, max(int(counts.max()), 1) * 1.1, padding=0)
        self.counts.setTitle(f"{int(counts.min())}–{int(counts.max())} blocks per SM")
        # The tail: the last wave, from its first start to its last end.
        if a.waves > 1:
            tail = a.wave == a.waves - 1
            lo, hi = float(x0[tail].min()), float(x1[tail].max())
            self._tail.setRegion((lo, hi))
            self._tail.setVisible(True)
            capacity = shown.summary["sms"] * shown.summary["theoretical"]["blocks_per_sm"]
            share = f" = {a.tail_blocks / capacity:.0%} of a wave" if capacity else ""
            self._tail_text.setText(f"tail: {a.tail_blocks:,} blocks{share}")
            self._tail_text.setPos(hi, 0)
            self._tail_text.setVisible(True)
        else:
            self._tail.setVisible(False)
            self._tail_text.setVisible(False)
        self.gantt.setTitle(
            f"{len(sm):,} blocks on {a.sms_used} SMs over {a.span_us:,.1f} µs — one bar per block"
        )

    # ----- clicking a bar -----
    def bar_at(self, x_us: float, y: float) -> int | None:
        """The block whose bar covers view point (x µs, y), or None."""
        bars = self._bars
        if not bars:
            return None
        hit = np.flatnonzero(
            (bars["x0"] <= x_us) & (x_us <= bars["x1"]) & (bars["y0"] <= y) & (y <= bars["y1"])
        )
        if len(hit) == 0:
            # A lane thinner than a pixel: take the bar of that SM row nearest in height.
            sm = int(np.floor(y))
            near = np.flatnonzero((bars["sm"] == sm) & (bars["x0"] <= x_us) & (x_us <= bars["x1"]))
            if len(near) == 0:
                return None
            centre = (bars["y0"][near] + bars["y1"][near]) / 2
            return int(near[np.argmin(np.abs(centre - y))])
        return int(hit[0])

    def bar_view_pos(self, block: int) -> QPoint:
        """The centre of ``block``'s bar in ``scheduleChart`` pixels (tests, scripts)."""
        bars = self._bars
        x = float(bars["x0"][block] + bars["x1"][block]) / 2
        y = float(bars["y0"][block] + bars["y1"][block]) / 2
        scene = self.gantt.vb.mapViewToScene(QPointF(x, y))
        return self.scheduleChart.mapFromScene(scene)

    def _on_click(self, event: Any) -> None:
        if event.button() != Qt.MouseButton.LeftButton or not self._bars:
            return
        if not self.gantt.vb.sceneBoundingRect().contains(event.scenePos()):
            return
        point = self.gantt.vb.mapSceneToView(event.scenePos())
        block = self.bar_at(point.x(), point.y())
        if block is not None:
            self.select(block)

    def select(self, block: int) -> None:
        """Mark ``block`` (linear index), describe it, and emit ``blockClicked``."""
        shown, bars = self._shown, self._bars
        if shown is None or shown.analysis is None or not bars:
            return
        self._selected = block
        x0, x1 = float(bars["x0"][block]), float(bars["x1"][block])
        sm = int(bars["sm"][block])
        lane_h = 1.0 / self._lanes
        top = sm + int(bars["lane"][block]) * lane_h
        self._mark.setRect(x0, top, x1 - x0, lane_h)
        self._mark.setVisible(True)
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
        size = max(self.font().pointSize(), 9)
        if size == getattr(self, "_axis_point_size", None):
            return  # a style change without a new size (a re-polish sends several): nothing to redo
        self._axis_point_size = size
        font = QFont()
        font.setPointSize(size)
        for plot in (getattr(self, "gantt", None), getattr(self, "counts", None)):
            if plot is None:
                continue
            for name in ("left", "bottom"):
                axis = plot.getAxis(name)
                axis.setStyle(tickFont=font)
                axis.label.setFont(font)
            plot.titleLabel.item.setFont(font)
        if hasattr(self, "_tail_text"):
            self._tail_text.setFont(font)
