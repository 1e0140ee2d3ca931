"""``simtviz`` without a subcommand: the desktop app (``simtviz.qt.app``), kept importable here
for the command line, which imports ``run_app`` from this module."""

from simtviz.qt.app import EXIT_NO_DISPLAY, NO_DISPLAY_MESSAGE, has_display, run_app

__all__ = ["EXIT_NO_DISPLAY", "NO_DISPLAY_MESSAGE", "has_display", "run_app"]
