"""Isolated experiments: a fresh child process per run, with a time limit (``Backend.run``).

An experiment that declares ``isolated = True`` (the student's traced kernel, an exercise's
grading) never runs in the calling process, nor in the simulator child the index map shares:
a GPU fault or a sticky CUDA error poisons a context for good, and an endless loop must be
killed, not interrupted. So each run gets ``python -m simtviz.backends.isolated_child KIND MODULE
NAME`` through ``subprocess`` (which also works from inside a daemonic process) with pickled
messages on its stdin/stdout; the child loads the experiment by module and name. simtviz's
structured errors (exit codes 2/3/6) come back intact. No CUDA or numba call happens in the
calling process, so a backend that was never started (``backends.child_backend``) can run them.

The clock of the time limit (``request.time_limit_s``) starts when the child is ready (numba
imported, context made), so a slow start on a cold laptop never counts against the student's
kernel; from then it covers everything (reading the file, building the arrays, the file's
top-level code, compiling and running the kernel) up to the analysis, which gets
ANALYSIS_LIMIT_S of its own.

Nothing is left behind: each child leads its own session (process group), so the time limit,
Cancel and closing the window kill the whole group, a ``sleep &`` started by module code included;
its temporary folder ``$TMPDIR/simtviz-trace-<app pid>-*`` is removed whenever the child ends, and
folders of apps that died (SIGKILL, a power cut) are removed when the next child starts. The
child sets its own limits and dies with the app (``child_limits``); children are started from one
long-lived thread (``spawn``) because Linux's parent-death signal fires when the thread that
started a child ends, not the process.

``prewarm`` starts the next child ahead of time (the desktop app keeps one waiting per
experiment), which hides numba's import (~1 s) from Run. A child started for a known request
gets the environment the experiment's optional ``child_env(kind, request)`` asks for (the trace
skips its GPU-compile checker when the verdict is cached).
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, cast

from simtviz.backends.base import Backend, BackendInfo
from simtviz.backends.experiment import AnyExperiment, module_of, resolve
from simtviz.backends.isolated_child import read_message, write_message
from simtviz.core.errors import BackendUnavailable, Cancelled, KernelFailed, TimeLimitReached

Progress = Callable[[float], None]
log = logging.getLogger(__name__)
POLL_SECONDS = 0.05
# How long a child may take to import numba (and make a CUDA context) before it counts as broken.
START_TIMEOUT_S = 120.0
STDERR_KEEP = 20_000  # characters of the child's stderr kept for messages (the kernel's prints)


# Progress the trace's child reports once the kernel has run (backends/trace/gpu.py, sim.py):
# from there the analysis gets a clock of its own (an experiment's ``analysis_from``).
ANALYSIS_FROM = 0.4
ANALYSIS_LIMIT_S = 180.0


TEMP_PREFIX = "simtviz-trace-"
# Folders of the old naming (no app pid) are removed once this old: no run lasts a day.
OLD_FOLDER_AGE_S = 86_400.0


def remove_stale_trace_temp(base: str | None = None) -> list[Path]:
    """Remove ``simtviz-trace-<pid>-*`` folders whose app (``pid``) is gone; returns them."""
    from simtviz.backends.sim_process import _pid_alive

    removed = []
    for folder in sorted(Path(base or tempfile.gettempdir()).glob(f"{TEMP_PREFIX}*")):
        head = folder.name[len(TEMP_PREFIX) :].split("-")[0]
        if head.isdigit():
            pid = int(head)
            if pid == os.getpid() or _pid_alive(pid):
                continue
        else:
            with contextlib.suppress(OSError):
                if time.time() - folder.stat().st_mtime < OLD_FOLDER_AGE_S:
                    continue
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


_stale_removed = False


class _Spawner:
    """Starts every child from one daemon thread that lives as long as this process."""

    def __init__(self) -> None:
        self._jobs: queue.Queue[tuple[Callable[[], Any], queue.Queue[Any]]] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def __call__(self, make: Callable[[], Any]) -> Any:
        if threading.current_thread() is threading.main_thread():
            return make()  # the main thread ends only with the process
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._serve, name="simtviz-trace-spawner", daemon=True)
                self._thread.start()
        reply: queue.Queue[Any] = queue.Queue()
        self._jobs.put((make, reply))
        ok, value = reply.get()
        if not ok:
            raise value
        return value

    def _serve(self) -> None:
        while True:
            make, reply = self._jobs.get()
            try:
                reply.put((True, make()))
            except BaseException as exc:
                reply.put((False, exc))


spawn = _Spawner()


def child_env(kind: str) -> dict[str, str]:
    env = dict(os.environ)
    if kind == "sim":
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    else:
        env.pop("NUMBA_ENABLE_CUDASIM", None)
    # The child imports simtviz the way this process did (an uninstalled checkout included).
    import simtviz

    src = os.path.dirname(os.path.dirname(os.path.abspath(simtviz.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH", "")) if p)
    env["PYTHONUNBUFFERED"] = "1"
    return env


class IsolatedChild:
    """One child process of backend ``kind`` for ``experiment``, started now; ``run`` sends it
    one request."""

    def __init__(self, kind: str, experiment: AnyExperiment | str, request: Any = None) -> None:
        global _stale_removed
        self.kind = kind
        chosen = resolve(experiment)
        self.experiment = chosen.name
        self.module = module_of(chosen)
        # Progress from which what is left is simtviz's own analysis, on a clock of its own
        # (None: one clock for the whole run).
        self.analysis_from: float | None = getattr(chosen, "analysis_from", None)
        if not _stale_removed:
            _stale_removed = True
            remove_stale_trace_temp()
        creation: dict[str, Any] = {}
        if sys.platform == "win32":  # pragma: no cover - no console window per run
            creation["creationflags"] = subprocess.CREATE_NO_WINDOW  # Python 3.7 and later
        else:
            creation["start_new_session"] = True  # its own process group: killed as one
        self.folder = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-"))
        env = child_env(kind)
        env["TMPDIR"] = str(self.folder)  # whatever the child (or the student's file) writes
        hint = getattr(chosen, "child_env", None)
        if request is not None and callable(hint):
            env.update(hint(kind, request))  # the request it will run is known (not started ahead)
        try:
            self.proc = spawn(
                lambda: subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "simtviz.backends.isolated_child",
                        kind,
                        self.module,
                        self.experiment,
                        str(os.getpid()),
                    ],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    env=env,
                    **creation,
                )
            )
        except BaseException:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise
        self.phase = "ready"
        self.messages: queue.Queue[Any] = queue.Queue()
        self.ready = threading.Event()  # set when the child has said "ready" (warmed up)
        self._stderr: list[str] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True).start()
        threading.Thread(target=self._drain, args=(self.proc.stderr,), daemon=True).start()

    @property
    def pid(self) -> int:
        return int(self.proc.pid)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stderr_text(self) -> str:
        return "".join(self._stderr)[-STDERR_KEEP:]

    def _read(self, stream: IO[bytes]) -> None:
        try:
            while True:
                message = read_message(stream)
                if message[0] == "ready":
                    self.ready.set()
                self.messages.put(message)
        except Exception:
            self.messages.put(("eof",))

    def _drain(self, stream: IO[bytes]) -> None:
        for raw in iter(lambda: stream.readline(), b""):
            self._stderr.append(raw.decode("utf-8", "replace"))
            if len(self._stderr) > 2000:
                del self._stderr[:1000]

    def kill(self) -> None:
        """End the child and every process it started (SIGKILL to its process group), reap it
        and remove its temporary folder; a GPU child's context goes with it."""
        if sys.platform != "win32":
            # Its group outlives it while a member lives (a 'sleep &'), and Linux does not reuse
            # the number of a group in use: killing it after the child's end is still safe.
            with contextlib.suppress(OSError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):
                self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):  # the OS did not reap it yet
            self.proc.wait(5)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                with contextlib.suppress(Exception):
                    stream.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _next(self, deadline: float | None, cancel: threading.Event | None) -> Any:
        """The next message; raises Cancelled / TimeLimitReached (after killing the child)."""
        while True:
            if cancel is not None and cancel.is_set():
                self.kill()
                raise Cancelled("run cancelled")
            if deadline is not None and time.monotonic() >= deadline:
                self.kill()
                raise _Deadline
            try:
                return self.messages.get(timeout=POLL_SECONDS)
            except queue.Empty:
                continue

    def wait_ready(self, cancel: threading.Event | None = None) -> None:
        try:
            message = self._next(time.monotonic() + START_TIMEOUT_S, cancel)
        except _Deadline:
            raise BackendUnavailable("the traced kernel's process did not start in time") from None
        if message[0] == "ready":
            return
        self.kill()
        raise self._failure(message)

    def matches(self, kind: str, experiment: str) -> bool:
        return self.kind == kind and self.experiment == experiment and self.alive()

    def run(
        self,
        request: Any,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
    ) -> Any:
        """Run ``request`` in this child (once); the child is gone afterwards, whatever happened."""
        try:
            self.wait_ready(cancel)
            assert self.proc.stdin is not None
            write_message(cast(IO[bytes], self.proc.stdin), request, self._lock)
            deadline = time.monotonic() + max(0.1, float(request.time_limit_s))
            self.phase, analysing = "prepare", False
            while True:
                try:
                    message = self._next(deadline, cancel)
                except _Deadline:
                    raise TimeLimitReached(
                        request.time_limit_s, f"the kernel {_kernel_words(request)}", self.phase
                    ) from None
                if message[0] == "phase":
                    self.phase = str(message[1])
                    continue
                if message[0] == "progress":
                    # The limit covers reading the file, the arrays, the module and the kernel:
                    # one clock from the request. Once the traced run has ended (ANALYSIS_FROM)
                    # what is left is simtviz's own analysis and timing, which on a fresh machine
                    # compiles CuPy's kernels for over 10 s (measured on the H200): that gets
                    # ANALYSIS_LIMIT_S of its own, once.
                    start = self.analysis_from
                    if start is not None and float(message[1]) >= start and not analysing:
                        analysing = True
                        self.phase = "analysis"
                        step_s = max(float(request.time_limit_s), ANALYSIS_LIMIT_S)
                        deadline = time.monotonic() + step_s
                    if progress is not None:
                        progress(min(0.99, float(message[1])))
                    continue
                if message[0] == "ok":
                    result = message[1]
                    output = self.stderr_text().strip()
                    if output and isinstance(getattr(result, "notes", None), list):
                        result.notes.append(f"the kernel printed:\n{output[-2000:]}")
                    return result
                raise self._failure(message)
        finally:
            self.kill()

    def _failure(self, message: tuple[Any, ...]) -> BaseException:
        if message[0] == "eof":
            self.kill()
            code = self.proc.returncode
            tail = self.stderr_text().strip().splitlines()[-3:]
            more = f": {' / '.join(tail)}" if tail else ""
            return KernelFailed(
                f"the traced kernel's process ended unexpectedly (exit status {code}){more}; "
                "the app is unaffected"
            )
        _, exc, name, text, _tb = message
        if isinstance(exc, KernelFailed) and exc.needs_restart:
            # Sticky in the child's context only: that process is gone, this one is fine.
            return KernelFailed(f"{exc.message} (only the traced kernel's own process was affected)")
        if isinstance(exc, BaseException):
            from simtviz.core.errors import describe

            try:
                describe(exc)  # an error simtviz words (its own, MemoryError): carried as it is
                return exc
            except KeyError:
                pass
        return KernelFailed(f"the traced kernel's process raised {name}: {text}")


