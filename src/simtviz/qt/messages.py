"""Qt's own console messages: drop the known noise a user cannot act on, pass the rest on.

The offscreen platform (``simtviz snapshot``, tests, a GPU server) prints "This plugin does not
support propagateSizeHints()" whenever a window is shown; it means nothing to a student.
"""

from __future__ import annotations

import sys
from typing import Any

# Substrings of messages that say nothing useful to a user of simtviz.
KNOWN_NOISE: tuple[str, ...] = (
    "This plugin does not support propagateSizeHints()",
    "This plugin does not support raise()",
    "This plugin does not support grabbing the keyboard",
)


def is_noise(message: str) -> bool:
    return any(noise in message for noise in KNOWN_NOISE)


def _handler(_mode: Any, _context: Any, message: str) -> None:
    if not is_noise(message):
        print(message, file=sys.stderr)


def install_quiet_handler() -> None:
    """Route Qt's messages through ``is_noise``; call before the QApplication shows anything."""
    from PySide6.QtCore import qInstallMessageHandler

    qInstallMessageHandler(_handler)
