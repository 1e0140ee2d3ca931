"""The progress watcher beside a simulator launch, by hand: it ticks while the launch runs, never
after, and a Ctrl+C that lands while the watcher's thread is starting still stops it (the CLI's
`vecadd` on a loaded machine once printed "interrupted" and then waited 60 s on a watcher
reporting 0 %)."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from simtviz.backends import watcher as watcher_module
from simtviz.backends.vecadd.sim import _watched
from simtviz.backends.watcher import watching


def test_it_ticks_while_the_block_runs_and_never_after() -> None:
    ticks: list[float] = []
    with watching(lambda: ticks.append(time.monotonic()), 0.01):
        time.sleep(0.2)  # 0.2 s at one tick per 0.01 s: many ticks, at least a few on any machine
    ended = time.monotonic()
    assert len(ticks) >= 3
    time.sleep(0.05)
    assert all(t < ended for t in ticks)  # nothing ticked once the block had ended
    assert not [t for t in threading.enumerate() if t.name == "simtviz-progress"]


def test_none_starts_no_thread() -> None:
    before = threading.active_count()
    with watching(None, 0.01):
        assert threading.active_count() == before


class InterruptedStart(threading.Thread):
    """A thread whose start() is interrupted by Ctrl+C after the thread began (as on a loaded
    machine, where Thread.start waits for the new thread to say it runs)."""

    def start(self) -> None:
        super().start()
        raise KeyboardInterrupt


@pytest.mark.parametrize("name", ["simtviz-progress", "simtviz-vecadd-progress"])
def test_a_ctrl_c_while_the_watcher_starts_stops_the_watcher(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setattr(watcher_module.threading, "Thread", InterruptedStart)
    launched: list[bool] = []
    with pytest.raises(KeyboardInterrupt):
        if name == "simtviz-progress":
            with watching(lambda: None, 0.01, name):
                launched.append(True)
        else:  # the vector add's own use, the one the CLI hit
            _watched(lambda: launched.append(True), np.zeros(4), lambda share: None)
    assert launched == []  # the launch never started
    time.sleep(0.05)
    # The watcher ended with the Ctrl+C: the process can exit (before, it ticked on for ever).
    assert not [t for t in threading.enumerate() if t.name == name and t.is_alive()]
