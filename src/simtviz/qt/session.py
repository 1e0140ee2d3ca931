"""The run controller: one backend on one worker thread, the recording shown and what was fetched of it.

``RunSession`` has no widgets. Panels call its methods and subscribe to its signals; every result
arrives on the GUI thread. A request about the recording (its map images, one thread's record, an
export) takes the same path wherever the records live: host records answer at once, device (GPU)
records are read on the worker, and either way the answer comes through the same signal. Answers
to stale requests (an older recording, a hover that moved on) are dropped.

Isolated experiments (the Your kernel tab's ``trace``, the Exercises tab's ``exercise``) take the
same ``run`` and the same signals, but not the worker: each run is a child process of its own
(``backends.isolated``) that no CUDA or numba call in this process serves, and a student's kernel
may run to its time limit (minutes); on the one worker it would hold up the index map's runs and
its thread fetches all that while. So each isolated experiment gets a thread of its own here
(one run at a time per experiment), and ``cancel(experiment)`` kills its child at once.
"""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, is_dataclass, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QSettings, Signal

from simtviz.backends.base import Backend, BackendInfo
from simtviz.backends.record import RecordRequest as BackendRecordRequest
from simtviz.core.errors import BackendUnavailable, Cancelled, LaunchTooLarge
from simtviz.core.launch import LaunchConfig
from simtviz.core.maps import MapImages, is_device, map_images
from simtviz.core.recording import Recording, load_npz
from simtviz.core.window import choose_window
from simtviz.jobs import Job
from simtviz.qt.settings import APP_BUDGET_THREADS, AppSettings
from simtviz.qt.worker_bridge import WorkerBridge

RECORD = "record"
VECADD = "vecadd"
OPEN = "open"  # reading a saved record
EXPORT = "export"  # writing the records to a file: runStarted/runProgress carry this name
# Threads fetched from a device recording are kept (a few hundred bytes each) up to this many.
MAX_CACHED_THREADS = 10_000


@dataclass(frozen=True)
class RecordRequest:
    """One run of the instrumented kernel: the launch, and which part of it records."""

    config: LaunchConfig
    force: bool = False
    budget: int = APP_BUDGET_THREADS
    origin: tuple[int, int, int] = (0, 0, 0)


def _backend_request(experiment: str, request: Any) -> Any:
    """The experiment's own request: the app asks for a record by budget and window origin, the
    backend takes the chosen window; every other experiment's request passes through."""
    if isinstance(request, RecordRequest):
        window = choose_window(request.config, request.budget, request.origin)
        return BackendRecordRequest(request.config, window, force=request.force)
    return request


def _isolated(experiment: str) -> bool:
    """Whether ``experiment`` runs in a child process of its own (imports its module once)."""
    from simtviz.backends.experiment import get, is_isolated

    try:
        return is_isolated(get(experiment))
    except KeyError:  # not registered in this process: the worker's backend says so
        return False


def backend_factory(flag: str) -> Callable[[], Backend]:
    """Creates the backend on the worker thread and starts it (the simulator's child process now,
    not at the first Run)."""

    def make() -> Backend:
        from simtviz.backends import create_backend

        backend = create_backend(flag, in_process=False)
        backend.warm_up()
        return backend

    return make


def _step_work(run: Callable[[], object]) -> Callable[[Backend, Callable[[float], None]], object]:
    """A warm-up step as a worker job (the step needs neither the backend nor progress)."""
    return lambda _backend, _progress: run()


def _write(
    recording: Recording, fmt: str, target: Path, progress: Callable[[float], None] | None = None
) -> Path:
    if fmt == "csv":
        return recording.save_csv(target, progress)
    return recording.save_npz(target, progress)


