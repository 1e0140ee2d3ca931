"""``simtviz.gui.create_main_window`` (CONTRACT.md): the desktop app's window, for tests and scripts.

Imports Qt lazily so that ``import simtviz.gui`` alone stays cheap.
"""

from __future__ import annotations

from typing import Any


def create_main_window(backend: str = "sim", settings: Any = None) -> Any:
    """The main window, unshown; a QApplication must exist."""
    from simtviz.qt.main_window import create_main_window as create

    return create(backend, settings)
