"""The Your kernel tab's code editor: Python syntax highlighting and line numbers.

Plain Qt (QPlainTextEdit + QSyntaxHighlighter): the text is only ever text here; it runs only
when the student presses Run, in a child process.
"""

from __future__ import annotations

import keyword
import re

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QWidget

CUDA_WORDS = (
    "cuda", "jit", "grid", "gridsize", "threadIdx", "blockIdx", "blockDim", "gridDim", "syncthreads",
    "shared", "local", "atomic", "laneid", "warpsize",
)  # fmt: skip


def _format(color: str, bold: bool = False, italic: bool = False) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(QColor(color))
    if bold:
        fmt.setFontWeight(QFont.Weight.Bold)
    fmt.setFontItalic(italic)
    return fmt


class PythonHighlighter(QSyntaxHighlighter):
    """Keywords, CUDA names, numbers, strings (also triple-quoted over lines), comments, decorators."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self.rules: list[tuple[re.Pattern[str], QTextCharFormat]] = [
            (re.compile(r"\b(" + "|".join(keyword.kwlist) + r")\b"), _format("#0033b3", bold=True)),
            (re.compile(r"\b(" + "|".join(CUDA_WORDS) + r")\b"), _format("#00627a")),
            (re.compile(r"\b(True|False|None|self)\b"), _format("#871094")),
            (re.compile(r"\b\d+(\.\d*)?([eE][-+]?\d+)?\b"), _format("#1750eb")),
            (re.compile(r"@[\w.]+"), _format("#9e880d")),
            (re.compile(r"'[^'\\\n]*(\\.[^'\\\n]*)*'|\"[^\"\\\n]*(\\.[^\"\\\n]*)*\""), _format("#067d17")),
            (re.compile(r"#[^\n]*"), _format("#8c8c8c", italic=True)),
        ]
        self.triple = _format("#067d17", italic=True)

    def highlightBlock(self, text: str) -> None:
        for pattern, fmt in self.rules:
            for m in pattern.finditer(text):
                self.setFormat(m.start(), m.end() - m.start(), fmt)
        # Triple-quoted strings (docstrings) may span blocks: state 1 = inside one.
        start = 0
        inside = self.previousBlockState() == 1
        self.setCurrentBlockState(0)
        while True:
            if not inside:
                found = re.search(r'"""|\'\'\'', text[start:])
                if not found:
                    return
                start += found.start()
                inside, opened = True, start
                start += 3
            else:
                opened = start
            end = re.search(r'"""|\'\'\'', text[start:])
            if end is None:
                self.setFormat(opened, len(text) - opened, self.triple)
                self.setCurrentBlockState(1)
                return
            stop = start + end.end()
            self.setFormat(opened, stop - opened, self.triple)
            start, inside = stop, False


class _LineNumbers(QWidget):
    def __init__(self, editor: CodeEditor) -> None:
        super().__init__(editor)
        self.editor = editor

    def sizeHint(self) -> QSize:
        return QSize(self.editor.number_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        self.editor.paint_numbers(self, event)


class CodeEditor(QPlainTextEdit):
    """The kernel's source, with line numbers in a gutter and a marked line (``mark_line``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.setFont(font)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setTabStopDistance(4 * self.fontMetrics().horizontalAdvance(" "))
        self.highlighter = PythonHighlighter(self.document())
        self._numbers = _LineNumbers(self)
        self._marked: int | None = None
        self.blockCountChanged.connect(self._update_margin)
        self.updateRequest.connect(self._scroll_numbers)
        self._update_margin()

    def keyPressEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        # Tab inserts four spaces: a tab character in Python code only makes trouble.
        if event.key() == Qt.Key.Key_Tab and not event.modifiers():
            self.insertPlainText("    ")
            return
        super().keyPressEvent(event)

    def number_width(self) -> int:
        digits = max(3, len(str(max(1, self.blockCount()))))
        return 10 + self.fontMetrics().horizontalAdvance("9") * digits

    def _update_margin(self) -> None:
        self.setViewportMargins(self.number_width(), 0, 0, 0)

    def _scroll_numbers(self, rect: QRect, dy: int) -> None:
        if dy:
            self._numbers.scroll(0, dy)
        else:
            self._numbers.update(0, rect.y(), self._numbers.width(), rect.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        r = self.contentsRect()
        self._numbers.setGeometry(QRect(r.left(), r.top(), self.number_width(), r.height()))

    def setFont(self, font: QFont) -> None:
        super().setFont(font)
        if hasattr(self, "_numbers"):
            self._numbers.setFont(font)
            self._update_margin()

    def paint_numbers(self, widget: QWidget, event: QPaintEvent) -> None:
        painter = QPainter(widget)
        painter.fillRect(event.rect(), self.palette().alternateBase())
        block = self.firstVisibleBlock()
        number = block.blockNumber()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        bottom = top + round(self.blockBoundingRect(block).height())
        height = self.fontMetrics().height()
        while block.isValid() and top <= event.rect().bottom():
            if block.isVisible() and bottom >= event.rect().top():
                marked = self._marked == number + 1
                painter.setPen(QColor("#c62828") if marked else self.palette().placeholderText().color())
                painter.drawText(
                    0, top, widget.width() - 5, height, Qt.AlignmentFlag.AlignRight, str(number + 1)
                )
            block = block.next()
            top = bottom
            bottom = top + round(self.blockBoundingRect(block).height())
            number += 1
        painter.end()

    def mark_line(self, line: int | None) -> None:
        """Highlight the student's line ``line`` (1-based; None clears) and scroll to it."""
        self._marked = line
        selections = []
        if line is not None and 1 <= line <= self.blockCount():
            sel = QTextEdit.ExtraSelection()
            sel.format.setBackground(QColor(255, 200, 120, 110))
            sel.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            cursor = QTextCursor(self.document().findBlockByNumber(line - 1))
            sel.cursor = cursor
            selections.append(sel)
            self.setTextCursor(cursor)
            self.ensureCursorVisible()
        self.setExtraSelections(selections)
        self._numbers.update()
