"""One frame per change: a widget's painting held while its layouts settle (issue 21).

A presentation toggle or a tab switch relays out a page in several passes, one per turn of the
event loop (a font change resizes labels, the new sizes move splitters, pyqtgraph lays its axes
out from the new fonts...), and the window painted after each pass: the index map five times per
toggle, each frame 20–40 ms of CPU at 1920 × 1080. ``Settle.hold()`` turns the widget's updates
off until a turn of the event loop brings no layout request (or ``MAX_TURNS`` turns went by),
then paints it once.
"""

from __future__ import annotations

import sys
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QSize, QTimer
from PySide6.QtGui import QPainter, QPicture
from PySide6.QtWidgets import QTabWidget, QWidget

# Layout passes seen per change: 2–5; a widget that keeps asking must not stay frozen.
MAX_TURNS = 8
MAX_LEVELS = 16  # a page's depth in widgets, and more
_SETTLING = (QEvent.Type.LayoutRequest, QEvent.Type.Resize)


class Settle(QObject):
    """Holds ``widget``'s painting while layouts settle; owned by ``widget``."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self._widget = widget
        self._timer = QTimer(self)
        self._timer.setInterval(0)  # once per turn of the event loop
        self._timer.timeout.connect(self._turn)
        self._busy = False  # a layout request or resize since the last turn
        self._turns = 0
        self._requests = 0  # layout requests seen while holding

    def holding(self) -> bool:
        return self._timer.isActive()

    def hold(self) -> None:
        """Stop painting ``widget`` until its layouts are settled."""
        self._busy, self._turns = True, 0
        if self._timer.isActive():
            return
        app = QCoreApplication.instance()
        if app is None or not self._widget.isVisible():
            return
        app.installEventFilter(self)
        self._widget.setUpdatesEnabled(False)
        self._timer.start()

    def release(self) -> None:
        """Paint now (the window closes, or the layouts are settled)."""
        if not self._timer.isActive():
            return
        self._timer.stop()
        app = QCoreApplication.instance()
        if app is not None:
            app.removeEventFilter(self)
        self._widget.setUpdatesEnabled(True)  # repaints the widget, once

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in _SETTLING:
            self._busy = True
            if kind == QEvent.Type.LayoutRequest:
                self._requests += 1
        return False

    def _turn(self) -> None:
        self._turns += 1
        # A layout request reaches the parent's layout in the next turn of the event loop: a
        # size hint changed deep in a page climbs one level per turn (Your kernel's maps: seven
        # turns to the tab widget), each level moving nothing. Delivered now, all levels.
        for _ in range(MAX_LEVELS):
            seen = self._requests
            QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
            if self._requests == seen:
                break
        if not self._busy and measure_plots(self._widget):
            self._busy = True  # an axis took a new width, a line new bounds: one more turn first
        if not self._busy or self._turns >= MAX_TURNS:
            self.release()
        self._busy = False


def measure_plots(root: QWidget) -> bool:
    """Do, ahead of the paint, what painting the pyqtgraph plots shown in ``root`` would do and
    would then paint again for: draw the axes that have no picture yet, and work out the bounds of
    the infinite lines. True when one of them changed its size (an axis its width or height for
    its labels, a line its bounds).

    pyqtgraph measures an axis's tick labels only while painting it, and when they need more
    (or much less) room than before (a new font size, other ticks after a resize) it resizes the
    axis then: its plot lays out again and paints a second and a third time, after the frame
    (the index map 13–18 ms each at 1920 × 1080). An ``InfiniteLine`` (the occupancy chart's
    "this launch" marker) works its bounds out when the paint first asks for them after the view
    changed, and announces the change then: the chart painted twice per presentation toggle.
    Measured here, while the page is held, the layout settles first; the picture made is the one
    the paint would make, so it is kept, and so are the bounds.
    """
    pg = sys.modules.get("pyqtgraph")
    if pg is None:
        return False  # no plot made yet
    changed = False
    for view in root.findChildren(pg.GraphicsView):
        scene = view.scene()
        if not view.isVisible() or scene is None:
            continue
        # What the paint does first: a view box set to follow its data ranges itself now, so the
        # axes are drawn (and the lines bounded) for the range they will show.
        scene.prepareForPaint()
        for item in scene.items():
            if not item.isVisible():
                continue
            if isinstance(item, pg.AxisItem) and item.picture is None:
                changed |= _draw_axis(item)
            elif isinstance(item, pg.InfiniteLine):
                changed |= _bound_line(item)
    return changed


def _bound_line(line: Any) -> bool:
    """Work out ``line``'s bounds now, as its first paint since the view changed would; True when
    they changed (pyqtgraph 0.13–0.14 caches them until the view's transform changes)."""
    before = getattr(line, "_bounds", None)
    line.boundingRect()
    return bool(line._bounds != before)


def _draw_axis(axis: Any) -> bool:
    """What ``AxisItem.paint`` does before it plays the picture (pyqtgraph 0.13–0.14)."""
    room = (axis.textWidth, axis.textHeight)
    picture = QPicture()
    painter = QPainter(picture)
    try:
        if axis.style["tickFont"]:
            painter.setFont(axis.style["tickFont"])
        specs = axis.generateDrawSpecs(painter)
        if specs is not None:
            axis.drawPicture(painter, *specs)
    finally:
        painter.end()
    if (axis.textWidth, axis.textHeight) != room:
        return True  # resized: its picture is drawn again at the new size
    axis.picture = picture
    return False


class StillTabs(QObject):
    """Keeps a ``QTabWidget`` from repainting all of itself when a layout request changes
    nothing it lays out.

    A tab widget answers every layout request (a page's size hint changed: a font, a label's new
    text, pyqtgraph's axes measuring their ticks after a paint, a hidden page restyled) by placing
    its tab bar and page again and repainting the whole widget: at 1920 × 1080 one more frame of
    every widget on the page, 30–50 ms of CPU, up to five times per presentation toggle. The page
    lays itself out without it (its own layout) and asks for its own repaints; the tab widget's
    placement depends only on its size and its tab bar's size hint. So a request that finds both
    as they were is answered with ``updateGeometry()`` alone (the window still learns a new
    minimum size, when it changed) and the repaint is skipped. Owned by the tab widget.
    """

    def __init__(self, tabs: QTabWidget) -> None:
        super().__init__(tabs)
        self._tabs = tabs
        self._placed: tuple[QSize, QSize] | None = None
        self._hints: tuple[QSize, QSize] | None = None  # the size hints the window last had
        self.skipped = 0  # layout requests answered without a repaint (tests)
        tabs.installEventFilter(self)

    def _state(self) -> tuple[QSize, QSize]:
        return self._tabs.size(), self._tabs.tabBar().sizeHint()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._tabs and event.type() == QEvent.Type.LayoutRequest:
            state = self._state()
            if state == self._placed and self._tabs.isVisible():
                self.skipped += 1
                hints = (self._tabs.minimumSizeHint(), self._tabs.sizeHint())
                if hints != self._hints:  # the window learns the new minimum size
                    self._hints = hints
                    self._tabs.updateGeometry()
                return True
            self._placed = state
            self._hints = None  # Qt tells the window itself this time
        elif watched is self._tabs and event.type() == QEvent.Type.Resize:
            self._placed = self._state()  # it places its parts on a resize, from these
            self._hints = None  # and tells the window its size hints
        elif watched is self._tabs and event.type() == QEvent.Type.Show:
            self._placed = None  # placed while hidden, perhaps not at all
        return False
