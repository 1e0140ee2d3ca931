"""Page Down / Page Up for the lesson, across the window's tabs (a presenter remote).

The keys work while the lesson is shown, and also while a tab it opened for a demonstration is
shown (``open_page_of``): Page Down then comes back to the lesson's next step, Page Up to the
step that opened it. Where the user types (an editor, a text field, a spin box), the keys are
theirs. Shown alone (in no window's tabs), the keys belong to the panel.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QLineEdit,
    QPlainTextEdit,
    QTabWidget,
    QTextEdit,
    QWidget,
)


def takes_page_keys(widget: QWidget | None) -> bool:
    """True where the user types (an editor, a text field, a spin box): Page Down is theirs there."""
    if isinstance(widget, QPlainTextEdit | QTextEdit):
        return not widget.isReadOnly()
    return isinstance(widget, QLineEdit | QAbstractSpinBox)


class PageKeys(QObject):
    """The lesson panel's two shortcuts and the tab page a Try-it opened (``driven_page``).

    A child of the panel: it goes with it, and so do its connections to the application's and
    the tabs' signals."""

    def __init__(self, panel: QWidget, on_next: Callable[[], None], on_previous: Callable[[], None]) -> None:
        super().__init__(panel)
        self._panel = panel
        self._slots = ((Qt.Key.Key_PageDown, on_next), (Qt.Key.Key_PageUp, on_previous))
        self._keys: list[QShortcut] = []
        self.driven_page: QWidget | None = None  # the tab a Try-it opened
        self._build()

    def _build(self, owner: QWidget | None = None) -> None:
        """On the window (``owner``) while the lesson (or a tab it opened) is shown; on the panel
        alone when it is in no window's tabs."""
        for old in self._keys:
            old.setEnabled(False)
            old.deleteLater()
        context = (
            Qt.ShortcutContext.WindowShortcut
            if owner is not None
            else Qt.ShortcutContext.WidgetWithChildrenShortcut
        )
        owner = owner if owner is not None else self._panel
        self._keys = []
        for key, slot in self._slots:
            shortcut = QShortcut(QKeySequence(key), owner)
            shortcut.setContext(context)
            shortcut.activated.connect(slot)
            self._keys.append(shortcut)

    def attach(self) -> None:
        """Once the panel is a page of the window's tabs: the keys move to the window."""
        tabs = self.tabs()
        if tabs is not None:
            self._build(self._panel.window())
            tabs.currentChanged.connect(self._on_current_changed)
            app = QApplication.instance()
            if isinstance(app, QApplication):
                app.focusChanged.connect(self._on_focus_changed)
            self._on_tab_changed()

    def tabs(self) -> QTabWidget | None:
        """The tab widget the panel is a page of (None: shown alone)."""
        w = self._panel.parentWidget()
        while w is not None and not isinstance(w, QTabWidget):
            w = w.parentWidget()
        return w

    def page_of(self, widget: QWidget) -> QWidget | None:
        """The tab page that holds ``widget``, or None when it is in no tab."""
        tabs = self.tabs()
        w: QWidget | None = widget
        while tabs is not None and w is not None:
            if tabs.indexOf(w) >= 0:
                return w
            w = w.parentWidget()
        return None

    def lesson_shown(self) -> bool:
        tabs = self.tabs()
        return tabs is None or tabs.currentWidget() is self.page_of(self._panel)

    def _on_tab_changed(self) -> None:
        tabs = self.tabs()
        assert tabs is not None
        lesson = self.page_of(self._panel)
        current = tabs.currentWidget()
        if current is not self.driven_page and current is not lesson:
            self.driven_page = None  # the user went elsewhere: leave their keys alone
        active = current is lesson or (current is not None and current is self.driven_page)
        # Page Down / Up typed in an editor page through the editor, never through the lesson.
        active = active and not takes_page_keys(QApplication.focusWidget())
        for shortcut in self._keys:
            shortcut.setEnabled(active)

    def _on_current_changed(self, _index: int) -> None:
        self._on_tab_changed()

    def _on_focus_changed(self, _old: QWidget | None, _new: QWidget | None) -> None:
        if self.tabs() is not None:
            self._on_tab_changed()

    def open_page_of(self, widget: QWidget, show: Callable[[], object] | None = None) -> bool:
        """Show the tab page holding ``widget`` (through ``show``, an intent that brings it
        forward, when given); Page Down / Up keep working there. False when it is in no tab."""
        tabs, page = self.tabs(), self.page_of(widget)
        if tabs is None or page is None:
            return False
        self.driven_page = page
        if show is not None:
            show()
        else:
            tabs.setCurrentWidget(page)
        return True

    def back_to_lesson(self) -> bool:
        """Show the lesson tab again; True when it was not shown."""
        if self.lesson_shown():
            return False
        tabs, page = self.tabs(), self.page_of(self._panel)
        if tabs is not None and page is not None:
            tabs.setCurrentWidget(page)
        return True
