"""The Your kernel tab's code editor: Python syntax highlighting and line numbers.

Plain Qt (QPlainTextEdit + QSyntaxHighlighter): the text is only ever text here; it runs only
when the student presses Run, in a child process.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Sequence

from PySide6.QtCore import QEvent, QRect, QSize, Qt
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


# Token colours on a light and on a dark editor (the dark theme's #2b2d31): each at least 4.5:1
# against its background, so keywords stay readable on a projector.
SCHEMES = {
    False: {"keyword": "#0033b3", "cuda": "#00627a", "constant": "#871094", "number": "#1750eb",
            "decorator": "#7a6a00", "string": "#067d17", "comment": "#6e6e6e"},
    True: {"keyword": "#82aaff", "cuda": "#56c8d8", "constant": "#d7a0ff", "number": "#f0a868",
           "decorator": "#e5c07b", "string": "#a5d68a", "comment": "#a8adb5"},
}  # fmt: skip


class PythonHighlighter(QSyntaxHighlighter):
    """Keywords, CUDA names, numbers, strings (also triple-quoted over lines), comments, decorators."""

    def __init__(self, document: QTextDocument, dark: bool = False) -> None:
        super().__init__(document)
        self.dark = dark
        self._build_rules()

    def set_dark(self, dark: bool) -> None:
        """Colours for a dark editor (the dark theme) or a light one; redraws the text."""
        if dark != self.dark:
            self.dark = dark
            self._build_rules()
            self.rehighlight()

    def _build_rules(self) -> None:
        c = SCHEMES[self.dark]
        self.rules: list[tuple[re.Pattern[str], QTextCharFormat]] = [
            (re.compile(r"\b(" + "|".join(keyword.kwlist) + r")\b"), _format(c["keyword"], bold=True)),
            (re.compile(r"\b(" + "|".join(CUDA_WORDS) + r")\b"), _format(c["cuda"])),
            (re.compile(r"\b(True|False|None|self)\b"), _format(c["constant"])),
            (re.compile(r"\b\d+(\.\d*)?([eE][-+]?\d+)?\b"), _format(c["number"])),
            (re.compile(r"@[\w.]+"), _format(c["decorator"])),
            (re.compile(r"'[^'\\\n]*(\\.[^'\\\n]*)*'|\"[^\"\\\n]*(\\.[^\"\\\n]*)*\""), _format(c["string"])),
            (re.compile(r"#[^\n]*"), _format(c["comment"], italic=True)),
        ]
        self.triple = _format(c["string"], italic=True)

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

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.StyleChange):
            # The theme's style sheet sets the editor's background: pick the colours that read on it.
            self.highlighter.set_dark(self.palette().base().color().lightness() < 128)

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

    def setFont(self, font: QFont | str | Sequence[str]) -> None:
        super().setFont(font)
        if hasattr(self, "_numbers"):
            self._numbers.setFont(font)
            self._update_margin()

    def paint_numbers(self, widget: QWidget, event: QPaintEvent) -> None:
        painter = QPainter(widget)
        base = self.palette().base().color()
        dark = base.lightness() < 128
        painter.fillRect(event.rect(), base.lighter(135) if dark else base.darker(106))
        numbers = QColor("#9aa0a8") if dark else QColor("#6e6e6e")
        block = self.firstVisibleBlock()
        number = block.blockNumber()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        bottom = top + round(self.blockBoundingRect(block).height())
        height = self.fontMetrics().height()
        while block.isValid() and top <= event.rect().bottom():
            if block.isVisible() and bottom >= event.rect().top():
                marked = self._marked == number + 1
                painter.setPen(QColor("#ff6e6e" if dark else "#c62828") if marked else numbers)
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
