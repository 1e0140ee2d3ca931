"""The index map: the widget (``IndexMap``), its pyqtgraph items and its colours."""

from simtviz.qt.map.colours import colorize
from simtviz.qt.map.items import MIN_BORDER_SPACING_PX, Cell
from simtviz.qt.map.widget import IndexMap

__all__ = ["MIN_BORDER_SPACING_PX", "Cell", "IndexMap", "colorize"]
