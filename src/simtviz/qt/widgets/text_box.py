"""A read-only text of a fixed number of lines that scrolls inside itself: long words (a thread
list under the arrays) never push the maps out of a 1280 × 720 window."""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QFrame, QPlainTextEdit, QSizePolicy, QWidget


class ScrollingText(QPlainTextEdit):
    """``setText``/``text`` like a QLabel; ``lines`` tall at its own font, whatever the mode."""

    def __init__(self, lines: int = 2, parent: QWidget | None = None, objectName: str = "") -> None:
        super().__init__(parent)
        if objectName:
            self.setObjectName(objectName)
        self._lines = lines
        self.setReadOnly(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.viewport().setAutoFillBackground(False)  # reads as a label on the tab's background
        self._fit()

    def setText(self, text: str) -> None:
        self.setPlainText(text)

    def text(self) -> str:
        return self.toPlainText()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # presentation mode: the height follows
            self._fit()

    def _fit(self) -> None:
        margin = 2 * int(self.document().documentMargin()) + 2 * self.frameWidth()
        self.setFixedHeight(self._lines * self.fontMetrics().lineSpacing() + margin)
