"""The session reports ready before the backend's after-ready warm-up, which then runs on the worker
at low priority (issue 21: start → ready ≤ 2.5 s on the GPU; the other colour fields and the
schedule kernels waited for before ready made it 3.15 s)."""

from __future__ import annotations

import logging

import pytest
from PySide6.QtCore import QTimer
from qt_helpers import RUN_TIMEOUT_MS

from simtviz import jobs
from simtviz.qt.session import RunSession
from warming_backend import WarmingBackend


def start(qtbot, backend: WarmingBackend) -> RunSession:
    def make() -> WarmingBackend:  # as session.backend_factory: created, then warmed up, on the worker
        backend.warm_up()
        return backend

    session = RunSession(make)
    session.backendReady.connect(lambda _info: backend.events.append("ready"))
    return session


def test_ready_is_reported_before_the_after_ready_steps_which_run_afterwards(qtbot) -> None:
    backend = WarmingBackend()
    session = start(qtbot, backend)
    try:
        qtbot.waitUntil(lambda: "step 3" in backend.events, timeout=RUN_TIMEOUT_MS)
        assert backend.events == ["warm up", "ready", "step 1", "step 2", "step 3"]
        assert session.can_run  # the warm-up never made the session busy
    finally:
        session.close()


def test_a_run_asked_for_after_ready_goes_before_the_warm_up(qtbot, monkeypatch: pytest.MonkeyPatch) -> None:
    # A quiet spell long enough for a loaded test machine to deliver the Run first.
    monkeypatch.setattr(jobs, "IDLE_S", 1.0)
    backend = WarmingBackend()
    session = start(qtbot, backend)
    # Pressed the moment Run is enabled, once the session has queued the warm-up behind ready.
    session.backendReady.connect(lambda _info: QTimer.singleShot(0, lambda: session.run("record", None)))
    try:
        qtbot.waitUntil(lambda: "step 3" in backend.events, timeout=RUN_TIMEOUT_MS)
        assert backend.events == ["warm up", "ready", "run record", "step 1", "step 2", "step 3"]
    finally:
        session.close()


def test_a_failing_step_is_logged_not_reported(qtbot, caplog: pytest.LogCaptureFixture) -> None:
    backend = WarmingBackend(failing=2)
    session = start(qtbot, backend)
    failures: list[object] = []
    session.runFailed.connect(lambda *args: failures.append(args))
    session.fetchFailed.connect(lambda *args: failures.append(args))
    try:
        with caplog.at_level(logging.WARNING, logger="simtviz.jobs"):
            qtbot.waitUntil(lambda: "step 3" in backend.events, timeout=RUN_TIMEOUT_MS)
        assert backend.events == ["warm up", "ready", "step 1", "step 3"]
        assert failures == []  # no dialog: nobody asked for it
        assert any("step 2" in r.getMessage() for r in caplog.records if r.name == "simtviz.jobs")
    finally:
        session.close()
