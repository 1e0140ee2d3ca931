"""The thread inspector: what the pinned thread recorded, and the index formulas worked out with it."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QTextOption
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from simtviz.core.formulas import formula_lines, value_lines
from simtviz.core.locate import LocateError, locate, parse_address
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

    goToRequested = Signal(object)  # Cell: pin it on the map

    def __init__(self, session: RunSession | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("threadInspector")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        self.heading = QLabel("<b>Thread</b>", objectName="inspectorHeading")
        top.addWidget(self.heading)
        # Go to / pin a thread by its indices, for "and thread (3, 0) of block (1, 2)?" in class.
        self.goToEdit = QLineEdit(objectName="goToThread")
        self.goToEdit.setPlaceholderText("blockIdx threadIdx: 1,2 3,0 — or 42")
        self.goToEdit.setToolTip(
            "Pin a thread by its indices: blockIdx then threadIdx (x[,y[,z]] each, e.g. 1,2 3,0),\n"
            "or one global linear index (e.g. 42). Press Enter."
        )
        self.goToEdit.returnPressed.connect(lambda: self.go_to())
        self.goToButton = QPushButton("Go", objectName="goToButton")
        self.goToButton.clicked.connect(lambda: self.go_to())
        top.addWidget(self.goToEdit, stretch=1)
        top.addWidget(self.goToButton)
        layout.addLayout(top)
        self.goToMessage = QLabel(objectName="goToMessage", wordWrap=True)
        self.goToMessage.setVisible(False)
        layout.addWidget(self.goToMessage)
        self.browser = QTextBrowser(objectName="inspectorText")
        # Break lines between words only: "blockDi/m" read off a projector is a different word.
        self.browser.setWordWrapMode(QTextOption.WrapMode.WordWrap)
        self._wide = False
        self._shown: tuple[Recording, int, str, dict[str, Any]] | None = None
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

    def go_to(self, text: str | None = None) -> bool:
        """Pin the thread written in the Go to box (or ``text``); False, with the reason shown
        under the box, when there is no such thread in the recording."""
        text = self.goToEdit.text() if text is None else text
        recording = self._session.recording if self._session is not None else None
        try:
            if recording is None:
                raise LocateError("press Run first: there is no map yet")
            plane, row, col = locate(recording.config, recording.window, parse_address(text))
        except LocateError as exc:
            self.goToMessage.setText(f"⚠ {exc}")
            self.goToMessage.setVisible(True)
            return False
        self.goToMessage.setVisible(False)
        self.goToRequested.emit(Cell(plane, row, col))
        return True

    def set_wide(self, wide: bool) -> None:
        """Wide and short (under the map): formulas and values side by side."""
        self._wide = wide
        if self._shown is not None:
            self.show_thread(*self._shown)

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
        self._shown = None
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
        self._shown = (recording, row, where, t)
        table = "".join(
            f"<tr><td style='padding-right:12px'><b>{html.escape(k)}</b></td><td>{html.escape(v)}</td></tr>"
            for k, v in value_lines(recording, t)
        )
        # The worked formulas first: they are what the class reads; the raw values follow.
        formulas = "".join(_formula_html(line) for line in formula_lines(recording.config, t))
        # Under the map every line counts: the formulas say where the thread is.
        head = f"<p><i>{html.escape(where)}</i></p>" if where and not self._wide else ""
        if self._wide:  # under the map: wide and short, so the values go in one paragraph
            values = " · ".join(
                f"<b>{html.escape(k)}</b> {html.escape(v)}" for k, v in value_lines(recording, t)
            )
            body = f"<p><b>Worked out</b></p>{formulas}<p>{values}</p>"
        else:
            body = f"<p><b>Worked out</b></p>{formulas}<table>{table}</table>"
        self.browser.setHtml(head + body)
