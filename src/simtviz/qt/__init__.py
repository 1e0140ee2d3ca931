"""The only layer that imports PySide6 and pyqtgraph: window, panels, dialogs."""

from __future__ import annotations

import ctypes
import sys


def _guard_none_refcount() -> None:
    """Work around PySide6 6.12 on Python < 3.12: every call of a void Qt method drops a
    reference to ``None`` it never took (measured: 100 calls of ``QPainter.setPen`` lower
    ``sys.getrefcount(None)`` by 100; True and False leak alike), so a window that paints
    for a while aborts with
    "Fatal Python error: none_dealloc". Python 3.12 made None immortal, which hides the bug; here
    we give None the same effectively endless count. pyproject.toml keeps such installs away
    (PySide6 < 6.12 on Python < 3.12); this protects environments that already have it.
    """
    if sys.version_info >= (3, 12):
        return
    try:
        from PySide6 import __version_info__ as version
    except ImportError:  # pragma: no cover - PySide6 always ships it
        return
    if tuple(version[:2]) < (6, 12):
        return
    # True and False suffer the same (methods returning bool), seen as "bool_dealloc" at exit.
    for singleton in (None, True, False):
        refcount = ctypes.c_ssize_t.from_address(id(singleton))
        if refcount.value < 1 << 40:
            refcount.value += 1 << 50


_guard_none_refcount()