class RunSession(QObject):
    """Owns the worker bridge, the current recording and the caches of what was read from it."""

    backendReady = Signal(object)  # BackendInfo
    backendFailed = Signal(object, str)  # exception, traceback ("" for simtviz's own errors)
    busyChanged = Signal(bool)
    runStarted = Signal(str, object)  # experiment, request
    runProgress = Signal(str, float)  # experiment, 0..1
    runFailed = Signal(str, object, object, str)  # experiment, request, exception, traceback
    resultArrived = Signal(str, object)  # experiment, result (for "record": the Recording)
    recordingChanged = Signal(object)  # Recording now current
    imagesArrived = Signal(object)  # MapImages of the current recording
    threadArrived = Signal(object, int, object)  # Recording, row, that thread's record
    fetchFailed = Signal(object, str)  # exception, traceback
    exportFinished = Signal(object)  # Path written
    exportFailed = Signal(object)  # exception
    openFailed = Signal(object, object)  # Path, exception
    closing = Signal()  # the window is closing: panels end their own processes
    # One line from the backend about the run (the emulator handing a kernel to the simulator).
    noticeArrived = Signal(str)
    runNotice = Signal(str, str)  # experiment, the same line: a tab shows its own run's
    # A run refused as too long without force (after its runFailed): experiment, request, the
    # LaunchTooLarge. The window asks "Run it anyway?" (dialogs.ask_run_anyway) → run_anyway.
    confirmRequested = Signal(str, object, object)
    # An isolated run ended, from its thread: experiment, request, result, exception, traceback.
    _isolatedDone = Signal(str, object, object, object, str)
    # Intents: one tab asks for something another tab or the window does (see "intents" below).
    showRequested = Signal(object)  # a QWidget: bring forward the tab page that holds it
    statusRequested = Signal(str, int)  # a passing message, its milliseconds (0: a busy line)
    launchRequested = Signal(object, str)  # LaunchConfig, colouring ("": keep): show it in the index map
    blockRequested = Signal(object, object)  # LaunchConfig, blockIdx: pin its thread (0, 0, 0)
    presentationChanged = Signal(bool)  # the window's font size changed (presentation mode)

    def __init__(
        self,
        factory: Callable[[], Backend] | None = None,
        parent: QObject | None = None,
        backend: str = "sim",
    ) -> None:
        super().__init__(parent)
        # The view settings the window loaded, and where they are kept (None: nowhere, e.g. a
        # panel built alone in a test): tabs read and save their own keys through these.
        self.settings = AppSettings()
        self.store: QSettings | None = None
        self._recording: Recording | None = None
        self._opened_from: Path | None = None
        self._info: BackendInfo | None = None
        self._no_backend = False
        self._closing = False
        self._started = 0.0
        self._images: MapImages | None = None  # of one field: a new field replaces it
        self._threads: dict[int, dict[str, Any]] = {}
        # The row each kind of thread fetch ("thread" for hover, "pin") waits for; the bridge drops
        # all but the latest of a kind, so a newer hover drops an older one, never a pin.
        self._fetching: dict[str, int] = {}
        self._isolated: dict[str, Backend] = {}  # experiment → the backend running it now
        self._isolatedDone.connect(self._on_isolated_done)
        self.bridge = WorkerBridge(factory or backend_factory(backend), self)
        self.bridge.ready.connect(self._on_ready)
        self.bridge.backendFailed.connect(self._on_backend_failed)
        self.bridge.busyChanged.connect(self.busyChanged)

    # --- backend ------------------------------------------------------------------------------
    @property
    def backend(self) -> Backend | None:
        return self.bridge.backend

    @property
    def info(self) -> BackendInfo | None:
        return self._info

    @property
    def kind(self) -> str:
        """``gpu``, ``emu`` or ``sim``; until the backend is ready, assume the slow one."""
        return self._info.kind if self._info is not None else "sim"

    @property
    def busy(self) -> bool:
        return self.bridge.busy

    @property
    def can_run(self) -> bool:
        return not self.bridge.busy and not self._no_backend and not self._closing

    def _on_ready(self, backend: Backend) -> None:
        self._no_backend = False
        self._info = backend.info()
        self.backendReady.emit(self._info)
        # The GPU warm-up the first Run does not need (the other colour fields, the schedule
        # kernels): on the worker, CUDA's one owner, after anything the user asks for.
        for step in backend.warm_ups_after_ready():
            self.bridge.submit(f"warm-up: {step.name}", _step_work(step.run), low_priority=True)

    def _on_backend_failed(self, exc: BaseException, tb: str) -> None:
        self._no_backend = True
        self._info = None
        self.backendFailed.emit(exc, tb)

    def use_simulator(self) -> None:
        """Start the CUDA simulator in place of a backend that failed."""
        self._no_backend = False
        self.bridge.restart(backend_factory("sim"))

    # --- runs ---------------------------------------------------------------------------------
    def run(self, experiment: str, request: Any) -> bool:
        """Start ``experiment`` on the worker (an isolated one in a child process of its own);
        False (and nothing happens) while busy or closing."""
        if _isolated(experiment):
            return self._run_isolated(experiment, request)
        if not self.can_run:
            return False
        self._started = time.perf_counter()
        self.runStarted.emit(experiment, request)
        backend_request = _backend_request(experiment, request)

        def work(backend: Backend, progress: Callable[[float], None]) -> Any:
            # Called on the worker: the signal is queued to the GUI thread.
            backend.notice_handler = self.noticeArrived.emit
            return backend.run(experiment, backend_request, progress)

        self.bridge.submit(
            experiment,
            work,
            on_result=lambda result: self._on_result(experiment, result),
            on_error=lambda exc, tb: self._on_error(experiment, request, exc, tb),
            on_progress=lambda fraction: self.runProgress.emit(experiment, fraction),
        )
        return True

    def record(self, request: RecordRequest) -> bool:
        return self.run(RECORD, request)

    def seconds_since_run(self) -> float:
        """Since the last run was started: read when its result is shown ("Run → map")."""
        return time.perf_counter() - self._started

    def cancel(self, experiment: str | None = None) -> bool:
        """Stop the running job (``experiment``: that isolated experiment's run); it fails with
        ``Cancelled``. False when nothing runs."""
        if experiment is not None and _isolated(experiment):
            backend = self._isolated.get(experiment)
            if backend is None:
                return False
            backend.cancel()
            return True
        if not self.bridge.busy:
            return False
        self.bridge.cancel()
        return True

    # --- isolated experiments (a child process per run; see the module's docstring) ----------
    def child_kind(self) -> str:
        """The backend kind an isolated run uses: the session's, or until it is ready the one
        ``auto`` / ``$SIMTVIZ_BACKEND`` picks."""
        if self._info is not None:
            return str(self.kind)
        from simtviz.backends.selection import resolve_backend

        return resolve_backend(None)

    def running(self, experiment: str) -> bool:
        """True while an isolated run of ``experiment`` is in progress."""
        return experiment in self._isolated

    def prewarm(self, experiment: str) -> None:
        """Start ``experiment``'s next child process now (numba imported; on a GPU also warmed
        up), off the GUI thread, so Run finds it ready."""
        if self._closing or experiment in self._isolated:
            return
        from simtviz.backends.isolated import prewarm

        prewarm(self.child_kind(), experiment)

    def _run_isolated(self, experiment: str, request: Any) -> bool:
        if self._closing or experiment in self._isolated:
            return False
        from simtviz.backends import info_for
        from simtviz.backends.isolated import ChildBackend

        backend = ChildBackend(info_for(self.child_kind()))
        backend.notice_handler = lambda line: self._notice(experiment, line)
        self._isolated[experiment] = backend
        self.runStarted.emit(experiment, request)

        def work() -> None:
            # Signals emitted here are queued to the GUI thread.
            try:
                result = backend.run(
                    experiment, request, lambda fraction: self.runProgress.emit(experiment, fraction)
                )
            except BaseException as exc:  # every failure is reported, in words
                self._isolatedDone.emit(experiment, request, None, exc, traceback.format_exc())
            else:
                self._isolatedDone.emit(experiment, request, result, None, "")

        threading.Thread(target=work, name=f"simtviz-{experiment}", daemon=True).start()
        return True

    def _notice(self, experiment: str, line: str) -> None:
        self.runNotice.emit(experiment, line)
        self.noticeArrived.emit(line)

    def _on_isolated_done(
        self, experiment: str, request: Any, result: Any, exc: BaseException | None, tb: str
    ) -> None:
        self._isolated.pop(experiment, None)
        if self._closing:
            return
        if exc is not None:
            self._report_failure(experiment, request, exc, tb)
        else:
            self.resultArrived.emit(experiment, result)
        self.prewarm(experiment)  # the next run finds numba already imported, after a failure too

    def _on_result(self, experiment: str, result: Any, opened_from: Path | None = None) -> None:
        if self._closing:
            return
        if experiment == RECORD:
            self._opened_from = opened_from
            self._recording = result
            self._images, self._threads, self._fetching = None, {}, {}
            self.recordingChanged.emit(result)
        self.resultArrived.emit(experiment, result)

    def _on_error(self, experiment: str, request: Any, exc: BaseException, tb: str) -> None:
        if self._closing:
            return
        if isinstance(exc, BackendUnavailable):
            self._on_backend_failed(exc, "")
        self._report_failure(experiment, request, exc, tb)

    def _report_failure(self, experiment: str, request: Any, exc: BaseException, tb: str) -> None:
        """``runFailed`` for every failure; a run too long to start unasked also asks."""
        self.runFailed.emit(experiment, request, exc, tb)
        if isinstance(exc, LaunchTooLarge) and is_dataclass(request) and hasattr(request, "force"):
            self.confirmRequested.emit(experiment, request, exc)

    def run_anyway(self, experiment: str, request: Any) -> bool:
        """ "Run it anyway? Yes": the same request again, with ``force``."""
        return self.run(experiment, replace(request, force=True))

    # --- the current recording ------------------------------------------------------------------
    @property
    def recording(self) -> Recording | None:
        return self._recording

    def request_images(self, recording: Recording, field: str, planes: tuple[int, ...]) -> None:
        """Images of ``field`` for ``planes``, delivered by ``imagesArrived`` (at once when cached
        or on the host)."""
        if recording is not self._recording:
            return
        cached = self._images
        if cached is not None and cached.field == field and all(z in cached.planes for z in planes):
            self.imagesArrived.emit(cached)
        elif not is_device(recording):
            self._on_images(map_images(recording, field, planes))
        else:
            self.bridge.submit(
                "image",
                lambda _backend, _progress: map_images(recording, field, planes),
                on_result=self._on_images,
                on_error=self._on_fetch_error,
                quiet=True,
            )

    def _on_images(self, images: MapImages) -> None:
        if images.recording is not self._recording:
            return  # for a map no longer shown
        cached = self._images
        if cached is not None and cached.field == images.field:
            images = MapImages(
                images.recording,
                images.field,
                {**cached.planes, **images.planes},
                images.levels,
                images.any_known,
            )
        self._images = images
        self.imagesArrived.emit(images)

    def thread_record(self, row: int, kind: str = "thread") -> dict[str, Any] | None:
        """Row ``row`` of the current recording if known now; else it is asked for and comes with
        ``threadArrived`` (None for now)."""
        if self._recording is None:
            return None
        if row not in self._threads:
            self.request_thread(row, kind)
        return self._threads.get(row)

    def request_thread(self, row: int, kind: str = "thread") -> None:
        rec = self._recording
        if rec is None:
            return
        if row in self._threads:
            self.threadArrived.emit(rec, row, self._threads[row])
        elif not is_device(rec):
            self._on_thread(kind, (rec, row, rec.thread_at(row)))
        elif self._fetching.get(kind) != row:
            self._fetching[kind] = row
            self.bridge.submit(
                kind,
                lambda _backend, _progress: (rec, row, rec.thread_at(row)),  # a few bytes cross
                on_result=lambda result: self._on_thread(kind, result),
                on_error=self._on_fetch_error,
                quiet=True,
            )

    def _on_thread(self, kind: str, result: tuple[Recording, int, dict[str, Any]]) -> None:
        recording, row, t = result
        if self._fetching.get(kind) == row:
            del self._fetching[kind]
        if recording is not self._recording:
            return
        if len(self._threads) >= MAX_CACHED_THREADS:
            self._threads.clear()
        self._threads[row] = t
        self.threadArrived.emit(recording, row, t)

    def _on_fetch_error(self, exc: BaseException, tb: str) -> None:
        self._fetching.clear()
        self.fetchFailed.emit(exc, tb)

    def export_records(self, target: Path, fmt: str = "npz") -> Path | None:
        """Write the current recording's records (``fmt`` npz or csv) on the worker, with
        progress (``runProgress`` of ``EXPORT``) and Cancel; ``exportFinished`` or
        ``exportFailed`` follows. Host records go the same way: a 57 MB CSV takes seconds to
        format, and the GUI thread must never wait for it. Returns ``target`` when started,
        None when there is nothing to write or the worker is busy."""
        rec = self._recording
        if rec is None or self.bridge.busy:
            return None
        device = is_device(rec)
        job: list[Job] = []

        def work(backend: Backend, report: Callable[[float], None]) -> Path:
            def step(fraction: float) -> None:
                if job and job[0].cancelled.is_set():
                    raise Cancelled("export cancelled")  # the half-written file is removed
                report(fraction)

            # A device record is copied to the host (pinned, when the backend can) here first.
            host = backend.to_host(rec) if device else rec
            return _write(host, fmt, target, step)

        self.runStarted.emit(EXPORT, target)
        submitted = self.bridge.submit(
            EXPORT,
            work,
            on_result=self.exportFinished.emit,
            on_error=lambda exc, _tb: self.exportFailed.emit(exc),
            on_progress=lambda fraction: self.runProgress.emit(EXPORT, fraction),
        )
        job.append(submitted)
        return target

    def open_record(self, path: Path) -> bool:
        """Read a saved record (``simtviz record`` / export .npz) on the worker and show it as the
        current recording, as it was recorded (its launch, window and backend); ``openFailed``
        when the file is not one. False while busy."""
        if self.bridge.busy:
            return False
        self._started = time.perf_counter()
        self.bridge.submit(
            OPEN,
            lambda _backend, _progress: load_npz(path),
            on_result=lambda recording: self._on_result(RECORD, recording, opened_from=path),
            on_error=lambda exc, _tb: self.openFailed.emit(path, exc),
        )
        return True

    @property
    def opened_from(self) -> Path | None:
        """The file the current recording was read from; None for a run."""
        return self._opened_from

    # --- closing ----------------------------------------------------------------------------
    def close(self, timeout: float = 1.5) -> bool:
        """Stop the worker (cancelling what runs); later results are dropped."""
        self._closing = True
        self.closing.emit()
        for backend in list(self._isolated.values()):
            backend.cancel()  # kills the child; its thread ends within a poll
        from simtviz.backends.isolated import WARM

        WARM.close()  # the children started ahead
        return self.bridge.shutdown(timeout)

    # --- intents ------------------------------------------------------------------------------
    # A tab never reaches into the window or another tab: it states what it wants here, and the
    # window (tab pages, status bar) or the index map tab (launches, blocks) answers.
    def show(self, widget: Any) -> None:
        """Bring forward the tab page that holds ``widget``."""
        self.showRequested.emit(widget)

    def say(self, text: str, ms: int = 8000) -> None:
        """A passing message in the status bar; ``ms`` 0: a busy line, gone when the run ends."""
        self.statusRequested.emit(text, ms)

    def show_launch(self, config: LaunchConfig, colouring: str = "") -> None:
        """Show ``config`` in the index map (coloured by ``colouring``), recording it unless the
        map shows it already; the recording arrives through ``recordingChanged``."""
        self.launchRequested.emit(config, colouring)

    def show_block(self, config: LaunchConfig, block_xyz: tuple[int, int, int]) -> None:
        """Pin thread (0, 0, 0) of ``block_xyz`` of ``config`` in the index map (recording it first
        when the map does not hold that block)."""
        self.blockRequested.emit(config, block_xyz)

    def set_presentation(self, on: bool) -> None:
        self.settings.presentation = bool(on)
        self.presentationChanged.emit(bool(on))
