"""The worker's low-priority jobs (issue 21: start → ready ≤ 2.5 s on the GPU): the GPU warm-up
the first Run does not need runs after ready, only while the user waits for nothing."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import pytest

from simtviz import jobs
from simtviz.backends.base import Backend, BackendInfo, BackendKind
from simtviz.core.errors import Cancelled
from simtviz.jobs import Job, Worker

WAIT_S = 10.0


class Idle(Backend):
    """A backend that runs nothing itself: the jobs' own work is what is tested."""

    kind = BackendKind.SIM

    def info(self) -> BackendInfo:
        raise NotImplementedError


class Log:
    """What ran, in order, and when (thread-safe appends)."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, float]] = []
        self.done = threading.Event()

    def step(self, name: str, result: Any = None) -> Any:
        def work(_backend: Any, _progress: Any) -> Any:
            self.entries.append((name, time.monotonic()))
            return result

        return work

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.entries]


@pytest.fixture
def worker() -> Any:
    w = Worker(Idle)
    yield w
    w.shutdown()


def hold(worker: Worker) -> threading.Event:
    """A user job that keeps the worker until the event is set."""
    release = threading.Event()
    started = threading.Event()
    worker.submit("hold", lambda _b, _p: (started.set(), release.wait(WAIT_S)))
    assert started.wait(WAIT_S)
    return release


def finished(worker: Worker, low_priority: bool = False) -> threading.Event:
    done = threading.Event()
    worker.submit("end", lambda _b, _p: done.set(), low_priority=low_priority)
    return done


def test_low_priority_jobs_wait_for_the_user_jobs(worker: Worker) -> None:
    log = Log()
    release = hold(worker)
    worker.submit("warm-up", log.step("low 1"), low_priority=True)
    worker.submit("run", log.step("run 1"))
    worker.submit("warm-up", log.step("low 2"), low_priority=True)
    worker.submit("run", log.step("run 2"))
    ended = time.monotonic()
    release.set()
    assert finished(worker, low_priority=True).wait(WAIT_S)
    # FIFO ran "low 1" before "run 1": a Run waited for warm-up work nobody asked for.
    assert log.names == ["run 1", "run 2", "low 1", "low 2"]
    run_2_at = log.entries[1][1]
    assert log.entries[2][1] - max(run_2_at, ended) >= jobs.IDLE_S * 0.9  # and a quiet spell


def test_a_user_job_submitted_while_low_priority_ones_wait_goes_first(worker: Worker) -> None:
    log = Log()
    release = hold(worker)
    for i in range(3):
        worker.submit("warm-up", log.step(f"low {i}"), low_priority=True)
    release.set()
    time.sleep(jobs.IDLE_S / 3)  # the user asks again soon after a result
    worker.submit("run", log.step("run"))
    assert finished(worker, low_priority=True).wait(WAIT_S)
    assert log.names == ["run", "low 0", "low 1", "low 2"]


def test_low_priority_jobs_run_when_the_worker_is_idle(worker: Worker) -> None:
    results: list[Any] = []
    done = threading.Event()
    worker.submit(
        "occupancy-device",
        lambda _b, _p: 42,
        on_result=lambda _job, value: (results.append(value), done.set()),
        low_priority=True,
    )
    assert done.wait(WAIT_S)
    assert results == [42]
    assert not worker.busy  # low-priority work never makes the worker busy for the user


def test_cancel_stops_the_user_jobs_and_leaves_the_low_priority_ones(worker: Worker) -> None:
    log = Log()
    errors: list[tuple[str, BaseException]] = []

    def on_error(job: Job, exc: BaseException, _tb: str) -> None:
        errors.append((job.kind, exc))

    release = hold(worker)
    worker.submit("run", log.step("run"), on_error=on_error)
    worker.submit("warm-up", log.step("low"), on_error=on_error, low_priority=True)
    worker.cancel()  # Esc
    release.set()
    assert finished(worker, low_priority=True).wait(WAIT_S)
    assert log.names == ["low"]
    assert [kind for kind, _ in errors] == ["run"] and isinstance(errors[0][1], Cancelled)


def test_a_running_low_priority_job_is_not_cancelled(worker: Worker) -> None:
    started, release = threading.Event(), threading.Event()
    outcome: list[str] = []
    worker.submit(
        "warm-up",
        lambda _b, _p: (started.set(), release.wait(WAIT_S)),
        on_result=lambda _job, _value: outcome.append("result"),
        on_error=lambda _job, exc, _tb: outcome.append(type(exc).__name__),
        low_priority=True,
    )
    assert started.wait(WAIT_S)
    worker.cancel()
    release.set()
    assert finished(worker).wait(WAIT_S)
    assert outcome == ["result"]


def test_a_failing_low_priority_job_is_logged_and_the_worker_goes_on(
    worker: Worker, caplog: pytest.LogCaptureFixture
) -> None:
    def fail(_backend: Any, _progress: Any) -> None:
        raise RuntimeError("nvrtc: out of memory")

    log = Log()
    with caplog.at_level(logging.WARNING, logger="simtviz.jobs"):
        worker.submit("warm-up:schedule kernels", fail, low_priority=True)
        worker.submit("warm-up", log.step("low after"), low_priority=True)
        assert finished(worker, low_priority=True).wait(WAIT_S)
    worker.submit("run", log.step("run after"))
    assert finished(worker).wait(WAIT_S)
    assert log.names == ["low after", "run after"]
    (record,) = [r for r in caplog.records if r.name == "simtviz.jobs"]
    assert "warm-up:schedule kernels" in record.getMessage()
    assert record.exc_info is not None and "nvrtc: out of memory" in str(record.exc_info[1])


def test_shutdown_reports_the_queued_low_priority_jobs_cancelled() -> None:
    w = Worker(Idle)
    errors: list[BaseException] = []
    release = hold(w)
    w.submit(
        "warm-up", lambda _b, _p: None, on_error=lambda _j, exc, _tb: errors.append(exc), low_priority=True
    )
    release.set()
    assert w.shutdown(WAIT_S)
    assert len(errors) == 1 and isinstance(errors[0], Cancelled)


def test_a_job_submitted_after_shutdown_never_runs() -> None:
    w = Worker(Idle)
    assert finished(w).wait(WAIT_S)
    assert w.shutdown(WAIT_S)
    ran: list[str] = []
    job = w.submit("run", lambda _b, _p: ran.append("run"))
    time.sleep(0.05)
    assert ran == [] and job.cancelled.is_set()
