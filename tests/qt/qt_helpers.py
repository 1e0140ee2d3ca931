"""Helpers shared by the desktop-app tests."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QFileDialog, QPushButton, QSpinBox, QWidget

RUN_TIMEOUT_MS = 30_000


def cancelled_file_dialogs(monkeypatch) -> list[tuple[str, str, str]]:
    """Qt's Open and Save dialogs, cancelled; each asks (caption, start name, filters) in order."""
    asked: list[tuple[str, str, str]] = []

    def dialog(_parent, caption: str, name: str, filters: str) -> tuple[str, str]:
        asked.append((caption, name, filters))
        return "", ""

    monkeypatch.setattr(QFileDialog, "getOpenFileName", dialog)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", dialog)
    return asked


def set_launch(w, grid: tuple[int, int, int], block: tuple[int, int, int]) -> None:
    for what, dims in (("grid", grid), ("block", block)):
        for axis, value in zip("XYZ", dims, strict=True):
            w.findChild(QSpinBox, f"{what}{axis}").setValue(value)


def press_run(qtbot, w) -> None:
    button = w.findChild(QPushButton, "runButton")
    qtbot.waitUntil(button.isEnabled, timeout=RUN_TIMEOUT_MS)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


class Paints(QObject):
    """Counts the paint events ``widget`` receives."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, _obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False
