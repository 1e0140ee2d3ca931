"""The index map's cells under the mouse: which thread a point is, its tooltip, hover and click.

``MapCells`` is a part of ``IndexMap`` (``indexMap.cells``), made and owned by it: it reads the
map's tiles, images and recording, and says what it found through the map's signals
(``tooltipChanged``, ``cellHovered``) and ``pin``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QToolTip

from simtviz.core.formulas import tooltip_lines
from simtviz.core.recording import Recording
from simtviz.qt.map.items import Cell

if TYPE_CHECKING:
    from simtviz.qt.map.parts import MapState


class MapCells:
    """Cell lookup, tooltips and clicks of one index map."""

    def __init__(self, index_map: MapState) -> None:
        self._map = index_map
        self.tooltip = ""  # the hover text now shown, "" when none
        self.hovered: Cell | None = None
        self._hover_pos = QPoint()

    def cell_at(self, view_x: float, view_y: float) -> Cell | None:
        """The cell under view coordinates (x, y), or None."""
        shape = self._map._shape
        if shape is None:
            return None
        _, rows, cols = shape
        for tile in self._map._tiles:
            c = math.floor(view_x - tile.origin[0] + 0.5)
            r = math.floor(view_y - tile.origin[1] + 0.5)
            if 0 <= r < rows and 0 <= c < cols:
                return Cell(tile.plane, r, c)
        return None

    def view_pos(self, cell: Cell) -> QPoint:
        """Where ``cell``'s centre is in the map's view (widget pixels): for tests and scripts."""
        m = self._map
        for tile in m._tiles:
            if tile.plane == cell.plane:
                scene = m.plot.vb.mapViewToScene(
                    QPointF(tile.origin[0] + cell.col, tile.origin[1] + cell.row)
                )
                return m.view.mapFromScene(scene)
        raise ValueError(f"plane {cell.plane} is not shown")

    def row_of(self, cell: Cell) -> int:
        rec = self._map.recording
        assert rec is not None
        return rec.row_of(cell.plane, cell.row, cell.col)

    def thread_of(self, cell: Cell) -> dict[str, Any] | None:
        """``cell``'s record, or None while the session fetches it (``threadArrived``)."""
        rec, session = self._map.recording, self._map._session
        assert rec is not None
        row = self.row_of(cell)
        if session is not None:
            return session.thread_record(row)
        return rec.thread_at(row)

    def tooltip_for(self, cell: Cell) -> str:
        rec = self._map.recording
        assert rec is not None
        image = self._map._images.get(cell.plane)
        value = "…" if image is None else str(int(image[cell.row, cell.col]))
        return "<br>".join(tooltip_lines(rec, self._map.color_field(), value, self.thread_of(cell)))

    def _set_tooltip(self, text: str) -> None:
        if text != self.tooltip:
            self.tooltip = text
            self._map.tooltipChanged.emit(text)

    def hover(self, cell: Cell | None, global_pos: QPoint | None = None) -> str:
        """Show the tooltip for ``cell`` (None hides it); returns its text."""
        self.hovered = cell
        if cell is None:
            self._set_tooltip("")
            QToolTip.hideText()
        else:
            self._hover_pos = global_pos or QCursor.pos()
            text = self.tooltip_for(cell)  # host records answer at once, through on_thread_arrived
            self._set_tooltip(text)
            QToolTip.showText(self._hover_pos, text, self._map.view)
        self._map.cellHovered.emit(cell)
        return self.tooltip

    def on_thread_arrived(self, recording: Recording, row: int, _thread: dict[str, Any]) -> None:
        """A thread's record arrived: rewrite the hovered cell's tooltip if it is that thread."""
        cell = self.hovered
        if recording is not self._map.recording or cell is None or self.row_of(cell) != row:
            return
        self._set_tooltip(self.tooltip_for(cell))
        if QToolTip.isVisible():
            QToolTip.showText(self._hover_pos, self.tooltip, self._map.view)
        self._map.cellHovered.emit(cell)

    def on_mouse_moved(self, scene_pos: QPointF) -> None:
        m = self._map
        if not m._tiles or not m.plot.sceneBoundingRect().contains(scene_pos):
            return
        point = m.plot.vb.mapSceneToView(scene_pos)
        cell = self.cell_at(point.x(), point.y())
        self.hover(cell, m.view.mapToGlobal(m.view.mapFromScene(scene_pos)))

    def on_mouse_clicked(self, event: Any) -> None:
        m = self._map
        if event.button() != Qt.MouseButton.LeftButton or not m._tiles:
            return
        point = m.plot.vb.mapSceneToView(event.scenePos())
        cell = self.cell_at(point.x(), point.y())
        if cell is not None:
            m.pin(cell)
