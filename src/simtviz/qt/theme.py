"""Light and dark themes, and presentation mode (big fonts for the back of a lecture hall)."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication

from simtviz.resources import ResourceNotFound, read_text

THEMES = ("light", "dark")
NORMAL_POINT_SIZE = 11
PRESENTATION_POINT_SIZE = 20  # the issue asks for at least 18 pt


@dataclass(frozen=True, slots=True)
class Palette:
    """Colours the pyqtgraph view needs (it does not follow Qt stylesheets)."""

    background: str
    foreground: str
    border: str  # block borders drawn over the map
    selection: str


PALETTES = {
    "light": Palette("#ffffff", "#111111", "#000000", "#ff1744"),
    "dark": Palette("#1e1f22", "#e8e8e8", "#ffffff", "#ff5252"),
}


def stylesheet(theme: str) -> str:
    """The theme's Qt stylesheet; an empty one if the file is missing (the app still works)."""
    try:
        return read_text(f"{theme}.qss")
    except ResourceNotFound:
        return ""


def point_size(presentation: bool) -> int:
    return PRESENTATION_POINT_SIZE if presentation else NORMAL_POINT_SIZE


def ui_font(presentation: bool) -> QFont:
    font = QFont(QApplication.font())
    font.setPointSize(point_size(presentation))
    return font


def mono_font(presentation: bool) -> QFont:
    font = QFont("DejaVu Sans Mono")
    font.setStyleHint(QFont.StyleHint.Monospace)
    font.setPointSize(point_size(presentation))
    return font
