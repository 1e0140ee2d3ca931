"""Helpers shared by the desktop-app tests."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QSpinBox

RUN_TIMEOUT_MS = 30_000


def set_launch(w, grid: tuple[int, int, int], block: tuple[int, int, int]) -> None:
    for what, dims in (("grid", grid), ("block", block)):
        for axis, value in zip("XYZ", dims, strict=True):
            w.findChild(QSpinBox, f"{what}{axis}").setValue(value)


def press_run(qtbot, w) -> None:
    button = w.findChild(QPushButton, "runButton")
    qtbot.waitUntil(button.isEnabled, timeout=RUN_TIMEOUT_MS)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
