"""``simtviz.gui.create_main_window`` (docs/CONTRACT.md): the desktop app's window, for tests and scripts.

Imports Qt lazily so that ``import simtviz.gui`` alone stays cheap.
"""

from __future__ import annotations

from typing import Any


def create_main_window(backend: str = "sim", settings: Any = None) -> Any:
    """The main window, unshown; a QApplication must exist.

    While it is open, Ctrl+C (SIGINT), SIGTERM and SIGHUP close it as its close button does and
    end the event loop (``app.exec()`` returns 130 for Ctrl+C, else 0).
    """
    from simtviz.qt.main_window import create_main_window as create
    from simtviz.qt.signals import close_on_signals

    window = create(backend, settings)
    close_on_signals(window)
    return window
