"""One frame per change: a widget's painting held while its layouts settle (issue 21).

A presentation toggle or a tab switch relays out a page in several passes, one per turn of the
event loop (a font change resizes labels, the new sizes move splitters, pyqtgraph lays its axes
out from the new fonts...), and the window painted after each pass: the index map five times per
toggle, each frame 20–40 ms of CPU at 1920 × 1080. ``Settle.hold()`` turns the widget's updates
off until a turn of the event loop brings no layout request (or ``MAX_TURNS`` turns went by),
then paints it once.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QSize, QTimer
from PySide6.QtWidgets import QTabWidget, QWidget

# Layout passes seen per change: 2–5; a widget that keeps asking must not stay frozen.
MAX_TURNS = 8
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
        if event.type() in _SETTLING:
            self._busy = True
        return False

    def _turn(self) -> None:
        self._turns += 1
        if not self._busy or self._turns >= MAX_TURNS:
            self.release()
        self._busy = False


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
    minimum size) and the repaint is skipped. Owned by the tab widget.
    """

    def __init__(self, tabs: QTabWidget) -> None:
        super().__init__(tabs)
        self._tabs = tabs
        self._placed: tuple[QSize, QSize] | None = None
        self.skipped = 0  # layout requests answered without a repaint (tests)
        tabs.installEventFilter(self)

    def _state(self) -> tuple[QSize, QSize]:
        return self._tabs.size(), self._tabs.tabBar().sizeHint()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._tabs and event.type() == QEvent.Type.LayoutRequest:
            state = self._state()
            if state == self._placed and self._tabs.isVisible():
                self.skipped += 1
                self._tabs.updateGeometry()
                return True
            self._placed = state
        elif watched is self._tabs and event.type() == QEvent.Type.Resize:
            self._placed = self._state()  # it places its parts on a resize, from these
        elif watched is self._tabs and event.type() == QEvent.Type.Show:
            self._placed = None  # placed while hidden, perhaps not at all
        return False
