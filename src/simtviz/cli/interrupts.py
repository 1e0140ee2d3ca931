"""Ctrl+C that a command never loses.

Python turns SIGINT into a KeyboardInterrupt wherever the main thread happens to be, and when that
is a weakref callback or a ``__del__`` (numba's simulator starts a thread per block, and
``threading`` keeps them in a WeakSet), Python prints "Exception ignored" and drops it: the run
went on, saved its file and exited 0. So while a command runs, Ctrl+C is also remembered here;
the command asks before it saves anything, and the CLI asks again when the command returns.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

_pressed = threading.Event()


@contextmanager
def ctrl_c_remembered() -> Iterator[None]:
    """Remember Ctrl+C while the block runs (and raise KeyboardInterrupt as Python would).

    Only where Python's own handler is in place: a process that ignores SIGINT (a background job)
    or installed its own keeps it."""
    _pressed.clear()
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return

    def on_ctrl_c(signum: int, frame: FrameType | None) -> None:
        _pressed.set()
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_ctrl_c)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def raise_if_pressed() -> None:
    """KeyboardInterrupt if Ctrl+C was pressed in ``ctrl_c_remembered``, even if it got lost."""
    if _pressed.is_set():
        raise KeyboardInterrupt