class _Deadline(Exception):
    pass


def _kernel_words(request: Any) -> str:
    kernel = getattr(request, "kernel", None)
    return f"'{kernel}'" if kernel else f"in {getattr(request, 'filename', 'the file')}"


def run_isolated(
    kind: str,
    experiment: AnyExperiment | str,
    request: Any,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    child: IsolatedChild | None = None,
) -> Any:
    """Run ``request`` of ``experiment`` on backend ``kind`` in a child process (``child`` if one
    was started ahead for it, else one waiting from ``prewarm``, else a new one) and return its
    result. Checks nothing: ``Backend.run`` checks first.

    Raises what the run raised there (TraceUnsupported, KernelCompileError, LaunchRejected,
    KernelFailed, …), TimeLimitReached after ``request.time_limit_s`` of running, Cancelled.
    """
    name = resolve(experiment).name
    if child is None:
        child = WARM.take(kind, name)
    if child is None or not child.matches(kind, name):
        if child is not None:
            child.kill()
        child = IsolatedChild(kind, experiment, request)
    return child.run(request, progress, cancel)


class ChildBackend(Backend):
    """A backend of ``info``'s kind that starts nothing in this process (no CUDA context, no
    numba, no simulator child): it runs isolated experiments only, each in its own child. The
    command line's ``trace`` and ``exercise`` and the app's tabs use it, so a student's kernel
    never waits for (nor blocks) the app's worker and its backend."""

    def __init__(self, info: BackendInfo) -> None:
        self._info = info
        self.kind = info.kind

    def info(self) -> BackendInfo:
        return self._info

    def execute(self, experiment: AnyExperiment, request: Any, progress: Progress | None) -> Any:
        raise NotImplementedError(f"{experiment.name!r} does not run isolated; use create_backend")


