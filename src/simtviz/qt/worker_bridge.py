"""Qt side of the worker: callbacks from the worker thread arrive as queued signals on the GUI thread."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

from simtviz.backends.base import Backend
from simtviz.jobs import Job, Work, Worker

_HELD = {signal.SIGINT}
_CAN_HOLD = hasattr(signal, "pthread_sigmask")


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT waits (blocked) while the body runs; on the main thread, where Python handles it."""
    if not _CAN_HOLD or threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


class WorkerBridge(QObject):
    """Owns the one ``Worker``; every ``submit`` callback runs on the GUI thread.

    Results for a job that is no longer the latest of its ``kind`` are dropped (a stale request),
    so a slow run can never overwrite a newer one. ``quiet`` jobs (a map image, one thread's record)
    do not make the bridge busy: fetching a tooltip must not grey out Run. ``low_priority`` jobs
    (quiet too) wait until the user waits for nothing (``jobs.Worker``); ``cancel`` leaves them.
    """

    ready = Signal(object)  # Backend
    backendFailed = Signal(object, str)  # exception, traceback
    busyChanged = Signal(bool)
    _deliver = Signal(object, object)  # callable, args tuple — crosses threads queued

    def __init__(self, backend_factory: Callable[[], Backend], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._latest: dict[str, int] = {}
        self._running = 0
        self.backend: Backend | None = None
        self._deliver.connect(self._on_deliver)
        self._worker = self._start(backend_factory)

    def _start(self, backend_factory: Callable[[], Backend]) -> Worker:
        return Worker(
            backend_factory,
            on_ready=lambda b: self._deliver.emit(self._set_ready, (b,)),
            on_backend_error=lambda e, tb: self._deliver.emit(self.backendFailed.emit, (e, tb)),
        )

    def restart(self, backend_factory: Callable[[], Backend]) -> None:
        """A new worker with another backend (after the first could not start); same bridge object,
        so panels holding it keep working."""
        self._worker.shutdown(1.0)
        self.backend = None
        self._latest.clear()
        if self._running:
            self._running = 0
            self.busyChanged.emit(False)
        self._worker = self._start(backend_factory)

    @Slot(object, object)
    def _on_deliver(self, fn: Callable[..., None], args: tuple[Any, ...]) -> None:
        # Ctrl+C raised as KeyboardInterrupt in the middle of a callback would lose its second half
        # (a run would stay "busy" forever): it waits until the callback has finished.
        with _signals_held():
            fn(*args)

    def _set_ready(self, backend: Backend) -> None:
        self.backend = backend
        self.ready.emit(backend)

    @property
    def busy(self) -> bool:
        return self._running > 0

    def submit(
        self,
        kind: str,
        work: Work,
        on_result: Callable[[Any], None] | None = None,
        on_error: Callable[[BaseException, str], None] | None = None,
        on_progress: Callable[[float], None] | None = None,
        quiet: bool = False,
        low_priority: bool = False,
    ) -> Job:
        """Run ``work(backend, progress)`` on the worker; callbacks come back on the GUI thread."""
        quiet = quiet or low_priority  # nobody waits for it: Run stays enabled
        if not quiet:
            self._running += 1
            if self._running == 1:
                self.busyChanged.emit(True)

        def finish(job: Job) -> bool:
            if not quiet and self._running > 0:  # jobs of a worker replaced by restart() may still report
                self._running -= 1
                if self._running == 0:
                    self.busyChanged.emit(False)
            return self._latest.get(job.kind) == job.id

        def result(job: Job, value: Any) -> None:
            self._deliver.emit(lambda: finish(job) and on_result and on_result(value), ())

        def error(job: Job, exc: BaseException, tb: str) -> None:
            self._deliver.emit(lambda: finish(job) and on_error and on_error(exc, tb), ())

        def progress(job: Job, fraction: float) -> None:
            if on_progress:
                self._deliver.emit(lambda: self._latest.get(job.kind) == job.id and on_progress(fraction), ())

        job = self._worker.submit(kind, work, result, error, progress, low_priority=low_priority)
        self._latest[kind] = job.id
        return job

    def cancel(self) -> None:
        """Stop the running user job and the queued ones (not the low-priority ones); their error
        callbacks receive ``Cancelled``."""
        self._worker.cancel()

    def shutdown(self, timeout: float = 1.5) -> bool:
        return self._worker.shutdown(timeout)
