"""The thread inspector: what the pinned thread recorded, and the index formulas worked out with it."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QTextBrowser, QVBoxLayout, QWidget

from simtviz.core.formulas import formula_lines, value_lines
from simtviz.core.recording import Recording
from simtviz.qt.map import Cell
from simtviz.qt.session import RunSession


def _formula_html(line: str) -> str:
    """A formula on one line and its numbers on the next: easier to read off a projector."""
    parts = line.split(" = ")
    symbolic = " = ".join(parts[:2])
    worked = " = ".join(parts[2:])
    body = html.escape(symbolic) + (f"<br>&nbsp;&nbsp;= {html.escape(worked)}" if worked else "")
    return f"<p style='font-family: monospace; margin-top: 0; margin-bottom: 8px'>{body}</p>"


class ThreadInspector(QWidget):
    """``threadInspector``: shows one thread; empty until a cell is clicked.

    With a session it follows it: cleared by a new recording, and a pinned thread of a device
    recording is shown when its record arrives.
    """

    def __init__(self, session: RunSession | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("threadInspector")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.heading = QLabel("<b>Thread inspector</b>", objectName="inspectorHeading")
        layout.addWidget(self.heading)
        self.browser = QTextBrowser(objectName="inspectorText")
        self.browser.setOpenLinks(False)
        self.browser.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        layout.addWidget(self.browser)
        self._row: int | None = None
        self._waiting = False  # for the pinned thread's record
        self._where = ""
        self._session = session
        self.clear()
        if session is not None:
            session.recordingChanged.connect(lambda _recording: self.clear())
            session.threadArrived.connect(self._on_thread_arrived)

    def show_cell(self, cell: Cell, row: int) -> None:
        """Pin the thread of map cell ``cell`` (row ``row`` of the session's recording)."""
        session = self._session
        recording = session.recording if session is not None else None
        if session is None or recording is None:
            return
        where = f"Map row {cell.row}, column {cell.col}"
        if recording.config.rank == 3:
            where += f", z-plane {recording.window.origin[2] + cell.plane}"
        self._row, self._where, self._waiting = row, where, True
        t = session.thread_record(row, "pin")  # host records answer at once, through _on_thread_arrived
        if self._waiting and self._row == row:
            if t is None:
                self.show_fetching(row, where)
            else:
                self.show_thread(recording, row, where, t)

    def _on_thread_arrived(self, recording: Recording, row: int, t: dict[str, Any]) -> None:
        if self._waiting and row == self._row:
            self.show_thread(recording, row, self._where, t)

    def set_point_size(self, size: int) -> None:
        """Rich text keeps its own sizes: set the document's default font to follow the window's."""
        font = self.browser.document().defaultFont()
        font.setPointSize(size)
        self.browser.document().setDefaultFont(font)

    def show_fetching(self, row: int, where: str = "") -> None:
        """A device recording's thread is on its way from the GPU."""
        self._row = row
        self.browser.setHtml(f"<p>{html.escape(where)}</p><p>Fetching this thread's record …</p>")

    def clear(self) -> None:
        self._row = None
        self._waiting = False
        self.browser.setHtml("<p>Click a cell of the map to pin its thread here.</p>")

    @property
    def row(self) -> int | None:
        return self._row

    def text(self) -> str:
        """Plain text now shown (what tests and screen readers see)."""
        return self.browser.toPlainText()

    def show_thread(
        self, recording: Recording, row: int, where: str = "", thread: dict[str, Any] | None = None
    ) -> None:
        """Show ``thread`` (``recording.thread_at(row)``, read here when not given: host recordings)."""
        self._row, self._waiting = row, False
        t = thread if thread is not None else recording.thread_at(row)
        table = "".join(
            f"<tr><td style='padding-right:12px'><b>{html.escape(k)}</b></td><td>{html.escape(v)}</td></tr>"
            for k, v in value_lines(recording, t)
        )
        formulas = "".join(_formula_html(line) for line in formula_lines(recording.config, t))
        self.browser.setHtml(
            f"<p>{html.escape(where)}</p><table>{table}</table><p><b>Worked out</b></p>{formulas}"
        )
