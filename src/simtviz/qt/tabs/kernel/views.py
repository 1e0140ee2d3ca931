"""What a traced run did, drawn from its log: the arrays as maps, the per-line table, one warp's
lanes onto 32-byte sectors (global arrays) or onto the 32 shared-memory banks (shared arrays).

Shared arrays get no map: there is one copy per block, so a map would need one per block.

``TraceData`` decodes the log once (array, kind, element of every row) so that clicks are quick;
the views never compute an access from a formula.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, QRectF, QSignalBlocker, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from simtviz.core.trace.analysis import (
    BANK_BYTES,
    BANKS,
    F_FLAGS,
    F_I0,
    F_I2,
    F_OFFSET,
    F_SITE,
    F_THREAD,
    NOBODY,
    SECTOR_BYTES,
    WARP,
    instances,
    warp_of,
)
from simtviz.core.trace.model import TraceResult
from simtviz.core.trace.stats import SHARED, LineStats, SharedLineStats
from simtviz.core.trace.words import number
from simtviz.qt.map.items import IntegerAxis, quiet_unlabelled_axes

COLOR_MODES = ("thread (last to touch)", "warp (last to touch)", "block (last to touch)", "accesses")
KIND_WORDS = ("load", "store", "atomic add")
UNTOUCHED_RGB = (215, 215, 215)
MULTI_WRITER_RGB = (220, 30, 30)
SHOWN_ACCESSES = 12  # of a clicked element or thread, listed by name


class TraceData:
    """The log of one result, decoded per row."""

    def __init__(self, result: TraceResult) -> None:
        self.result = result
        log = np.asarray(result.log)
        self.thread = log[F_THREAD]
        self.site = log[F_SITE]
        flags = log[F_FLAGS]
        self.oob = (flags & 1) == 1
        self.kind = (flags >> 1) & 3
        self.array = flags >> 3
        self.offset = log[F_OFFSET]
        self.index = log[F_I0 : F_I2 + 1]
        self.site_line = np.array([s.line for s in result.sites] or [0], dtype=np.int64)
        self.per_block = math.prod(result.block)
        self.flat: dict[int, np.ndarray] = {}
        for aid, info in enumerate(result.arrays):
            dims = [*info.shape, 1, 1][:3]
            self.flat[aid] = (self.index[0] * dims[1] + self.index[1]) * dims[2] + self.index[2]

    def thread_words(self, t: int) -> str:
        block, inner = divmod(int(t), self.per_block)
        bx, by, _ = self.result.block
        gx, gy, _ = self.result.grid
        tx, ty, tz = inner % bx, (inner // bx) % by, inner // (bx * by)
        kx, ky, kz = block % gx, (block // gx) % gy, block // (gx * gy)
        return (
            f"thread {t:,} (blockIdx ({kx}, {ky}, {kz}), threadIdx ({tx}, {ty}, {tz}), "
            f"warp {inner // WARP}, lane {inner % WARP})"
        )

    def row_words(self, r: int) -> str:
        aid = int(self.array[r])
        info = self.result.arrays[aid]
        idx = ", ".join(str(int(v)) for v in self.index[: len(info.shape), r])
        oob = " (out of bounds, skipped)" if self.oob[r] else ""
        shared = " (shared)" if info.space == SHARED else ""
        return (
            f"line {self.site_line[self.site[r]]}: {KIND_WORDS[self.kind[r]]} {info.name}[{idx}]{shared}{oob}"
        )

    def element_rows(self, aid: int, element: int) -> np.ndarray:
        return np.nonzero((self.array == aid) & (self.flat[aid] == element) & ~self.oob)[0]

    def thread_rows(self, t: int) -> np.ndarray:
        return np.nonzero(self.thread == t)[0]

    def warp_request(self, sites: list[int]) -> dict[str, Any] | None:
        """The first request (warp, instance 0) of the first of ``sites`` that was executed:
        each active lane's byte offset and sector, or for a shared array the 4-byte words it
        covers and their banks (``space`` says which)."""
        for sid in sites:
            rows = np.nonzero((self.site == sid) & ~self.oob)[0]
            if rows.size == 0:
                continue
            threads = self.thread[rows]
            inst = instances(np, threads, self.site[rows])
            warps = warp_of(threads, self.result.block)
            first = rows[0]
            w = int(warp_of(self.thread[first : first + 1], self.result.block)[0])
            mine = (warps == w) & (inst == 0)
            lanes = (threads[mine] % self.per_block) % WARP
            offsets = self.offset[rows[mine]]
            info = self.result.arrays[int(self.array[first])]
            request = {
                "site": sid,
                "warp": w,
                "lanes": lanes.tolist(),
                "offsets": offsets.tolist(),
                "sectors": (offsets // SECTOR_BYTES).tolist(),
                "itemsize": info.itemsize,
                "array": info.name,
                "space": info.space,
            }
            if info.space == SHARED:
                request.update(bank_request(offsets.tolist(), info.words))
            return request
        return None


def bank_request(offsets: list[int], words_per_element: int) -> dict[str, Any]:
    """Each lane's 4-byte words and banks (bank = word % 32), the distinct words each bank holds
    and the request's wavefronts (the most in one bank; lanes on one word share it)."""
    words = [[o // BANK_BYTES + k for k in range(words_per_element)] for o in offsets]
    in_bank: list[set[int]] = [set() for _ in range(BANKS)]
    for lane_words in words:
        for word in lane_words:
            in_bank[word % BANKS].add(word)
    per_bank = [len(b) for b in in_bank]
    return {
        "words": words,
        "banks": [[word % BANKS for word in lane_words] for lane_words in words],
        "words_per_bank": per_bank,
        "wavefronts": max(per_bank),  # one count per bank: never empty
        "least_wavefronts": -(-sum(per_bank) // BANKS),  # 8-byte elements: 2 for a full warp
    }


def _lut(n: int = 256) -> np.ndarray:
    cmap = pg.colormap.get("viridis")
    return cmap.getLookupTable(0.0, 1.0, n, alpha=False)


class ArrayView(QWidget):
    """One array as a map: 2-D as a matrix, 1-D in rows of ``width``, 3-D as (d0·d1) × d2."""

    elementClicked = Signal(int, int)  # array id, flat element index

    def __init__(self, aid: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.aid = aid
        self.setObjectName(f"kernelArray{aid}")
        self.view = pg.GraphicsLayoutWidget()
        self.plot = self.view.addPlot(0, 0, axisItems={s: IntegerAxis(s) for s in ("left", "bottom")})
        # The colour scale: which number each colour stands for (grey and red are in the title).
        self.scale = pg.ColorBarItem(
            values=(0, 1), colorMap=pg.colormap.get("viridis"), interactive=False, width=14
        )
        self.view.addItem(self.scale, row=0, col=1)
        quiet_unlabelled_axes(self.plot, self.scale)
        self.plot.invertY(True)
        self.plot.showGrid(False, False)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.plot.addItem(self.image)
        self.marks = pg.ScatterPlotItem(
            symbol="s", pen=pg.mkPen("k", width=2), brush=pg.mkBrush(0, 0, 0, 0), pxMode=False, size=0.9
        )
        self.plot.addItem(self.marks)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        self.view.scene().sigMouseClicked.connect(self._clicked)
        self.rows = self.cols = 0
        self.values: np.ndarray | None = None
        # Not `size`: that would hide QWidget.size().
        self.elements = 0

    def _apply_colours(self) -> None:
        """The window's background and text colours (pyqtgraph's default is black)."""
        base, text = self.palette().base().color(), self.palette().text().color()
        self.view.setBackground(base)
        for axis in (self.plot.getAxis("left"), self.plot.getAxis("bottom"), self.scale.getAxis("right")):
            axis.setPen(text)
            axis.setTextPen(text)
        self.plot.titleLabel.setAttr("color", text.name())

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.StyleChange):
            self._apply_colours()

    def layout_shape(self, shape: tuple[int, ...], width: int) -> tuple[int, int]:
        if len(shape) == 1:
            w = max(1, min(width, shape[0]))
            return -(-shape[0] // w), w
        if len(shape) == 2:
            return shape[0], shape[1]
        return shape[0] * shape[1], shape[2]

    def show_array(self, data: TraceData, mode: str, width: int) -> None:
        info = data.result.arrays[self.aid]
        touch = data.result.analysis.touch[info.name]
        self.elements = info.size
        self.rows, self.cols = self.layout_shape(info.shape, width)
        last = np.where(touch.last_writer != NOBODY, touch.last_writer, touch.last_reader).ravel()
        count = (touch.loads + touch.stores + touch.atomics).ravel()
        if mode.startswith("accesses"):
            values = count.astype(float)
        elif mode.startswith("warp"):
            values = warp_of(last, data.result.block).astype(float)
        elif mode.startswith("block"):
            values = (last // data.per_block).astype(float)
        else:
            values = last.astype(float)
        untouched = count == 0
        lo = values[~untouched].min() if (~untouched).any() else 0.0
        hi = values[~untouched].max() if (~untouched).any() else 1.0
        lut = _lut()
        scaled = np.zeros(values.shape, dtype=np.int64)
        if hi > lo:
            scaled = ((values - lo) / (hi - lo) * 255).clip(0, 255).astype(np.int64)
        rgb = lut[scaled].astype(np.uint8)
        rgb[untouched] = UNTOUCHED_RGB
        multi = (touch.writers > 1).ravel()
        rgb[multi] = MULTI_WRITER_RGB
        padded = np.full((self.rows * self.cols, 3), 255, dtype=np.uint8)
        padded[: info.size] = rgb
        self.values = values
        self.image.setImage(padded.reshape(self.rows, self.cols, 3), levels=(0, 255))
        self.image.setRect(QRectF(0, 0, self.cols, self.rows))
        self.scale.setLevels((float(lo), float(hi if hi > lo else lo + 1)))
        self.scale.getAxis("right").setLabel(mode.split(" (")[0])
        self._apply_colours()
        # Square cells, unless the array is a strip (1,000 elements in rows of 256: 4 × 256)
        # that square cells would draw as a hairline across an empty plot: then it fills the plot.
        self.plot.setAspectLocked(self.rows * 8 >= self.cols)
        self.plot.getAxis("bottom").set_bounds(0, self.cols - 1)
        self.plot.getAxis("left").set_bounds(0, self.rows - 1)
        self.plot.autoRange(padding=0.02)
        # A short title: a long one set the plot's minimum width past the widget's and cut the
        # map and its colour scale off. What grey and red mean is said once, over the maps.
        self.plot.setTitle(f"{info.name} {info.dtype}{list(info.shape)}")
        self.marks.clear()

    def mark(self, elements: np.ndarray) -> None:
        """Outline these flat elements (a thread's accesses)."""
        elements = np.asarray(elements, dtype=np.int64)[:5000]
        r, c = np.divmod(elements, max(self.cols, 1))
        self.marks.setData(x=c + 0.5, y=r + 0.5)

    def _clicked(self, event: Any) -> None:
        if self.values is None:
            return
        p = self.plot.vb.mapSceneToView(event.scenePos())
        r, c = math.floor(p.y()), math.floor(p.x())
        if 0 <= r < self.rows and 0 <= c < self.cols:
            e = r * self.cols + c
            if e < self.elements:
                self.elementClicked.emit(self.aid, e)


class LinesTable(QTableWidget):
    """Per source line and kind: count, requests, sectors per request, efficiency; when the
    kernel has shared arrays, their lines too (marked shared) with two more columns: wavefronts
    per request and the worst request's conflict."""

    HEADERS = ("line", "array", "kind", "count", "requests", "sectors/request", "efficiency")
    SHARED_HEADERS = ("wavefronts/request", "worst conflict")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(self.HEADERS), parent)
        self.setObjectName("kernelLines")
        self.setHorizontalHeaderLabels(list(self.HEADERS))
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
        self.rows_data: list[LineStats | SharedLineStats] = []

    def show_lines(self, lines: list[LineStats], shared_lines: list[SharedLineStats] | None = None) -> None:
        shared = list(shared_lines or [])
        headers = self.HEADERS + (self.SHARED_HEADERS if shared else ())
        self.setColumnCount(len(headers))
        self.setHorizontalHeaderLabels(list(headers))
        # By line; on one line the global rows first (a stable sort of global then shared).
        rows: list[LineStats | SharedLineStats] = sorted([*lines, *shared], key=lambda row: row.line)
        self.rows_data = rows
        self.setRowCount(len(rows))
        for r, row in enumerate(rows):
            if isinstance(row, SharedLineStats):
                wpr = row.wavefronts_per_request
                degree = row.max_conflict_degree
                cells: tuple[str, ...] = (
                    str(row.line), f"{row.array} (shared)", row.kind, f"{row.count:,}",
                    f"{row.requests:,}", "—", "—", "—" if wpr is None else f"{wpr:g}",
                    "—" if not row.requests else
                    ("none" if row.wavefronts == row.min_wavefronts else f"{degree}-way"),
                )  # fmt: skip
            else:
                spr = row.sectors_per_request
                eff = row.efficiency
                cells = (
                    str(row.line), row.array, row.kind, f"{row.count:,}", f"{row.requests:,}",
                    "—" if spr is None else number(spr), "—" if eff is None else f"{eff:.0%}",
                ) + (("—", "—") if shared else ())  # fmt: skip
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c >= 3:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.setItem(r, c, item)


class WarpSectorsView(QWidget):
    """One request of the selected line: the warp's 32 lanes above, the 32-byte sectors they
    touch below, a line from each active lane to its sector."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("kernelWarpSectors")
        self.setMinimumHeight(150)
        self.request: dict[str, Any] | None = None
        self.title = ""

    def show_request(self, request: dict[str, Any] | None, title: str = "") -> None:
        self.request, self.title = request, title
        self.update()

    def paintEvent(self, event: Any) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        fg = self.palette().windowText().color()
        painter.setPen(fg)
        font = QFont(self.font())
        painter.setFont(font)
        fm = painter.fontMetrics()
        w, h = self.width(), self.height()
        if self.request is None:
            painter.drawText(
                self.rect(),
                Qt.AlignmentFlag.AlignCenter,
                "Select a line in the table to see one warp's request",
            )
            painter.end()
            return
        req = self.request
        if req.get("space") == SHARED:
            self._paint_banks(painter, fg, fm, req)
            painter.end()
            return
        sectors = sorted(set(req["sectors"]))
        top_text = (
            f"{self.title}: warp {req['warp']}, {len(req['lanes'])} active lanes → {len(sectors)} sectors"
        )
        painter.drawText(4, fm.ascent() + 2, top_text)
        margin, y_lane = 8, fm.height() + 14
        lane_w = (w - 2 * margin) / WARP
        box_h = max(14, fm.height() + 2)
        y_sector = h - box_h - fm.height() - 8
        shown = sectors[:WARP]
        sec_w = (w - 2 * margin) / max(1, len(shown))
        sector_x = {s: margin + (i + 0.5) * sec_w for i, s in enumerate(shown)}
        active = dict(zip(req["lanes"], req["sectors"], strict=True))
        for lane in range(WARP):
            x = margin + lane * lane_w
            on = lane in active
            painter.setBrush(QColor("#4c72b0") if on else QColor("#dddddd"))
            painter.setPen(Qt.PenStyle.NoPen)
            painter.drawRect(QRectF(x + 1, y_lane, lane_w - 2, box_h))
            if on and active[lane] in sector_x:
                painter.setPen(QPen(QColor(76, 114, 176, 160), 1.2))
                painter.drawLine(
                    QPointF(x + lane_w / 2, y_lane + box_h), QPointF(sector_x[active[lane]], y_sector)
                )
        painter.setPen(fg)
        for s, x in sector_x.items():
            painter.setBrush(QColor("#f0c060"))
            painter.drawRect(QRectF(x - sec_w / 2 + 1, y_sector, sec_w - 2, box_h))
            label = f"{s}"
            if fm.horizontalAdvance(label) < sec_w - 2:
                painter.drawText(
                    QRectF(x - sec_w / 2, y_sector, sec_w, box_h), Qt.AlignmentFlag.AlignCenter, label
                )
        painter.drawText(
            4, h - 4, f"lanes 0–31 (blue: active) above; 32-byte sectors of {req['array']} (by number) below"
        )
        painter.end()

    def _paint_banks(self, painter: QPainter, fg: QColor, fm: Any, req: dict[str, Any]) -> None:
        """Lanes above, the 32 banks below (each with the distinct words it holds in this
        request), a line from each active lane to every bank its element covers."""
        w, h = self.width(), self.height()
        waves = req["wavefronts"]
        verdict = "no bank conflict" if waves == req["least_wavefronts"] else f"a {waves}-way bank conflict"
        painter.drawText(
            4,
            fm.ascent() + 2,
            f"{self.title}: warp {req['warp']}, {len(req['lanes'])} active lanes → "
            f"{waves} wavefront{'s' if waves != 1 else ''} ({verdict})",
        )
        margin, y_lane = 8, fm.height() + 14
        col_w = (w - 2 * margin) / WARP
        box_h = max(14, fm.height() + 2)
        y_bank = h - box_h - fm.height() - 8
        banks_of = dict(zip(req["lanes"], req["banks"], strict=True))
        for lane in range(WARP):
            x = margin + lane * col_w
            on = lane in banks_of
            painter.setBrush(QColor("#4c72b0") if on else QColor("#dddddd"))
            painter.setPen(Qt.PenStyle.NoPen)
            painter.drawRect(QRectF(x + 1, y_lane, col_w - 2, box_h))
            for bank in banks_of.get(lane, []):
                painter.setPen(QPen(QColor(76, 114, 176, 160), 1.2))
                painter.drawLine(
                    QPointF(x + col_w / 2, y_lane + box_h), QPointF(margin + (bank + 0.5) * col_w, y_bank)
                )
        for bank, count in enumerate(req["words_per_bank"]):
            x = margin + bank * col_w
            # red: more words than the request needs passes for (1; 2 for a warp of 8-byte elements)
            colour = "#eeeeee" if count == 0 else "#e06040" if count > req["least_wavefronts"] else "#f0c060"
            painter.setPen(fg)
            painter.setBrush(QColor(colour))
            painter.drawRect(QRectF(x + 1, y_bank, col_w - 2, box_h))
            label = str(count) if count else ""
            if label and fm.horizontalAdvance(label) < col_w - 2:
                painter.drawText(QRectF(x, y_bank, col_w, box_h), Qt.AlignmentFlag.AlignCenter, label)
        painter.setPen(fg)
        painter.drawText(
            4,
            h - 4,
            f"lanes 0–31 (blue: active) above; banks 0–31 of {req['array']} below, with the distinct "
            "4-byte words each holds, one per wavefront (red: a conflict)",
        )


class ArraysPanel(QWidget):
    """Every array of the run as a map, with the colouring and the 1-D row width."""

    elementClicked = Signal(int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.color = QComboBox(objectName="kernelColorBy")
        self.color.addItems(list(COLOR_MODES))
        # Not `width`: that would hide QWidget.width().
        self.rowWidth = QSpinBox(objectName="kernelRowWidth")
        self.rowWidth.setRange(1, 1 << 20)
        self.rowWidth.setToolTip("1-D arrays are drawn in rows of this many elements (blockDim.x by default)")
        head = QHBoxLayout()
        head.addWidget(QLabel("Colour by"))
        head.addWidget(self.color)
        head.addWidget(QLabel("1-D row width"))
        head.addWidget(self.rowWidth)
        head.addStretch(1)
        # One line under the controls (cut at the edge rather than wrapped: the maps keep the height).
        self.legend = QLabel(objectName="kernelArraysLegend")
        self.legend.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.grid = QHBoxLayout()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(head)
        layout.addWidget(self.legend)
        layout.addLayout(self.grid, 1)
        self.views: list[ArrayView] = []
        self.data: TraceData | None = None
        self.color.currentIndexChanged.connect(self.redraw)
        self.rowWidth.valueChanged.connect(self.redraw)

    def show_data(self, data: TraceData | None) -> None:
        """The maps of ``data``'s arrays; None clears them (a failed run shows no stale maps)."""
        self.data = data
        for v in self.views:
            self.grid.removeWidget(v)
            v.deleteLater()
        self.views = []
        if data is None:
            return
        for aid, info in enumerate(data.result.arrays):
            if info.space == SHARED:  # one copy per block: no single map to draw
                continue
            view = ArrayView(aid)
            view.elementClicked.connect(self.elementClicked)
            self.grid.addWidget(view, 1)
            self.views.append(view)
        with QSignalBlocker(self.rowWidth):
            self.rowWidth.setValue(max(1, data.result.block[0]))
        self.redraw()

    def redraw(self) -> None:
        if self.data is None:
            return
        # With a window the maps show only its threads' accesses: say so where the grey is read.
        by = " by the window's threads" if self.data.result.window is not None else ""
        self.legend.setText(f"grey: untouched{by}; red: stored by more than one thread")
        for v in self.views:
            v.show_array(self.data, self.color.currentText(), self.rowWidth.value())

    def mark_thread(self, t: int | None) -> None:
        if self.data is None:
            return
        for v in self.views:
            if t is None:
                v.mark(np.zeros(0, np.int64))
                continue
            rows = np.nonzero((self.data.thread == t) & (self.data.array == v.aid) & ~self.data.oob)[0]
            v.mark(self.data.flat[v.aid][rows])
