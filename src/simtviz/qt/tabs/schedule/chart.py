"""The schedule's chart (``scheduleChart``): one bar per block on its SM's row over time, the
blocks each SM ran beside it, the tail wave shaded, and the bar a click picked outlined.

The schedule view owns what is shown and the words around it; this widget draws a
``ShownSchedule`` and answers which bar lies under a point.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPoint, QPointF, Qt, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QWidget

from simtviz.qt.map.items import quiet_unlabelled_axes
from simtviz.qt.tabs.schedule.data import ShownSchedule, bar_times_us
from simtviz.qt.tabs.schedule.gantt import BAR_FILL, INDEX_STEPS, GanttItem, index_colours, wave_colour


class ScheduleChart(pg.GraphicsLayoutWidget):
    """The Gantt (``gantt``) and the per-SM counts (``counts``) on linked rows."""

    barClicked = Signal(int)  # linear block index (x fastest) of the bar clicked

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("scheduleChart")
        self.setBackground(self.palette().base().color())
        self.gantt: pg.PlotItem = self.addPlot(row=0, col=0)
        self.counts: pg.PlotItem = self.addPlot(row=0, col=1)
        self.ci.layout.setColumnStretchFactor(0, 6)
        self.ci.layout.setColumnStretchFactor(1, 1)
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
        # The hidden top and right axes: no label rendered again at every range change.
        quiet_unlabelled_axes(self.gantt, self.counts)
        self.ganttItem = GanttItem()
        self.gantt.addItem(self.ganttItem)
        self._count_bars: pg.BarGraphItem | None = None
        self._tail = pg.LinearRegionItem(movable=False, brush=QColor(213, 94, 0, 40), pen=QColor(213, 94, 0))
        self._tail.setZValue(-10)
        self._tail.setVisible(False)
        self.gantt.addItem(self._tail)
        self.tail_text = pg.TextItem(
            color=QColor(150, 60, 0),
            anchor=(1, 0),
            fill=pg.mkBrush(255, 255, 255, 225),
            border=QColor(213, 94, 0),
        )
        self.tail_text.setZValue(25)
        self.tail_text.setVisible(False)
        self.gantt.addItem(self.tail_text)
        self._mark = pg.QtWidgets.QGraphicsRectItem()
        mark_pen = pg.mkPen("#d32f2f", width=3)
        mark_pen.setCosmetic(True)
        self._mark.setPen(mark_pen)
        self._mark.setZValue(20)
        self._mark.setVisible(False)
        self.gantt.addItem(self._mark)
        self._bars: dict[str, np.ndarray] = {}
        self._lanes = 1
        self._axis_point_size: int | None = None
        self.scene().sigMouseClicked.connect(self._on_click)

    @property
    def has_bars(self) -> bool:
        return bool(self._bars)

    def draw(self, shown: ShownSchedule | None, colour_by: str) -> str:
        """Draw ``shown`` coloured by ``colour_by`` (``wave`` or ``block``); the legend's words
        ("" when nothing is drawn)."""
        a = shown.analysis if shown is not None else None
        if shown is None or a is None:
            self.ganttItem.set_bars(*(np.zeros(0),) * 5, [])
            self._tail.setVisible(False)
            self.tail_text.setVisible(False)
            if self._count_bars is not None:
                self.counts.removeItem(self._count_bars)
                self._count_bars = None
            return ""
        x0, x1 = bar_times_us(shown, a)
        sm = np.asarray(shown.smid, np.int64)
        lanes = max(int(a.lane.max()) + 1, 1)
        self._lanes = lanes
        lane_h = 1.0 / lanes
        y0 = sm + a.lane * lane_h + lane_h * (1 - BAR_FILL) / 2
        y1 = y0 + lane_h * BAR_FILL
        self._bars = {"x0": x0, "x1": x1, "y0": y0, "y1": y1, "sm": sm, "lane": a.lane}
        if colour_by == "block":
            n = len(sm)
            colour = (np.arange(n) * INDEX_STEPS // max(n, 1)).astype(np.int64)
            colours = index_colours()
            legend = (
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
            legend = (
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
            self.tail_text.setText(f"tail: {a.tail_blocks:,} blocks{share}")
            self.tail_text.setPos(hi, 0)
            self.tail_text.setVisible(True)
        else:
            self._tail.setVisible(False)
            self.tail_text.setVisible(False)
        self.gantt.setTitle(
            f"{len(sm):,} blocks on {a.sms_used} SMs over {a.span_us:,.1f} µs — one bar per block"
        )
        return legend

    # ----- bars under a point -----
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
        """The centre of ``block``'s bar in this widget's pixels (tests, scripts)."""
        bars = self._bars
        x = float(bars["x0"][block] + bars["x1"][block]) / 2
        y = float(bars["y0"][block] + bars["y1"][block]) / 2
        scene = self.gantt.vb.mapViewToScene(QPointF(x, y))
        return self.mapFromScene(scene)

    def _on_click(self, event: Any) -> None:  # pyqtgraph's MouseClickEvent
        if event.button() != Qt.MouseButton.LeftButton or not self._bars:
            return
        if not self.gantt.vb.sceneBoundingRect().contains(event.scenePos()):
            return
        point = self.gantt.vb.mapSceneToView(event.scenePos())
        block = self.bar_at(point.x(), point.y())
        if block is not None:
            self.barClicked.emit(block)

    def mark(self, block: int) -> tuple[int, float, float]:
        """Outline ``block``'s bar; its SM and its start and end (µs)."""
        bars = self._bars
        x0, x1 = float(bars["x0"][block]), float(bars["x1"][block])
        sm = int(bars["sm"][block])
        lane_h = 1.0 / self._lanes
        top = sm + int(bars["lane"][block]) * lane_h
        self._mark.setRect(x0, top, x1 - x0, lane_h)
        self._mark.setVisible(True)
        return sm, x0, x1

    def unmark(self) -> None:
        self._mark.setVisible(False)

    def set_point_size(self, size: int) -> None:
        """pyqtgraph's axes do not follow Qt style sheets: give them the window's font size."""
        if size == self._axis_point_size:
            return  # a style change without a new size (a re-polish sends several): nothing to redo
        self._axis_point_size = size
        font = QFont()
        font.setPointSize(size)
        for plot in (self.gantt, self.counts):
            for name in ("left", "bottom"):
                axis = plot.getAxis(name)
                axis.setStyle(tickFont=font)
                axis.label.setFont(font)
            plot.titleLabel.item.setFont(font)
        self.tail_text.setFont(font)
