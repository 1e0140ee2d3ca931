"""One graphics item that draws every block of a schedule as a bar: fast for 100k blocks.

The bars are grouped by colour and painted into one ``QPicture`` with ``drawRects``, so the view
repaints a single recorded picture on pan and zoom instead of 100k items. Each bar also gets a
cosmetic 1-pixel outline of its own colour: a block whose lane is thinner than a pixel (132 SMs ×
32 resident blocks in 700 pixels) still shows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QBrush, QColor, QPainter, QPen, QPicture

# Distinct colours for waves (Okabe-Ito, readable by colour-blind viewers), cycled after eight.
WAVE_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
# Blocks coloured by index: this many steps of a sequential colour map (enough to see the order).
INDEX_STEPS = 24
BAR_FILL = 0.8  # of a lane's height: the gap separates lanes when zoomed in


def wave_colour(wave: int) -> str:
    return WAVE_COLOURS[wave % len(WAVE_COLOURS)]


def index_colours(steps: int = INDEX_STEPS) -> list[str]:
    cmap = pg.colormap.get("viridis")
    return [cmap.map(i / max(steps - 1, 1), mode="qcolor").name() for i in range(steps)]


class GanttItem(pg.GraphicsObject):
    """Bars ``[x0, x1) × [y0, y1)`` in view coordinates, each with a colour index into ``colours``."""

    def __init__(self) -> None:
        super().__init__()
        self._picture = QPicture()
        self._rect = QRectF()
        self._count = 0

    def set_bars(
        self,
        x0: np.ndarray,
        x1: np.ndarray,
        y0: np.ndarray,
        y1: np.ndarray,
        colour: np.ndarray,
        colours: list[str],
    ) -> None:
        self.prepareGeometryChange()
        picture = QPicture()
        painter = QPainter(picture)
        for index, name in enumerate(colours):
            rows = np.flatnonzero(colour == index)
            if len(rows) == 0:
                continue
            pen = QPen(QColor(name))
            pen.setCosmetic(True)
            pen.setWidth(1)
            painter.setPen(pen)
            painter.setBrush(QBrush(QColor(name)))
            rects = [
                QRectF(a, b, w, h)
                for a, b, w, h in zip(
                    x0[rows].tolist(),
                    y0[rows].tolist(),
                    (x1[rows] - x0[rows]).tolist(),
                    (y1[rows] - y0[rows]).tolist(),
                    strict=True,
                )
            ]
            painter.drawRects(rects)
        painter.end()
        self._picture = picture
        self._count = len(x0)
        if len(x0):
            self._rect = QRectF(
                QPointF(float(x0.min()), float(y0.min())), QPointF(float(x1.max()), float(y1.max()))
            )
        else:
            self._rect = QRectF()
        self.update()

    def bar_count(self) -> int:
        return self._count

    def paint(self, painter: QPainter, *_args: Any) -> None:
        painter.drawPicture(0, 0, self._picture)

    def boundingRect(self) -> QRectF:
        return QRectF(self._rect)
