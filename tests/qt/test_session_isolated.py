"""Isolated experiments through the session: ``session.run`` starts a child of their own that
never holds the worker (the index map records meanwhile), ``cancel(experiment)`` stops it, and a
run too long to start unasked asks "Run it anyway?" once, then runs the same request forced."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_backends import FakeHostBackend
from PySide6.QtWidgets import QMessageBox, QWidget
from qt_helpers import RUN_TIMEOUT_MS

from isolated_toy import NAME, ToyRequest, on_child_path
from simtviz.core.errors import Cancelled, LaunchTooLarge
from simtviz.core.launch import LaunchConfig
from simtviz.qt import dialogs
from simtviz.qt.session import RecordRequest, RunSession


@pytest.fixture
def session(qtbot, monkeypatch: pytest.MonkeyPatch) -> Iterator[RunSession]:
    on_child_path(monkeypatch)
    s = RunSession(lambda: FakeHostBackend())
    qtbot.waitUntil(lambda: s.backend is not None, timeout=RUN_TIMEOUT_MS)
    yield s
    s.close()


def test_an_isolated_run_leaves_the_worker_free_and_cancel_stops_it(qtbot, session: RunSession) -> None:
    failed: list[BaseException] = []
    session.runFailed.connect(lambda name, _req, exc, _tb: failed.append(exc) if name == NAME else None)
    assert session.run(NAME, ToyRequest(seconds=60, time_limit_s=120))
    assert session.running(NAME) and not session.run(NAME, ToyRequest())  # one at a time
    # The index map's worker is not held: a record runs to its end meanwhile.
    assert not session.busy and session.can_run
    with qtbot.waitSignal(session.recordingChanged, timeout=RUN_TIMEOUT_MS):
        assert session.record(RecordRequest(LaunchConfig.of(1, 32)))
    assert session.running(NAME)
    assert session.cancel(NAME)  # the Your kernel tab's Esc
    qtbot.waitUntil(lambda: bool(failed), timeout=30_000)
    assert isinstance(failed[0], Cancelled) and not session.running(NAME)


def test_an_isolated_result_and_its_progress_come_as_the_sessions_signals(qtbot, session: RunSession) -> None:
    progress: list[float] = []
    session.runProgress.connect(lambda name, f: progress.append(f) if name == NAME else None)
    with qtbot.waitSignal(session.resultArrived, timeout=RUN_TIMEOUT_MS) as arrived:
        assert session.run(NAME, ToyRequest())
    name, (kind, _pid) = arrived.args
    assert name == NAME and kind == session.child_kind()
    assert progress[:1] == [0.5]


def test_a_long_run_is_asked_about_once_and_yes_runs_it_forced(qtbot, session: RunSession) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    asked: list[tuple[str, ToyRequest]] = []

    def ask(name: str, request: ToyRequest, exc: LaunchTooLarge) -> None:
        asked.append((name, request))
        dialogs.ask_run_anyway(parent, exc, lambda: session.run_anyway(name, request))

    session.confirmRequested.connect(ask)
    failed: list[BaseException] = []
    session.runFailed.connect(lambda _name, _req, exc, _tb: failed.append(exc))
    assert session.run(NAME, ToyRequest(threads=2000))
    box = None

    def found() -> bool:
        nonlocal box
        box = parent.findChild(QMessageBox, "launchTooLargeDialog")
        return box is not None

    qtbot.waitUntil(found, timeout=RUN_TIMEOUT_MS)
    assert isinstance(failed[0], LaunchTooLarge) and asked == [(NAME, ToyRequest(threads=2000))]
    assert "2,000 threads" in box.text()  # worded from the error's data
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.No)
    with qtbot.waitSignal(session.resultArrived, timeout=RUN_TIMEOUT_MS) as arrived:
        box.done(QMessageBox.StandardButton.Yes)
    assert arrived.args[0] == NAME and len(asked) == 1  # the forced run was not asked about
