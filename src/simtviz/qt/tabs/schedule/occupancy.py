"""The occupancy view: how many blocks of a launch one SM holds, what limits it, against block size.

Computed Qt-free by ``core.occupancy`` for a public device profile (anywhere) or, on a GPU, for the
device's own attributes, read once on the worker (it owns CUDA). On a GPU the driver's own figure
(``cuOccupancyMaxActiveBlocksPerMultiprocessor``) for the schedule kernel is shown beside the
computed one, and a disagreement is said, not hidden.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QSignalBlocker, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from simtviz.backends.schedule.occupancy import DEFAULT_PROFILE_REGS, GpuOccupancyFacts, profile_label
from simtviz.core.schedule import counted
from simtviz.core.schedule.occupancy import (
    LIMITERS,
    PROFILES,
    DeviceProfile,
    Occupancy,
    occupancy,
    occupancy_curve,
)
from simtviz.qt.map.items import quiet_unlabelled_axes

if TYPE_CHECKING:
    from simtviz.qt.session import RunSession

CURRENT = "current"
LIMITER_COLOURS = {
    "threads": "#0072B2",
    "blocks": "#E69F00",
    "registers": "#009E73",
    "shared memory": "#CC79A7",
}
LIMIT_ROWS = (
    ("threads", "threads"),
    ("blocks", "blocks (cap)"),
    ("registers", "registers"),
    ("shared memory", "shared memory"),
)


def _item(text: str, bold: bool = False) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
    if bold:
        font = item.font()
        font.setBold(True)
        item.setFont(font)
    return item


def limit_reason(occ: Occupancy, key: str) -> str:
    """The arithmetic behind one resource's limit, in one line."""
    p = occ.profile
    if key == "threads":
        return f"{p.max_warps_per_sm} warps // {occ.warps_per_block} per block"
    if key == "blocks":
        return f"cc {p.cc_text} holds at most {p.max_blocks_per_sm}"
    if key == "registers":
        unit = p.register_allocation_unit
        per_warp = -(-(occ.regs_per_thread * p.warp_size) // unit) * unit
        if per_warp == 0:
            return "no registers asked for"
        per_part = p.registers_per_sm // p.register_sub_partitions
        warps = per_part // per_warp * p.register_sub_partitions
        return f"{per_warp:,} per warp → {warps} warps // {occ.warps_per_block}"
    return f"{p.shared_memory_per_sm:,} B // {occ.shared_memory_allocated:,} B per block"


class OccupancyView(QWidget):
    """``occupancyView``: block size, registers, shared memory, device → the result and a chart;
    ``summary()`` is the ``simtviz occupancy --json`` dict now shown."""

    def __init__(self, session: RunSession | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("occupancyView")
        self._session = session
        self._facts: GpuOccupancyFacts | None = None
        self._driver: dict[tuple[int, int, bool], int | None] = {}
        self._occ: Occupancy | None = None
        self._build()
        if session is not None:
            session.backendReady.connect(self._on_backend)
            if session.info is not None:
                self._on_backend(session.info)
        self._refresh()

    def _build(self) -> None:
        self.occupancyDevice = QComboBox(objectName="occupancyDevice")
        for cc, profile in PROFILES.items():
            # Short enough for the column at 20 pt; the note under the result says "public profile".
            self.occupancyDevice.addItem(f"cc {cc}: {profile.name}", cc)
            self.occupancyDevice.setItemData(
                self.occupancyDevice.count() - 1,
                f"{profile.name}: public profile",
                Qt.ItemDataRole.ToolTipRole,
            )
        self.occupancyDevice.setCurrentIndex(self.occupancyDevice.findData("9.0"))
        self.occupancyDevice.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.occupancyDevice.setMinimumContentsLength(12)
        self.occupancyBlock = QSpinBox(objectName="occupancyBlock")
        self.occupancyBlock.setRange(1, 4096)
        self.occupancyBlock.setValue(256)
        self.occupancyRegs = QSpinBox(objectName="occupancyRegs")
        self.occupancyRegs.setRange(0, 255)
        self.occupancyRegs.setValue(DEFAULT_PROFILE_REGS)
        self.occupancyRegs.setToolTip("kernel.get_regs_per_thread(): the compiler decides, per kernel")
        self.occupancySmem = QSpinBox(objectName="occupancySmem")
        self.occupancySmem.setRange(0, 1 << 20)
        self.occupancySmem.setSingleStep(1024)
        self.occupancySmem.setGroupSeparatorShown(True)
        self.occupancySmem.setSuffix(" B")
        self.occupancySmem.setToolTip("Static + dynamic shared memory per block")
        form = QFormLayout()
        # Labels over their fields when the column is narrow: the device's name is never cut.
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        form.addRow(QLabel("device"))
        form.addRow(self.occupancyDevice)  # the column's whole width for the device's name
        form.addRow("threads per block", self.occupancyBlock)
        form.addRow("registers per thread", self.occupancyRegs)
        form.addRow("shared memory per block", self.occupancySmem)

        self.occupancyResult = QLabel(objectName="occupancyResult", wordWrap=True)
        self.occupancyResult.setTextFormat(Qt.TextFormat.RichText)
        self.occupancyResult.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.occupancyLimits = QTableWidget(len(LIMIT_ROWS), 2, objectName="occupancyLimits")
        self.occupancyLimits.setHorizontalHeaderLabels(["allows blocks", "because"])
        self.occupancyLimits.setVerticalHeaderLabels([label for _k, label in LIMIT_ROWS])
        self.occupancyLimits.horizontalHeader().setSectionResizeMode(
            0, QHeaderView.ResizeMode.ResizeToContents
        )
        self.occupancyLimits.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.occupancyLimits.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.occupancyLimits.setWordWrap(True)
        self.occupancyLimits.setSizeAdjustPolicy(QTableWidget.SizeAdjustPolicy.AdjustToContents)
        self.occupancyLimits.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.occupancyLimits.setToolTip(
            "Registers are allocated per warp in units of 256 and split over 4 sub-partitions; "
            "shared memory per block includes the 1 KiB the driver reserves (cc 8.0 on), rounded up"
        )
        self.occupancyNote = QLabel(objectName="occupancyNote", wordWrap=True)
        self.occupancyNote.setTextFormat(Qt.TextFormat.RichText)

        self.occupancyChart = pg.PlotWidget()
        self.occupancyChart.setObjectName("occupancyChart")
        self.occupancyChart.setBackground(self.palette().base().color())
        for axis in ("left", "bottom"):
            self.occupancyChart.getAxis(axis).setTextPen(self.palette().text().color())
            self.occupancyChart.getAxis(axis).setPen(self.palette().text().color())
            self.occupancyChart.getAxis(axis).enableAutoSIPrefix(False)
        self.occupancyChart.setLabel("bottom", "threads per block")
        self.occupancyChart.setLabel("left", "occupancy (%)")
        quiet_unlabelled_axes(self.occupancyChart.getPlotItem())  # its hidden top and right axes
        self.occupancyChart.showGrid(x=True, y=True, alpha=0.25)
        self.occupancyChart.setYRange(0, 105, padding=0)
        self.occupancyChart.setXRange(0, 1056, padding=0)
        self.occupancyChart.setMouseEnabled(x=False, y=False)
        self.occupancyChart.hideButtons()
        self.occupancyChart.setMinimumHeight(220)
        self._legend = self.occupancyChart.addLegend(offset=(-10, -10))
        self._curve = pg.PlotDataItem(pen=pg.mkPen("#7f7f7f", width=1))
        self.occupancyChart.addItem(self._curve)
        self._points: dict[str, pg.ScatterPlotItem] = {}
        for limiter in LIMITERS:
            colour = LIMITER_COLOURS[limiter]
            points = pg.ScatterPlotItem(size=8, brush=colour, pen=None, name=f"limited by {limiter}")
            self._points[limiter] = points
            self.occupancyChart.addItem(points)
        self._here = pg.ScatterPlotItem(size=20, brush=None, pen=pg.mkPen("#d32f2f", width=3), symbol="o")
        self.occupancyChart.addItem(self._here)
        self._here_line = pg.InfiniteLine(
            angle=90, pen=pg.mkPen("#d32f2f", width=1, style=Qt.PenStyle.DashLine)
        )
        self.occupancyChart.addItem(self._here_line)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("<b>Occupancy</b>: how many blocks one SM holds at once", wordWrap=True))
        layout.addLayout(form)
        layout.addWidget(self.occupancyResult)
        layout.addWidget(self.occupancyNote)
        layout.addWidget(self.occupancyLimits)
        layout.addWidget(self.occupancyChart, 1)

        self.occupancyDevice.currentIndexChanged.connect(lambda _i: self._refresh())
        for spin in (self.occupancyBlock, self.occupancyRegs, self.occupancySmem):
            spin.valueChanged.connect(lambda _v: self._refresh())
        self._apply_font_size()

    # ----- the GPU, through the worker -----
    def _on_backend(self, info: Any) -> None:
        if info.kind != "gpu" or self._session is None:
            return
        from simtviz.backends.schedule.occupancy import gpu_occupancy_facts

        self._session.bridge.submit(
            "occupancy-device",
            lambda _backend, _progress: gpu_occupancy_facts(),
            on_result=self.set_gpu_facts,
            on_error=lambda exc, _tb: self.occupancyNote.setText(
                f"Could not read this GPU's attributes: {html.escape(str(exc))}"
            ),
            low_priority=True,  # compiles the schedule kernels (≈300 ms): a Run goes first
        )

    def set_gpu_facts(self, facts: GpuOccupancyFacts) -> None:
        """The current GPU's profile and the schedule kernels' registers (from the worker)."""
        self._facts = facts
        if self.occupancyDevice.findData(CURRENT) < 0:
            self.occupancyDevice.insertItem(0, f"this GPU: {facts.profile.name} (its attributes)", CURRENT)
        self.occupancyDevice.setCurrentIndex(0)
        self.occupancyRegs.setValue(facts.kernel_regs)
        self._refresh()

    def _driver_key(self) -> tuple[int, int, bool] | None:
        """(block, dynamic smem, heavy) when the registers are one of the schedule kernels'."""
        facts = self._facts
        if facts is None or self.device() != CURRENT:
            return None
        regs = self.occupancyRegs.value()
        if regs not in (facts.kernel_regs, facts.heavy_regs):
            return None
        return (self.occupancyBlock.value(), self.occupancySmem.value(), regs == facts.heavy_regs)

    def _ask_driver(self, key: tuple[int, int, bool]) -> None:
        if self._session is None or key in self._driver:
            return
        from simtviz.backends.schedule.occupancy import driver_figure

        def arrived(value: int | None) -> None:
            self._driver[key] = value
            self._refresh()

        self._session.bridge.submit(
            "occupancy-driver",
            lambda _backend, _progress: driver_figure(*key),
            on_result=arrived,
            low_priority=True,  # a figure beside the theory's: a Run goes first
        )

    # ----- state -----
    def device(self) -> str:
        return str(self.occupancyDevice.currentData())

    def set_device(self, cc_or_current: str) -> None:
        index = self.occupancyDevice.findData(cc_or_current)
        if index < 0:
            raise ValueError(f"no device {cc_or_current!r} here")
        self.occupancyDevice.setCurrentIndex(index)

    def set_launch(self, block: int, regs: int, smem: int) -> None:
        """Show a launch's figures (e.g. the schedule just shown)."""
        for spin, value in (
            (self.occupancyBlock, block),
            (self.occupancyRegs, regs),
            (self.occupancySmem, smem),
        ):
            with QSignalBlocker(spin):
                spin.setValue(value)
        self._refresh()

    def profile(self) -> DeviceProfile:
        if self.device() == CURRENT and self._facts is not None:
            return self._facts.profile
        return PROFILES[self.device()]

    def summary(self) -> dict[str, Any]:
        """The ``simtviz occupancy --json`` dict now shown."""
        occ = self._occ or self._compute()
        return occ.summary(device=profile_label(occ.profile))

    def driver_blocks_per_sm(self) -> int | None:
        key = self._driver_key()
        return None if key is None else self._driver.get(key)

    def _compute(self) -> Occupancy:
        return occupancy(
            self.profile(),
            self.occupancyBlock.value(),
            self.occupancyRegs.value(),
            self.occupancySmem.value(),
        )

    def _refresh(self) -> None:
        occ = self._occ = self._compute()
        p = occ.profile
        limiters = " and ".join(occ.limiters)
        warps = f"{occ.warps_per_sm} of {p.max_warps_per_sm} warps"
        self.occupancyResult.setText(
            f"<span style='font-size:large'><b>{counted(occ.blocks_per_sm, 'block')} per SM</b> · {warps} · "
            f"<b>{occ.occupancy:.0%}</b> occupancy</span><br>limited by <b>{html.escape(limiters)}</b>"
            + ("" if occ.blocks_per_sm else " — <b>this block cannot run at all</b> on this device")
        )
        for r, (key, _label) in enumerate(LIMIT_ROWS):
            value = occ.limits[key]
            self.occupancyLimits.setItem(
                r, 0, _item("no limit" if value is None else f"{value:,}", bold=key in occ.limiters)
            )
            self.occupancyLimits.setItem(r, 1, _item(limit_reason(occ, key)))
        self.occupancyLimits.resizeRowsToContents()
        self._show_note(occ)
        self._draw_curve(occ)

    def _show_note(self, occ: Occupancy) -> None:
        p = occ.profile
        if not p.measured:
            self.occupancyNote.setText(
                f"<i>Computed from a public profile of compute capability {p.cc_text} "
                f"({html.escape(p.name)}), not measured: the rules of NVIDIA's occupancy calculator "
                "applied to the "
                "published limits.</i>"
            )
            return
        key = self._driver_key()
        if key is None:
            self.occupancyNote.setText(
                f"Computed from this GPU's attributes ({html.escape(p.name)}). The driver's own figure is "
                "shown for the schedule kernel's register counts "
                f"({self._facts.kernel_regs if self._facts else '?'} or "
                f"{self._facts.heavy_regs if self._facts else '?'} registers)."
            )
            return
        if key not in self._driver:
            self._ask_driver(key)
            self.occupancyNote.setText("Computed from this GPU's attributes; asking the driver …")
            return
        driver = self._driver[key]
        if driver is None:
            self.occupancyNote.setText("Computed from this GPU's attributes; the driver could not be asked.")
        elif driver == occ.blocks_per_sm:
            self.occupancyNote.setText(
                f"Computed from this GPU's attributes: {counted(occ.blocks_per_sm, 'block')} per SM. "
                f"<b>The driver agrees: {driver}</b> (cuOccupancyMaxActiveBlocksPerMultiprocessor)."
            )
        else:
            self.occupancyNote.setText(
                f"<span style='color:#d32f2f'><b>⚠ The driver says {driver} blocks per SM; simtviz "
                f"computed {occ.blocks_per_sm}.</b></span> The driver is right about its own GPU: "
                "simtviz's model misses something here."
            )

    def _draw_curve(self, occ: Occupancy) -> None:
        curve = occupancy_curve(occ.profile, occ.regs_per_thread, occ.smem_per_block)
        xs = np.array([c.block for c in curve], float)
        ys = np.array([c.occupancy * 100 for c in curve])
        self._curve.setData(xs, ys)
        for limiter, points in self._points.items():
            mask = np.array([c.limiter == limiter for c in curve], bool)
            points.setData(xs[mask], ys[mask])
        self._here.setData([occ.block], [occ.occupancy * 100])
        self._here_line.setValue(occ.block)
        self.occupancyChart.setTitle(
            f"cc {occ.profile.cc_text}, {occ.regs_per_thread} registers, {occ.smem_per_block:,} B: "
            f"this launch ({occ.block} threads) circled"
        )

    # ----- presentation mode -----
    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._apply_font_size()

    def _apply_font_size(self) -> None:
        size = max(self.font().pointSize(), 9)
        if size == getattr(self, "_axis_point_size", None):
            return  # a style change without a new size (a re-polish sends several): nothing to redo
        self._axis_point_size = size
        font = QFont()
        font.setPointSize(size)
        plot = self.occupancyChart.getPlotItem()
        for name in ("left", "bottom"):
            axis = plot.getAxis(name)
            axis.setStyle(tickFont=font)
            axis.label.setFont(font)
        plot.titleLabel.item.setFont(font)
