"""pyqtgraph items of the index map: the cell image, the value text and the block borders."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen

from simtviz.qt.map.colours import light_text_mask

# Block borders closer than this on screen are not drawn: they would merge into a grey smear. So
# at most (view width + height) / this many lines are drawn, whatever the size of the map.
MIN_BORDER_SPACING_PX = 4.0
MAX_TEXT_CELLS = 3000  # value text is drawn only when this few cells are visible


class CellImageItem(pg.ImageItem):
    """An ImageItem that shows maps larger than the screen by picking cells, not averaging them.

    pyqtgraph's autoDownsample averages colours: a 4096 × 4096 map costs ~0.5 s per paint and
    mixes the colours of neighbouring ids into ones no thread recorded. Striding keeps every shown
    pixel a real cell's colour and costs a view; zooming in still shows every cell.
    """

    # pyqtgraph's own attributes (it has no type hints).
    image: np.ndarray | None
    autoDownsample: bool

    def render(self) -> None:
        if not self.autoDownsample or self.image is None:
            super().render()
            return
        xds, yds = self._computeDownsampleFactors()
        if xds is None:
            return
        full = self.image
        self.image, self.autoDownsample = full[::yds, ::xds], False
        try:
            super().render()
        finally:
            self.image, self.autoDownsample = full, True
        self._lastDownsample = (xds, yds)


class CellTextItem(pg.GraphicsObject):
    """Writes each visible cell's value in it, once cells are big enough on screen to hold it.

    Text is drawn in device pixels (the painter's transform reset), so it stays crisp at any
    zoom and grows with the cells: big cells, big numbers for the back of the room.
    """

    def __init__(self) -> None:
        super().__init__()
        self._values: np.ndarray | None = None
        self._white: np.ndarray | None = None
        self._origin = (0.0, 0.0)
        self._rect = QRectF()
        self._digits = 1
        self.font = QFont()
        self.font.setBold(True)

    def set_data(self, values: np.ndarray, rgb: np.ndarray, origin: tuple[float, float]) -> None:
        """``rgb``: the cells' colours; text colour is worked out only for cells shown with text."""
        self.prepareGeometryChange()
        self._values, self._white, self._origin = values, rgb, origin
        rows, cols = values.shape
        self._rect = QRectF(origin[0] - 0.5, origin[1] - 0.5, cols, rows)
        lo, hi = (int(values.min()), int(values.max())) if values.size else (0, 0)
        self._digits = len(str(max(abs(lo), abs(hi)))) + (1 if lo < 0 else 0)
        self.update()

    def boundingRect(self) -> QRectF:
        return self._rect

    def paint(self, painter: QPainter, *args: Any) -> None:
        values, rgb = self._values, self._white
        vb = self.getViewBox()
        if values is None or rgb is None or vb is None:
            return
        t = painter.transform()
        cell_w, cell_h = abs(t.m11()), abs(t.m22())
        font = QFont(self.font)
        font_px = int(min(cell_h * 0.5, 64))
        if font_px < 8:
            return
        font.setPixelSize(font_px)
        # Shrink until the widest value fits its cell, with a little margin either side.
        widest = QFontMetricsF(font).horizontalAdvance("8" * self._digits)
        if widest > cell_w - 6:
            font_px = int(font_px * (cell_w - 6) / widest)
            if font_px < 8:
                return
            font.setPixelSize(font_px)
        ox, oy = self._origin
        view = vb.viewRect()
        rows, cols = values.shape
        c0 = max(0, math.floor(view.left() - ox + 0.5))
        c1 = min(cols, math.ceil(view.right() - ox + 0.5))
        r0 = max(0, math.floor(view.top() - oy + 0.5))
        r1 = min(rows, math.ceil(view.bottom() - oy + 0.5))
        if c1 <= c0 or r1 <= r0 or (c1 - c0) * (r1 - r0) > MAX_TEXT_CELLS:
            return
        white = np.zeros(values.shape, dtype=bool)
        white[r0:r1, c0:c1] = light_text_mask(rgb[r0:r1, c0:c1])
        painter.save()
        painter.resetTransform()
        painter.setFont(font)
        black, whitepen = QPen(QColor(0, 0, 0)), QPen(QColor(255, 255, 255))
        for r in range(r0, r1):
            for c in range(c0, c1):
                centre = t.map(QPointF(ox + c, oy + r))
                box = QRectF(centre.x() - cell_w / 2, centre.y() - cell_h / 2, cell_w, cell_h)
                painter.setPen(whitepen if white[r, c] else black)
                painter.drawText(box, Qt.AlignmentFlag.AlignCenter, str(int(values[r, c])))
        painter.restore()


class BlockBorderItem(pg.GraphicsObject):
    """Block borders of one tile, drawn for the part in view and only where they can be told apart.

    A map of 2^24 threads has millions of block edges; a curve through all of them is slow to
    build and draws as a smear. Here each paint works out the edges inside the visible range, and
    draws the inner ones only when neighbouring edges are at least ``MIN_BORDER_SPACING_PX``
    apart on screen, so the count stays bounded by the view's size; zooming in shows them all.
    The tile's outline is always drawn. The pen is cosmetic: the same width at any zoom.
    """

    def __init__(self, pen: QPen) -> None:
        super().__init__()
        self.set_pen(pen)
        self._rect = QRectF()
        self._x = (1.0, 0.0)  # (step, first edge offset) in cells, along x
        self._y = (1.0, 0.0)
        self.last_line_count = 0  # lines drawn by the last paint: for tests and benchmarks
        self.last_resolved = (True, True)  # whether inner x/y edges were drawn

    def set_pen(self, pen: QPen) -> None:
        self.pen = QPen(pen)
        self.pen.setCosmetic(True)
        self.update()

    def set_grid(self, rect: QRectF, step_x: int, first_x: int, step_y: int, first_y: int) -> None:
        self.prepareGeometryChange()
        self._rect = QRectF(rect)
        self._x, self._y = (float(max(1, step_x)), float(first_x)), (float(max(1, step_y)), float(first_y))
        self.update()

    def boundingRect(self) -> QRectF:
        return self._rect.adjusted(-1, -1, 1, 1)

    @staticmethod
    def _edges(lo: float, hi: float, origin: float, step: float, first: float) -> np.ndarray:
        start = math.ceil((lo - origin - first) / step)
        stop = math.floor((hi - origin - first) / step)
        if stop < start:
            return np.empty(0)
        return origin + first + step * np.arange(start, stop + 1, dtype=float)

    def paint(self, painter: QPainter, *args: Any) -> None:
        vb = self.getViewBox()
        rect = self._rect
        if vb is None or rect.isEmpty():
            return
        view = vb.viewRect().intersected(rect)
        t = painter.transform()
        px_x, px_y = abs(t.m11()) + abs(t.m21()), abs(t.m22()) + abs(t.m12())
        lines = [
            QLineF(rect.topLeft(), rect.topRight()),
            QLineF(rect.bottomLeft(), rect.bottomRight()),
            QLineF(rect.topLeft(), rect.bottomLeft()),
            QLineF(rect.topRight(), rect.bottomRight()),
        ]
        resolved_x = self._x[0] * px_x >= MIN_BORDER_SPACING_PX
        resolved_y = self._y[0] * px_y >= MIN_BORDER_SPACING_PX
        if not view.isEmpty():
            top, bottom = max(view.top(), rect.top()), min(view.bottom(), rect.bottom())
            left, right = max(view.left(), rect.left()), min(view.right(), rect.right())
            if resolved_x:
                for x in self._edges(view.left(), view.right(), rect.left(), *self._x):
                    lines.append(QLineF(x, top, x, bottom))
            if resolved_y:
                for y in self._edges(view.top(), view.bottom(), rect.top(), *self._y):
                    lines.append(QLineF(left, y, right, y))
        painter.setPen(self.pen)
        painter.drawLines(lines)
        self.last_line_count = len(lines)
        self.last_resolved = (resolved_x, resolved_y)


@dataclass
class Tile:
    """One z-plane drawn at an offset: its image, value text, block borders and caption."""

    plane: int
    origin: tuple[float, float]
    image: pg.ImageItem
    text: CellTextItem
    borders: BlockBorderItem
    caption: pg.TextItem | None


@dataclass(frozen=True, slots=True)
class Cell:
    plane: int
    row: int
    col: int


class PinRing(pg.ScatterPlotItem):
    """The pinned thread: a square ring of fixed screen size around its cell, thick in
    presentation mode, so it is seen from the back of a room however small the cell is drawn."""

    SIZE_PX = (22, 44)  # normal, presentation
    PEN_PX = (3, 6)

    def __init__(self) -> None:
        super().__init__(pxMode=True, symbol="s", brush=None)
        self.setZValue(31)
        self.setVisible(False)

    def set_style(self, color: str, presentation: bool) -> None:
        self.setSize(self.SIZE_PX[presentation])
        self.setPen(pg.mkPen(color, width=self.PEN_PX[presentation]))

    def describe(self) -> tuple[float, float, bool]:
        """(size in screen pixels, pen width, visible)."""
        return (float(self.opts["size"]), float(self.opts["pen"].widthF()), self.isVisible())


def border_pen(colour: str, presentation: bool) -> QPen:
    """Block borders: thicker in presentation mode, to be seen from the back of the room."""
    return pg.mkPen(colour, width=3 if presentation else 2)


def caption_font(presentation: bool) -> QFont:
    """A z-plane tile's caption."""
    font = QFont()
    font.setPointSize(14 if presentation else 10)
    font.setBold(True)
    return font


def restyle_tiles(tiles: list[Tile], border: str, presentation: bool) -> None:
    """Drawn tiles in another palette or mode: their borders and captions, nothing recoloured."""
    for tile in tiles:
        tile.borders.set_pen(border_pen(border, presentation))
        if tile.caption is not None:
            tile.caption.setFont(caption_font(presentation))


def quiet_unlabelled_axes(*plots: pg.PlotItem) -> None:
    """Turn off pyqtgraph's automatic SI prefix on the axes of ``plots`` that show no label (the
    hidden top and right axes, a colour bar's): it applies only to a shown label, and it renders
    the empty label's HTML again at every range change (each resize, pan or zoom)."""
    for plot in plots:
        for name in ("top", "right", "left", "bottom"):
            axis = plot.getAxis(name) if name in plot.axes else None
            if axis is not None and not isinstance(axis, IntegerAxis) and not axis.label.isVisible():
                axis.enableAutoSIPrefix(False)


class IntegerAxis(pg.AxisItem):
    """An axis over whole rows or columns: tick spacings of at least 1, labels without decimals,
    ticks only from the map's first row (column) to its last (``set_bounds``)."""

    bounds: tuple[float, float] | None = None
    _label_html: str | None = None
    _range_change = False

    def updateAutoSIPrefix(self) -> None:
        # pyqtgraph renders the label's HTML again at every range change (each resize, pan or
        # zoom: ~1 ms each, a dozen per presentation toggle): only when its text changed.
        self._range_change = True
        try:
            super().updateAutoSIPrefix()
        finally:
            self._range_change = False

    def _updateLabel(self) -> None:
        html = self.labelString()
        if self._range_change and html == self._label_html:
            self.picture = None
            self.update()
            return
        self._label_html = html
        super()._updateLabel()

    def set_bounds(self, lo: float, hi: float) -> None:
        self.bounds = (lo, hi)
        self.picture = None  # pyqtgraph redraws the axis from scratch
        self.update()

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list[tuple[float, list[float]]]:
        levels = super().tickValues(minVal, maxVal, size)
        if self.bounds is None:
            return levels
        lo, hi = self.bounds
        return [(spacing, [v for v in values if lo <= v <= hi]) for spacing, values in levels]

    def tickSpacing(self, minVal: float, maxVal: float, size: float) -> list[tuple[float, float]]:
        levels = super().tickSpacing(minVal, maxVal, size)
        whole = [(max(1.0, round(spacing)), offset) for spacing, offset in levels if spacing >= 1]
        return whole or [(1.0, 0.0)]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        return [str(round(v * scale)) for v in values]
