"""How the main window applies its theme and font size (presentation mode) without stalling.

A new style sheet re-polishes every widget under it: on the window, every widget of every tab
(~300 ms, issue 21); on the Your kernel page alone still 45–95 ms of CPU. So the theme's sheet
stays on the window and changes only with the theme, and the font size is not a sheet: each
widget of a page gets its own font at the new size (``set_point_size``: no re-polish, only the
font change and the relayout it causes). With a style sheet on the window Qt no longer passes a
parent's setFont() on to its grandchildren, hence one setFont per widget, and a widget made later
starts from the application's font, hence that font follows the mode too. The shown page changes
at once; the other pages once it is painted (one per turn of the event loop) or, at the latest,
as they are shown. A hidden page lays itself out only when shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QEvent, QTimer
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QWidget

from simtviz.qt.settle import Settle, StillTabs
from simtviz.qt.theme import point_size, stylesheet

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMainWindow, QTabWidget

    from simtviz.qt.settings import AppSettings

# Hidden pages are restyled after the shown one has been painted: the timer must not come due
# while the toggle's own relayout and paint still run (on a busy machine, well over 30 ms).
BACKGROUND_START_MS = 300
BACKGROUND_STEP_MS = 30


def set_point_size(root: QWidget, size: int) -> bool:
    """Give ``root`` and every widget in it ``size`` pt, keeping each one's family and weight;
    False when ``root`` had that size already (nothing done). Parents first."""
    if root.property("simtvizPointSize") == size:
        return False
    root.setProperty("simtvizPointSize", size)
    for widget in (root, *root.findChildren(QWidget)):
        font = widget.font()
        if font.pointSize() != size:
            font.setPointSize(size)
            widget.setFont(font)
    return True


class PageStyles:
    """The main window's theme and font size, owned by it (``window.styles``): ``restyle()``
    after a change of theme or mode. Each page is given the font size; a page whose widget
    draws rather than styles (the index map) has ``apply_style(theme, presentation)`` called
    instead, when it is shown (a hidden map's redraw would cost the shown tab's next frame)."""

    def __init__(self, window: QMainWindow, tabs: QTabWidget, settings: AppSettings) -> None:
        self._window, self._tabs, self._settings = window, tabs, settings
        self._styled_theme = ""
        self._pages_to_style: list[int] = []
        self._app_font: QFont | None = None  # the application's font before this window's size
        # A toggle or a tab switch relays the page out over several turns: paint it once.
        self.settle = Settle(tabs)
        self.still = StillTabs(tabs)  # and a request that moves nothing repaints nothing
        tabs.currentChanged.connect(lambda _i: self.settle.hold())
        tabs.currentChanged.connect(self.style_page)

    def font_rule(self) -> str:
        """The style rule that sets this mode's font size (dialogs take it too)."""
        return f"QWidget {{ font-size: {point_size(self._settings.presentation)}pt; }}"

    def restyle(self) -> None:
        self.settle.hold()
        window, tabs, settings = self._window, self._tabs, self._settings
        if self._styled_theme != settings.theme:
            self._styled_theme = settings.theme
            window.setStyleSheet(stylesheet(settings.theme))
        self._set_app_font()
        rule = self.font_rule()
        for bar in (window.menuBar(), tabs.tabBar(), window.statusBar()):
            if bar.styleSheet() != rule:
                bar.setStyleSheet(rule)
        self.style_page(tabs.currentIndex())
        self._lay_out_now()
        # The other pages once this one is painted, one per turn of the event loop (a few ms
        # each: a hidden page lays out only when shown), so a later switch has less to do.
        self._pages_to_style = [i for i in range(tabs.count()) if i != tabs.currentIndex()]
        QTimer.singleShot(BACKGROUND_START_MS, window, self._style_next_page)

    def _lay_out_now(self) -> None:
        """Lay the window out once, now, from the bars' new heights and the page's new fonts.
        Left to the event loop, the page was laid out at its old height first (its own layout
        requests come before the window's), then again when the status bar's new height reached
        the window: two passes over every widget of the page (15–25 ms at 1920 × 1080)."""
        for bar in (self._window.menuBar(), self._window.statusBar()):
            # A bar measures its new height when its layout request comes: now.
            QCoreApplication.sendPostedEvents(bar, QEvent.Type.LayoutRequest)
        window_layout = self._window.layout()
        if window_layout is not None:
            window_layout.activate()  # the page resized with its layouts invalid: laid out once

    def _set_app_font(self) -> None:
        """Widgets made later (a run's results, a lesson's cards) take the mode's size: under a
        style sheet a new widget starts from the application's font, not from its parent's."""
        app = QApplication.instance()
        if not isinstance(app, QApplication):
            return
        if self._app_font is None:
            self._app_font = QFont(app.font())
        font = QFont(self._app_font)
        font.setPointSize(point_size(self._settings.presentation))
        if app.font() != font:
            QApplication.setFont(font)

    def restore_app_font(self) -> None:
        """The application's own font again (the window closes; others may open after it)."""
        if self._app_font is not None:
            QApplication.setFont(self._app_font)

    def _style_next_page(self) -> None:
        if self._pages_to_style:
            self.style_page(self._pages_to_style.pop(0))
            QTimer.singleShot(BACKGROUND_STEP_MS, self._window, self._style_next_page)

    def style_page(self, index: int) -> None:
        page = self._tabs.widget(index)
        if page is None:
            return
        set_point_size(page, point_size(self._settings.presentation))
        # A tab drawn rather than styled (the index map's map and inspector) restyles itself.
        apply_style: Any = getattr(page, "apply_style", None)
        if callable(apply_style) and index == self._tabs.currentIndex():
            apply_style(self._settings.theme, self._settings.presentation)
