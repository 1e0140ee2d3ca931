"""What the index map's parts (``MapCells``, ``MapLabels``) read of the map that owns them.

A protocol, so that the parts need not import the widget (``IndexMap`` satisfies it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np

    from simtviz.core.recording import Recording
    from simtviz.qt.map.items import Cell, Tile
    from simtviz.qt.session import RunSession
    from simtviz.qt.theme import Palette


class MapState(Protocol):
    """The index map as its parts see it: what is drawn, where, and in which style."""

    plot: Any  # pyqtgraph's PlotItem
    view: Any  # pyqtgraph's GraphicsLayoutWidget
    legend: Any  # pyqtgraph's LabelItem
    tooltipChanged: Any  # Signal(str)
    cellHovered: Any  # Signal(object)

    @property
    def _shape(self) -> tuple[int, int, int] | None: ...
    @property
    def _tiles(self) -> list[Tile]: ...
    @property
    def _images(self) -> dict[int, np.ndarray]: ...
    @property
    def _levels(self) -> tuple[float, float]: ...
    @property
    def _session(self) -> RunSession | None: ...
    @property
    def _palette(self) -> Palette: ...
    @property
    def _presentation(self) -> bool: ...
    @property
    def recording(self) -> Recording | None: ...
    def color_field(self) -> str: ...
    def plane(self) -> int: ...
    def is_tiled(self) -> bool: ...
    def pin(self, cell: Cell) -> None: ...
