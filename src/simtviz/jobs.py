"""One worker thread owns every CUDA and simulator call; callers get results through callbacks.

CUDA contexts and numba's simulator are not safe to share between threads, so the backend is
created on the worker thread and only ever used there. Qt-free: the desktop app turns the
callbacks into queued signals (``simtviz.qt.worker_bridge``); tests use plain callables.

Low-priority jobs (``submit(..., low_priority=True)``: the GPU warm-up left for after ready, the
occupancy panel's questions) run only while the user waits for nothing: no user job queued and
none ended in the last ``IDLE_S`` seconds. ``cancel()`` (Esc) leaves them; one that fails is
logged, never reported as the user's error.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from simtviz.backends.base import Backend
from simtviz.core.errors import Cancelled

# A job's work: given the backend and a progress callback (0..1), return a result or raise.
Work = Callable[[Backend, Callable[[float], None]], Any]

# A user who just got a result often asks again at once (a hover, the next Run): low-priority
# work waits this long after the last user job (or the backend's start) before it takes the
# worker, since a job once started cannot be interrupted (a CUDA compile holds it 0.3 s).
IDLE_S = 0.15

log = logging.getLogger(__name__)


@dataclass
class Job:
    id: int
    kind: str
    work: Work
    on_result: Callable[[Job, Any], None] | None = None
    on_error: Callable[[Job, BaseException, str], None] | None = None
    on_progress: Callable[[Job, float], None] | None = None
    cancelled: threading.Event = field(default_factory=threading.Event)
    low_priority: bool = False


class Worker:
    """A single background thread that runs submitted jobs one after another: user jobs in order,
    low-priority ones in order while no user job waits (see the module's docstring)."""

    def __init__(
        self,
        backend_factory: Callable[[], Backend],
        on_ready: Callable[[Backend], None] | None = None,
        on_backend_error: Callable[[BaseException, str], None] | None = None,
    ) -> None:
        self._factory = backend_factory
        self._on_ready = on_ready
        self._on_backend_error = on_backend_error
        self._user: deque[Job] = deque()
        self._low: deque[Job] = deque()
        self._stopping = False
        self._ids = itertools.count(1)
        self._current: Job | None = None
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        # When the last user job ended; the backend's start counts as one (a Run pressed the
        # moment it is ready must not find a warm-up step just begun).
        self._user_ended = time.monotonic()
        self.backend: Backend | None = None
        self._thread = threading.Thread(target=self._loop, name="simtviz-worker", daemon=True)
        self._thread.start()

    @property
    def busy(self) -> bool:
        """A user job runs or waits (low-priority work does not count)."""
        with self._lock:
            current = self._current
            return bool(self._user) or (current is not None and not current.low_priority)

    def submit(
        self,
        kind: str,
        work: Work,
        on_result: Callable[[Job, Any], None] | None = None,
        on_error: Callable[[Job, BaseException, str], None] | None = None,
        on_progress: Callable[[Job, float], None] | None = None,
        low_priority: bool = False,
    ) -> Job:
        job = Job(next(self._ids), kind, work, on_result, on_error, on_progress, low_priority=low_priority)
        with self._wake:
            if self._stopping:
                job.cancelled.set()  # after shutdown: reported cancelled, never run
            (self._low if low_priority else self._user).append(job)
            self._wake.notify()
        return job

    def cancel(self) -> None:
        """Cancel the running user job and every queued one; each gets ``Cancelled`` through
        on_error. Low-priority jobs are left to run: Esc stops what the user asked for."""
        with self._lock:
            current = self._current
            for queued in self._user:
                queued.cancelled.set()
        if current is not None and not current.low_priority:
            current.cancelled.set()
            if self.backend is not None:
                self.backend.cancel()

    def shutdown(self, timeout: float = 1.5) -> bool:
        """Stop the thread (cancelling what runs); True when it ended within ``timeout``."""
        self.cancel()
        with self._wake:
            self._stopping = True
            for queued in self._low:
                queued.cancelled.set()
            self._wake.notify()
        if self.backend is not None:
            with contextlib.suppress(Exception):  # closing must never fail
                self.backend.shutdown()
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _next(self) -> Job | None:
        """The next job to run, waiting for one; None once shut down and every user job is out."""
        with self._wake:
            while True:
                if self._user:
                    job = self._user.popleft()
                elif self._stopping:
                    if not self._low:
                        return None
                    job = self._low.popleft()  # cancelled: reported so, as every job ends
                elif self._low:
                    quiet = time.monotonic() - self._user_ended
                    if quiet < IDLE_S:
                        self._wake.wait(IDLE_S - quiet)  # a user job may come meanwhile
                        continue
                    job = self._low.popleft()
                else:
                    self._wake.wait()
                    continue
                self._current = job
                return job

    def _loop(self) -> None:
        try:
            self.backend = self._factory()
        except BaseException as exc:
            if self._on_backend_error:
                self._on_backend_error(exc, traceback.format_exc())
            # Drain jobs with the same error so no caller waits forever.
            while (job := self._next()) is not None:
                with self._lock:
                    self._current = None
                if job.on_error:
                    job.on_error(job, exc, "")
            return
        with self._lock:
            self._user_ended = time.monotonic()
        if self._on_ready:
            self._on_ready(self.backend)
        backend = self.backend
        while (job := self._next()) is not None:
            try:
                self._run(job, backend)
            finally:
                with self._lock:
                    self._current = None
                    if not job.low_priority:
                        self._user_ended = time.monotonic()

    def _run(self, job: Job, backend: Backend) -> None:
        if job.cancelled.is_set():
            self._report_cancelled(job)
            return

        def progress(fraction: float, job: Job = job) -> None:
            if job.on_progress and not job.cancelled.is_set():
                job.on_progress(job, fraction)

        try:
            result = job.work(backend, progress)
        except BaseException as exc:
            if job.cancelled.is_set():
                self._report_cancelled(job)
                return
            if job.low_priority:
                # Work nobody waits for: a failure is for the log (the user may never need it).
                log.warning("low-priority job %r failed", job.kind, exc_info=exc)
            if job.on_error:
                job.on_error(job, exc, traceback.format_exc())
        else:
            if job.cancelled.is_set():
                self._report_cancelled(job)
            elif job.on_result:
                job.on_result(job, result)

    @staticmethod
    def _report_cancelled(job: Job) -> None:
        if job.on_error:
            job.on_error(job, Cancelled("run cancelled"), "")