class WarmChildren:
    """Keeps one child per isolated experiment started and waiting, so the next Run skips numba's
    import (the desktop app's tabs ask for it when shown, and after each run)."""

    def __init__(self) -> None:
        self._children: dict[str, IsolatedChild] = {}
        self._lock = threading.Lock()
        self.generation = 0  # one more at each close(): a start asked for before it is dropped

    def take(self, kind: str, experiment: str) -> IsolatedChild | None:
        with self._lock:
            child = self._children.pop(experiment, None)
        if child is not None and not child.matches(kind, experiment):
            child.kill()
            return None
        return child

    def waiting(self, experiment: str) -> IsolatedChild | None:
        """The child waiting for ``experiment``'s next run, if any (tests and benchmarks)."""
        with self._lock:
            return self._children.get(experiment)

    def prepare(self, kind: str, experiment: AnyExperiment | str, generation: int | None = None) -> None:
        """Start ``experiment``'s next child of ``kind`` now (on the calling thread), unless one
        waits; not when ``close()`` came since ``generation`` (a window closed meanwhile)."""
        name = resolve(experiment).name
        with self._lock:
            if generation is not None and generation != self.generation:
                return  # a child started now would wait for nobody
            old = self._children.get(name)
            if old is not None and old.matches(kind, name):
                return
            self._children[name] = IsolatedChild(kind, experiment)
        if old is not None:
            old.kill()

    def close(self) -> None:
        """End every waiting child; no more are started."""
        with self._lock:
            self.generation += 1
            children, self._children = list(self._children.values()), {}
        for child in children:
            child.kill()


WARM = WarmChildren()


def prewarm(kind: str, experiment: AnyExperiment | str) -> None:
    """Start ``experiment``'s next child of ``kind`` on a thread of its own (never the GUI's)."""

    generation = WARM.generation

    def start() -> None:
        try:
            WARM.prepare(kind, experiment, generation)
        except Exception:
            log.exception("could not start the next run's process ahead")

    threading.Thread(target=start, name="simtviz-isolated-prewarm", daemon=True).start()
