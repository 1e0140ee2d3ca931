"""One frame per change: a widget's painting held while its layouts settle (issue 21).

A presentation toggle or a tab switch relays out a page in several passes, one per turn of the
event loop (a font change resizes labels, the new sizes move splitters, pyqtgraph lays its axes
out from the new fonts...), and the window painted after each pass: the index map five times per
toggle, each frame 20–40 ms of CPU at 1920 × 1080. ``Settle.hold()`` turns the widget's updates
off until a turn of the event loop brings no layout request (or ``MAX_TURNS`` turns went by),
then paints it once.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

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
