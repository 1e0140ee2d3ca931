"""How the main window applies its theme and font size (presentation mode) without stalling.

The font size goes into style sheets: with a style sheet set, Qt no longer passes a parent's
setFont() on to its children. A new sheet on the window re-polishes every widget of every tab
(~300 ms, issue 21), so the theme's sheet stays on the window and changes only with the theme;
the font size goes on the bars and on the shown tab's page at once, and on each other page while
the user looks at this one (one per turn of the event loop), so a later tab switch restyles nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer

from simtviz.qt.theme import point_size, stylesheet

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMainWindow, QTabWidget

    from simtviz.qt.settings import AppSettings

    _Base = QMainWindow
else:
    _Base = object


class StyledPages(_Base):
    """Mixed into ``MainWindow``: ``font_rule()`` and ``_restyle()``. Each page is given the font
    size; a page whose widget draws rather than styles (the index map) has ``apply_style(theme,
    presentation)`` called instead of being re-polished for nothing."""

    settings: AppSettings
    tabs: QTabWidget

    def _init_styles(self) -> None:
        self._styled_theme = ""
        self._pages_to_style: list[int] = []
        self.tabs.currentChanged.connect(self._style_page)

    def font_rule(self) -> str:
        """The style rule that sets this mode's font size (dialogs take it too)."""
        return f"QWidget {{ font-size: {point_size(self.settings.presentation)}pt; }}"

    def _restyle(self) -> None:
        if self._styled_theme != self.settings.theme:
            self._styled_theme = self.settings.theme
            self.setStyleSheet(stylesheet(self.settings.theme))
        rule = self.font_rule()
        for bar in (self.menuBar(), self.tabs.tabBar(), self.statusBar()):
            if bar.styleSheet() != rule:
                bar.setStyleSheet(rule)
        self._style_page(self.tabs.currentIndex())
        # The other pages while the user looks at this one, one per turn of the event loop,
        # so that switching to them later costs no restyle.
        self._pages_to_style = [i for i in range(self.tabs.count()) if i != self.tabs.currentIndex()]
        QTimer.singleShot(30, self._style_next_page)

    def _style_next_page(self) -> None:
        if self._pages_to_style:
            self._style_page(self._pages_to_style.pop(0))
            QTimer.singleShot(30, self._style_next_page)

    def _style_page(self, index: int) -> None:
        page = self.tabs.widget(index)
        rule = self.font_rule()
        if page is not None and page.styleSheet() != rule:
            page.setStyleSheet(rule)
        # A tab drawn rather than styled (the index map's map and inspector) restyles itself.
        apply_style: Any = getattr(page, "apply_style", None)
        if callable(apply_style):
            apply_style(self.settings.theme, self.settings.presentation)
