"""The run session without a window: one request path for host and device records, stale answers
dropped, failures and refusals as signals."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import numpy as np
import pytest
from fake_backends import FakeGpuBackend, FakeHostBackend
from qt_helpers import RUN_TIMEOUT_MS

from simtviz.core.errors import BackendUnavailable, KernelFailed, LaunchTooLarge, OutOfDeviceMemory
from simtviz.core.launch import LaunchConfig
from simtviz.core.recording import load_npz
from simtviz.qt.dialogs import too_large
from simtviz.qt.session import RECORD, RecordRequest, RunSession

# Two blocks of four threads: a 1-D map of one row per block.
CONFIG = LaunchConfig.of((2, 1, 1), (4, 1, 1))


def make_session(qtbot, backend) -> RunSession:
    session = RunSession(lambda: backend)
    qtbot.waitUntil(lambda: session.backend is not None, timeout=RUN_TIMEOUT_MS)
    return session


@pytest.fixture(params=["host", "device"])
def session(qtbot, request) -> Iterator[RunSession]:
    s = make_session(qtbot, FakeHostBackend() if request.param == "host" else FakeGpuBackend())
    yield s
    s.close()


def record(qtbot, session: RunSession, config: LaunchConfig = CONFIG):
    with qtbot.waitSignal(session.recordingChanged, timeout=RUN_TIMEOUT_MS) as changed:
        assert session.record(RecordRequest(config))
    qtbot.waitUntil(lambda: not session.busy)
    return changed.args[0]


def hold_worker(session: RunSession) -> threading.Event:
    """A quiet job that keeps the worker until the event is set, so that requests queue up."""
    release = threading.Event()
    session.bridge.submit("hold", lambda _b, _p: release.wait(10), quiet=True)
    return release


def drain(qtbot, session: RunSession) -> None:
    """Wait until every job submitted so far has delivered its answer (they arrive in order)."""
    done: list[bool] = []
    session.bridge.submit("drain", lambda _b, _p: True, on_result=done.append, quiet=True)
    qtbot.waitUntil(lambda: done == [True], timeout=RUN_TIMEOUT_MS)


def test_images_and_threads_come_through_the_same_signals_for_host_and_device(qtbot, session) -> None:
    busy: list[bool] = []
    session.busyChanged.connect(busy.append)
    recording = record(qtbot, session)
    assert busy == [True, False]
    assert session.recording is recording

    with qtbot.waitSignal(session.imagesArrived, timeout=RUN_TIMEOUT_MS) as images:
        session.request_images(recording, "global linear index", (0,))
    assert images.args[0].recording is recording
    np.testing.assert_array_equal(images.args[0].planes[0], [[0, 1, 2, 3], [4, 5, 6, 7]])
    assert images.args[0].levels == (0.0, 7.0)

    row = recording.row_of(0, 1, 2)  # block 1, thread 2
    with qtbot.waitSignal(session.threadArrived, timeout=RUN_TIMEOUT_MS) as arrived:
        session.request_thread(row)
    got_recording, got_row, t = arrived.args
    assert got_recording is recording and got_row == row
    assert t["threadIdx"] == (2, 0, 0) and t["blockIdx"] == (1, 0, 0) and t["grid1"] == 6
    assert session.thread_record(row) == t  # kept: asked again, it answers at once


def test_an_answer_for_an_older_recording_is_dropped(qtbot) -> None:
    session = make_session(qtbot, FakeGpuBackend())
    first = record(qtbot, session)
    arrived: list[object] = []
    session.imagesArrived.connect(arrived.append)
    release = hold_worker(session)
    assert session.record(RecordRequest(LaunchConfig.of((3, 1, 1), (4, 1, 1))))
    session.request_images(first, "warp", (0,))  # queued behind the new run
    with qtbot.waitSignal(session.recordingChanged, timeout=RUN_TIMEOUT_MS):
        release.set()
    drain(qtbot, session)
    assert arrived == []
    assert session.recording is not first and session.recording.config.grid.x == 3
    session.close()


def test_only_the_latest_hover_fetch_is_delivered(qtbot) -> None:
    session = make_session(qtbot, FakeGpuBackend())
    record(qtbot, session)
    rows: list[int] = []
    session.threadArrived.connect(lambda _rec, row, _t: rows.append(row))
    release = hold_worker(session)
    for row in (1, 5, 6):
        session.request_thread(row)  # the pointer moving over three cells
    release.set()
    drain(qtbot, session)
    assert rows == [6]
    session.close()


def test_a_failed_run_is_a_signal_and_keeps_nothing(qtbot) -> None:
    backend = FakeGpuBackend(fail=KernelFailed("the GPU reported an error after the launch"))
    session = make_session(qtbot, backend)
    request = RecordRequest(CONFIG)
    with qtbot.waitSignal(session.runFailed, timeout=RUN_TIMEOUT_MS) as failed:
        assert session.record(request)
    experiment, got_request, exc, _tb = failed.args
    assert experiment == RECORD and got_request is request and isinstance(exc, KernelFailed)
    qtbot.waitUntil(lambda: not session.busy)
    assert session.recording is None and session.can_run
    session.close()


def test_a_second_run_is_refused_while_one_runs(qtbot) -> None:
    session = make_session(qtbot, FakeHostBackend())
    release = threading.Event()
    session.bridge.submit("hold", lambda _b, _p: release.wait(10))  # not quiet: the session is busy
    assert session.busy and not session.can_run
    with qtbot.assertNotEmitted(session.runStarted):
        assert not session.record(RecordRequest(CONFIG))
    release.set()
    qtbot.waitUntil(lambda: not session.busy)
    session.close()


def test_export_writes_host_and_device_records_alike(qtbot, session, tmp_path) -> None:
    record(qtbot, session)
    target = tmp_path / "records.npz"
    with qtbot.waitSignal(session.exportFinished, timeout=RUN_TIMEOUT_MS) as finished:
        session.export_records(target, "npz")
    assert finished.args[0] == target
    loaded = load_npz(target)
    np.testing.assert_array_equal(loaded.fields["grid1"], np.arange(8))


def test_no_backend_is_a_signal_and_no_run_starts(qtbot) -> None:
    def no_gpu():
        raise BackendUnavailable("no usable NVIDIA GPU")

    session = RunSession(no_gpu)
    with qtbot.waitSignal(session.backendFailed, timeout=RUN_TIMEOUT_MS) as failed:
        pass
    assert str(failed.args[0]) == "no usable NVIDIA GPU"
    assert not session.can_run and not session.record(RecordRequest(CONFIG))
    session.close()


def test_a_slow_launch_is_worded_from_its_numbers_not_the_cli_text() -> None:
    exc = LaunchTooLarge(153_600, 38.4, 131_072, "the CUDA simulator")
    facts = too_large(exc)
    assert facts is not None and not facts.out_of_memory
    assert facts.what == (
        "153,600 threads would take about 38 s on the CUDA simulator (it runs up to 131,072 without asking)"
    )
    assert "--force" not in facts.what
    assert facts.estimate_s == 38.4
    oom = too_large(OutOfDeviceMemory(2**30, 2**29, "record 4,194,304 threads"))
    assert oom is not None and oom.out_of_memory and "GPU memory" in oom.what
    assert too_large(KernelFailed("x")) is None


def test_a_long_vector_add_is_asked_about_once_and_run_anyway_runs_it_forced(qtbot) -> None:
    from fake_backends import FakeVecaddBackend

    from simtviz.core.vecadd import VecaddRequest

    backend = FakeVecaddBackend()
    session = make_session(qtbot, backend)
    asked: list[tuple[str, object, LaunchTooLarge]] = []
    session.confirmRequested.connect(lambda name, request, exc: asked.append((name, request, exc)))
    results: list[object] = []
    session.resultArrived.connect(lambda name, result: results.append(result))
    big = VecaddRequest(n=2_000_000, repeat=1)
    with qtbot.waitSignal(session.confirmRequested, timeout=RUN_TIMEOUT_MS):
        assert session.run("vecadd", big)
    name, request, exc = asked[0]
    assert (name, request) == ("vecadd", big) and backend.requests == []  # nothing ran
    # ceil(2,000,000 / 256) = 7,813 blocks of 256: 2,000,128 threads; at 3,000 a second ≈ 11 min.
    assert exc.threads == 2_000_128 and exc.subject == "vecadd"
    assert exc.detail == (
        "The vector add with N = 2,000,000 launches 7,813 blocks of 256 threads once. "
        "A smaller N takes less time."
    )
    qtbot.waitUntil(lambda: not session.busy)
    with qtbot.waitSignal(session.resultArrived, timeout=RUN_TIMEOUT_MS):
        assert session.run_anyway("vecadd", request)
    assert [(r.n, r.force) for r in backend.requests] == [(2_000_000, True)]
    assert len(asked) == 1 and results[-1].n == 2_000_000  # type: ignore[attr-defined]
    session.close()
