"""The index map's cells under the mouse: which thread a point is, its tooltip, hover and click.

A mixin of ``IndexMap`` (it uses the map's tiles, recording, images and session).
"""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QToolTip

from simtviz.core.formulas import tooltip_lines
from simtviz.core.recording import Recording
from simtviz.qt.map.items import Cell


class CellsMixin:
    """Cell lookup, tooltips and clicks of the index map."""

    _tiles: Any
    _shape: Any
    _recording: Any
    _images: Any
    _session: Any
    _tooltip: str
    _field: str
    _hovered: Any
    _hover_pos: Any
    plot: Any
    view: Any
    tooltipChanged: Any
    cellHovered: Any
    pin: Any

    def cell_at(self, view_x: float, view_y: float) -> Cell | None:
        """The cell under view coordinates (x, y), or None."""
        if self._shape is None:
            return None
        _, rows, cols = self._shape
        for tile in self._tiles:
            c = math.floor(view_x - tile.origin[0] + 0.5)
            r = math.floor(view_y - tile.origin[1] + 0.5)
            if 0 <= r < rows and 0 <= c < cols:
                return Cell(tile.plane, r, c)
        return None

    def cell_view_pos(self, cell: Cell) -> QPoint:
        """Where ``cell``'s centre is in ``self.view`` (widget pixels): for tests and scripts."""
        for tile in self._tiles:
            if tile.plane == cell.plane:
                scene = self.plot.vb.mapViewToScene(
                    QPointF(tile.origin[0] + cell.col, tile.origin[1] + cell.row)
                )
                return self.view.mapFromScene(scene)
        raise ValueError(f"plane {cell.plane} is not shown")

    def row_of(self, cell: Cell) -> int:
        assert self._recording is not None
        return self._recording.row_of(cell.plane, cell.row, cell.col)

    def thread_of(self, cell: Cell) -> dict[str, Any] | None:
        """``cell``'s record, or None while the session fetches it (``threadArrived``)."""
        rec = self._recording
        assert rec is not None
        row = self.row_of(cell)
        if self._session is not None:
            return self._session.thread_record(row)
        return rec.thread_at(row)

    def tooltip_for(self, cell: Cell) -> str:
        rec = self._recording
        assert rec is not None
        image = self._images.get(cell.plane)
        value = "…" if image is None else str(int(image[cell.row, cell.col]))
        return "<br>".join(tooltip_lines(rec, self._field, value, self.thread_of(cell)))

    def tooltip(self) -> str:
        """The hover text now shown, "" when none."""
        return self._tooltip

    def _set_tooltip(self, text: str) -> None:
        if text != self._tooltip:
            self._tooltip = text
            self.tooltipChanged.emit(text)

    def hover(self, cell: Cell | None, global_pos: QPoint | None = None) -> str:
        """Show the tooltip for ``cell`` (None hides it); returns its text."""
        self._hovered = cell
        if cell is None:
            self._set_tooltip("")
            QToolTip.hideText()
        else:
            self._hover_pos = global_pos or QCursor.pos()
            text = self.tooltip_for(cell)  # host records answer at once, through _on_thread_arrived
            self._set_tooltip(text)
            QToolTip.showText(self._hover_pos, text, self.view)
        self.cellHovered.emit(cell)
        return self._tooltip

    def hovered(self) -> Cell | None:
        return self._hovered

    def _on_thread_arrived(self, recording: Recording, row: int, _thread: dict[str, Any]) -> None:
        """A thread's record arrived: rewrite the hovered cell's tooltip if it is that thread."""
        cell = self._hovered
        if recording is not self._recording or cell is None or self.row_of(cell) != row:
            return
        self._set_tooltip(self.tooltip_for(cell))
        if QToolTip.isVisible():
            QToolTip.showText(self._hover_pos, self._tooltip, self.view)
        self.cellHovered.emit(cell)

    def _on_mouse_moved(self, scene_pos: QPointF) -> None:
        if not self._tiles or not self.plot.sceneBoundingRect().contains(scene_pos):
            return
        point = self.plot.vb.mapSceneToView(scene_pos)
        cell = self.cell_at(point.x(), point.y())
        global_pos = self.view.mapToGlobal(self.view.mapFromScene(scene_pos))
        self.hover(cell, global_pos)

    def _on_mouse_clicked(self, event: Any) -> None:
        if event.button() != Qt.MouseButton.LeftButton or not self._tiles:
            return
        point = self.plot.vb.mapSceneToView(event.scenePos())
        cell = self.cell_at(point.x(), point.y())
        if cell is not None:
            self.pin(cell)
