"""One worker thread owns every CUDA and simulator call; callers get results through callbacks.

CUDA contexts and numba's simulator are not safe to share between threads, so the backend is
created on the worker thread and only ever used there. Qt-free: the desktop app turns the
callbacks into queued signals (``simtviz.qt.worker_bridge``); tests use plain callables.
"""

from __future__ import annotations

import contextlib
import itertools
import queue
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from simtviz.backends.base import Backend
from simtviz.core.errors import Cancelled

# A job's work: given the backend and a progress callback (0..1), return a result or raise.
Work = Callable[[Backend, Callable[[float], None]], Any]


@dataclass
class Job:
    id: int
    kind: str
    work: Work
    on_result: Callable[[Job, Any], None] | None = None
    on_error: Callable[[Job, BaseException, str], None] | None = None
    on_progress: Callable[[Job, float], None] | None = None
    cancelled: threading.Event = field(default_factory=threading.Event)


class Worker:
    """A single background thread that runs submitted jobs one after another, in order."""

    def __init__(
        self,
        backend_factory: Callable[[], Backend],
        on_ready: Callable[[Backend], None] | None = None,
        on_backend_error: Callable[[BaseException, str], None] | None = None,
    ) -> None:
        self._factory = backend_factory
        self._on_ready = on_ready
        self._on_backend_error = on_backend_error
        self._queue: queue.Queue[Job | None] = queue.Queue()
        self._ids = itertools.count(1)
        self._current: Job | None = None
        self._lock = threading.Lock()
        self.backend: Backend | None = None
        self._thread = threading.Thread(target=self._loop, name="simtviz-worker", daemon=True)
        self._thread.start()

    @property
    def busy(self) -> bool:
        with self._lock:
            return self._current is not None or not self._queue.empty()

    def submit(
        self,
        kind: str,
        work: Work,
        on_result: Callable[[Job, Any], None] | None = None,
        on_error: Callable[[Job, BaseException, str], None] | None = None,
        on_progress: Callable[[Job, float], None] | None = None,
    ) -> Job:
        job = Job(next(self._ids), kind, work, on_result, on_error, on_progress)
        self._queue.put(job)
        return job

    def cancel(self) -> None:
        """Cancel the running job and every queued one; each gets ``Cancelled`` through on_error."""
        with self._lock:
            current = self._current
            for queued in list(self._queue.queue):
                if queued is not None:
                    queued.cancelled.set()
        if current is not None:
            current.cancelled.set()
            if self.backend is not None:
                self.backend.cancel()

    def shutdown(self, timeout: float = 1.5) -> bool:
        """Stop the thread (cancelling what runs); True when it ended within ``timeout``."""
        self.cancel()
        self._queue.put(None)
        if self.backend is not None:
            with contextlib.suppress(Exception):  # closing must never fail
                self.backend.shutdown()
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _loop(self) -> None:
        try:
            self.backend = self._factory()
        except BaseException as exc:
            if self._on_backend_error:
                self._on_backend_error(exc, traceback.format_exc())
            # Drain jobs with the same error so no caller waits forever.
            while (job := self._queue.get()) is not None:
                if job.on_error:
                    job.on_error(job, exc, "")
            return
        if self._on_ready:
            self._on_ready(self.backend)
        while (job := self._queue.get()) is not None:
            if job.cancelled.is_set():
                self._report_cancelled(job)
                continue
            with self._lock:
                self._current = job
            try:

                def progress(fraction: float, job: Job = job) -> None:
                    if job.on_progress and not job.cancelled.is_set():
                        job.on_progress(job, fraction)

                result = job.work(self.backend, progress)
            except BaseException as exc:
                if job.cancelled.is_set():
                    self._report_cancelled(job)
                elif job.on_error:
                    job.on_error(job, exc, traceback.format_exc())
            else:
                if job.cancelled.is_set():
                    self._report_cancelled(job)
                elif job.on_result:
                    job.on_result(job, result)
            finally:
                with self._lock:
                    self._current = None

    @staticmethod
    def _report_cancelled(job: Job) -> None:
        if job.on_error:
            job.on_error(job, Cancelled("run cancelled"), "")
