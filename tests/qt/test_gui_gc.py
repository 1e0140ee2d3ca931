"""Qt objects left in reference cycles are freed on the GUI thread, whichever thread allocates.

The rare hang of the suite: the first in-process simulator launch after the app's tests (its
simulated threads allocate hard) tripped Python's cyclic collector on a simulated thread, which
freed earlier tests' Qt objects there; PySide6 deleted the widgets on the main thread meanwhile,
and the two deadlocked (Qt's signal-slot mutex against the GIL). Here a plain QObject (one that
PySide deletes on whichever thread frees it) records the thread its destructor ran on.
"""

from __future__ import annotations

import gc
import os
import threading

import pytest
from PySide6.QtCore import QObject, Qt

from simtviz.backends.selection import numba_is_simulated
from simtviz.backends.sim import SimBackend
from simtviz.core.launch import LaunchConfig
from simtviz.qt.gui_gc import installed

JOIN_S = 60


class _Cycle:
    """Holds a QObject and itself: only the cyclic collector frees it."""

    def __init__(self, obj: QObject) -> None:
        self.obj = obj
        self.myself = self


def _qobject_in_a_cycle(freed_on: list[str]) -> None:
    obj = QObject()
    obj.destroyed.connect(
        lambda *_: freed_on.append(threading.current_thread().name), Qt.ConnectionType.DirectConnection
    )
    _Cycle(obj)


def _allocate_hard() -> None:
    """Enough new cycles to trip the collector's first threshold (700) many times over."""
    for _ in range(20):
        junk = [_Cycle(None) for _ in range(1000)]  # type: ignore[arg-type]
        del junk


def test_a_thread_that_allocates_never_frees_the_apps_qt_objects(qtbot, window) -> None:
    gc.collect()
    freed_on: list[str] = []
    _qobject_in_a_cycle(freed_on)
    worker = threading.Thread(target=_allocate_hard, name="allocating-worker", daemon=True)
    worker.start()
    worker.join(JOIN_S)
    assert not worker.is_alive(), "the allocating thread is stuck"
    assert freed_on in ([], ["MainThread"])  # not freed yet, or freed on the GUI thread
    # The GUI thread's timer frees it within a few ticks of the event loop.
    qtbot.waitUntil(lambda: freed_on == ["MainThread"], timeout=10_000)


def test_a_simulated_launch_never_frees_qt_objects_on_its_threads(qtbot, window) -> None:
    if numba_is_simulated() is False or os.environ.get("SIMTVIZ_BACKEND") == "gpu":
        # the real numba is (or will be) imported in this process: no simulated launch here
        pytest.skip("numba was imported here without the CUDA simulator")
    gc.collect()
    freed_on: list[str] = []
    _qobject_in_a_cycle(freed_on)
    # 4,096 simulated threads, each a Python thread: thousands of allocations off the GUI thread.
    outcome: list[object] = []
    launch = threading.Thread(
        target=lambda: outcome.append(SimBackend().record(LaunchConfig.of((8, 8, 1), (8, 8, 1)))),
        name="launch",
        daemon=True,
    )
    launch.start()
    launch.join(JOIN_S)
    assert not launch.is_alive(), "the simulated launch is stuck"
    assert len(outcome) == 1
    assert freed_on in ([], ["MainThread"])
    gc.collect()  # it was garbage all along: the GUI thread frees it
    assert freed_on == ["MainThread"]


def test_the_collector_collects_only_on_the_gui_thread_and_only_when_due(qtbot, window) -> None:
    collector = installed()
    assert collector is not None and not gc.isenabled()
    gc.collect()  # counts back to (0, 0, 0)
    assert collector.collect_due() is None  # nothing allocated since: nothing due
    _allocate_hard()
    answers: list[int | None] = []
    off_main = threading.Thread(target=lambda: answers.append(collector.collect_due()), daemon=True)
    off_main.start()
    off_main.join(JOIN_S)
    assert answers == [None]  # never off the GUI thread
    assert collector.collect_due() == 0  # 20,000 new objects, no collection since: the youngest


def test_an_older_generation_is_collected_as_cpython_would(qtbot, window) -> None:
    collector = installed()
    assert collector is not None and collector.thresholds == (700, 10, 10)  # CPython's defaults
    gc.collect()
    answers = []
    for _ in range(12):
        _allocate_hard()
        answers.append(collector.collect_due())
    # Eleven collections of the youngest generation pass the middle one over 11 > 10 times: the
    # twelfth collects the middle one (the oldest is passed over for the first time then: not due).
    assert answers == [0] * 11 + [1]
