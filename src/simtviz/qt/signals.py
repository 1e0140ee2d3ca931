"""Ctrl+C, ``kill`` and a closed terminal close the desktop app as its window's close button does.

A Python signal handler runs only when the interpreter runs, and Qt's event loop is C++: a
handler alone would wait for the next mouse move. The handler therefore only notes the signal;
``signal.set_wakeup_fd`` writes a byte to a socket that a ``QSocketNotifier`` watches, which wakes
the loop, and the window is closed from there (the run stopped, the settings saved, exit 130 for
Ctrl+C, 0 for SIGTERM and SIGHUP). No KeyboardInterrupt is raised, so no callback is cut short.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import threading
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QSocketNotifier

# Exit status per signal: Ctrl+C is the shell's 128 + 2; asked to end is a normal end.
EXIT_STATUS: dict[int, int] = {signal.SIGINT: 130, signal.SIGTERM: 0}
if hasattr(signal, "SIGHUP"):
    EXIT_STATUS[signal.SIGHUP] = 0


class CloseOnSignals(QObject):
    """While ``window`` is open, SIGINT / SIGTERM / SIGHUP close it and end the event loop."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self._window = window
        self._pending: list[int] = []
        self._previous: dict[int, Any] = {}
        self._open = True
        self._read, self._write = socket.socketpair()
        for sock in (self._read, self._write):
            sock.setblocking(False)
        self._old_wakeup = signal.set_wakeup_fd(self._write.fileno(), warn_on_full_buffer=False)
        self._notifier = QSocketNotifier(self._read.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._on_wakeup)
        for signo in EXIT_STATUS:
            self._previous[signo] = signal.signal(signo, self._on_signal)
        window.installEventFilter(self)

    def _on_signal(self, signo: int, frame: Any) -> None:
        if self._open:
            self._pending.append(signo)  # acted on from the event loop (_on_wakeup)
            return
        previous = self._previous.get(signo)
        if callable(previous):
            previous(signo, frame)
        elif previous == signal.SIG_DFL:
            signal.signal(signo, signal.SIG_DFL)
            signal.raise_signal(signo)

    def _on_wakeup(self) -> None:
        with contextlib.suppress(OSError):
            while self._read.recv(256):
                pass
        if not self._pending or not self._open:
            return
        signo = self._pending[0]
        self._pending.clear()
        self._window.close()  # closeEvent: stop the run, save the settings
        app = QCoreApplication.instance()
        if app is not None:
            app.exit(EXIT_STATUS.get(signo, 0))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._window and event.type() == QEvent.Type.Close:
            # Once the window closes (by a signal or not), signals mean what they meant before:
            # a second Ctrl+C while it closes interrupts as Python's default does.
            self.uninstall()
        return False

    def uninstall(self) -> None:
        if not self._open:
            return
        self._open = False
        for signo, previous in self._previous.items():
            with contextlib.suppress(ValueError, TypeError):
                signal.signal(signo, previous if previous is not None else signal.SIG_DFL)
        with contextlib.suppress(ValueError):
            signal.set_wakeup_fd(self._old_wakeup)
        self._notifier.setEnabled(False)
        self._read.close()
        self._write.close()


def close_on_signals(window: Any) -> CloseOnSignals | None:
    """Install ``CloseOnSignals`` for ``window``; None off the main thread (signals are the main thread's)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return CloseOnSignals(window)
