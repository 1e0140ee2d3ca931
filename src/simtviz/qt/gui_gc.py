"""Python's cyclic garbage collector runs on the GUI thread only, in a process that holds Qt objects.

The collector runs on whichever thread's allocation trips its threshold and frees every
unreachable cycle there, Qt objects included. PySide6 hands a widget's C++ deletion to the main
thread (a pending call) but deletes any other QObject on the collecting thread; that destructor
calls back into its widgets (which needs the GIL) while holding one of Qt's signal-slot mutexes,
and the main thread, deleting the widgets with the GIL held, waits for that mutex: both wait
forever. A worker thread, or one of the simulator's hundreds of Python threads, must therefore
never collect. So automatic collection is off and a timer on the GUI thread collects instead, by
the same generation thresholds.
"""

from __future__ import annotations

import gc
import threading

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QTimer

INTERVAL_MS = 500

_collector: GuiThreadCollector | None = None


class GuiThreadCollector(QObject):
    """Collects on a timer of the application's (GUI) thread; owned by the QCoreApplication.

    Generation by generation as CPython decides: the youngest when more than ``threshold0`` objects
    were made since, an older one when it was passed over ``threshold1`` / ``threshold2`` times, and
    the oldest only once a quarter more objects reached it than a full collection left there (a full
    collection takes from tens of milliseconds to over 100 ms: the window stalls meanwhile).
    """

    def __init__(self, app: QCoreApplication) -> None:
        super().__init__(app)
        self.thresholds = gc.get_threshold()
        self.long_lived_total = len(gc.get_objects(2))
        self.long_lived_pending = 0
        gc.disable()
        self.timer = QTimer(self)
        self.timer.setInterval(INTERVAL_MS)
        self.timer.timeout.connect(self.collect_due)
        self.timer.start()

    def collect_due(self) -> int | None:
        """Collect the generation the automatic collector would collect now; the generation, or
        None when nothing is due or this is not the main thread (then it never collects)."""
        if threading.current_thread() is not threading.main_thread():
            return None
        young, middle, old = gc.get_count()
        t_young, t_middle, t_old = self.thresholds
        if young <= t_young:
            return None
        if middle <= t_middle:
            gc.collect(0)
            return 0
        if old > t_old and self.long_lived_pending > self.long_lived_total // 4:
            gc.collect(2)
            self.long_lived_total = len(gc.get_objects(2))
            self.long_lived_pending = 0
            return 2
        moving = len(gc.get_objects(0)) + len(gc.get_objects(1))
        self.long_lived_pending += moving - gc.collect(1)
        return 1


def collect_on_gui_thread() -> GuiThreadCollector:
    """Turn automatic collection off and collect on the GUI thread from now on (once per
    application; call on the GUI thread once a QApplication exists)."""
    global _collector
    if _collector is not None and shiboken6.isValid(_collector):
        return _collector
    app = QCoreApplication.instance()
    if app is None:
        raise RuntimeError("collect_on_gui_thread needs a QApplication")
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError("collect_on_gui_thread must be called on the GUI (main) thread")
    _collector = GuiThreadCollector(app)
    return _collector


def installed() -> GuiThreadCollector | None:
    """The collector, while one runs."""
    return _collector if _collector is not None and shiboken6.isValid(_collector) else None
