"""Simulator runs in a child process: the window keeps its CPU core and Cancel is immediate.

The simulator starts hundreds of Python threads per block; in the GUI's process they would
compete with the event loop for the GIL, and a running launch cannot be interrupted. A child
process runs each experiment by name: it imports the experiment's module, runs its simulator
half, and sends progress and the result back over a socket. Cancel kills the child and the next
run starts a fresh one.

The child is a new interpreter started as ``python -m simtviz.backends.sim_child`` (never a fork
of a process that runs Qt, and never a re-run of the caller's script as multiprocessing's spawn
does: a script without an ``if __name__ == "__main__"`` guard would open a second window). It
dies with the app however the app ends (``sim_child``: a watchdog pipe and PR_SET_PDEATHSIG), and
its temporary folder goes with it.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from simtviz.backends.base import Backend, BackendInfo, BackendKind, Progress
from simtviz.backends.experiment import AnyExperiment, load, module_of
from simtviz.backends.sim import sim_info
from simtviz.core.errors import Cancelled, KernelFailed

POLL_SECONDS = 0.05
PROGRESS_SECONDS = 0.1
# The child's temporary folder: simtviz-sim-<parent pid>-<random>; stale ones are removed at start.
TEMP_PREFIX = "simtviz-sim-"
SYS_PATH_VARIABLE = "SIMTVIZ_PARENT_SYS_PATH"


def serve(conn: Any) -> None:
    """Child process main loop: run each requested experiment and reply with its result."""
    from simtviz.backends.selection import activate

    activate("sim")
    # Import numba and the recording kernel now, while the parent is still building its window,
    # so the first Run does not wait for them (~1 s).
    import simtviz.kernels.record  # noqa: F401

    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        _run_one(conn, *message)


def _run_one(conn: Any, module: str, name: str, request: Any, info: BackendInfo) -> None:
    sending = threading.Lock()

    def progress(fraction: float) -> None:
        with sending:  # an experiment may report from a thread of its own
            conn.send(("progress", fraction))

    try:
        experiment = load(module, name)
        reply: tuple[Any, ...] = ("ok", experiment.run_sim(request, info, progress))
    except BaseException as exc:  # reported to the parent, which raises it there
        reply = ("error", type(exc).__name__, str(exc), traceback.format_exc())
    with sending:
        conn.send(reply)


class SimProcessBackend(Backend):
    """The ``sim`` backend with every run in one persistent child process."""

    kind = BackendKind.SIM
    can_cancel = True

    def __init__(self, reason: str = "") -> None:
        self._info = sim_info(reason)
        self._proc: Any = None
        self._conn: Any = None
        self._lock = threading.Lock()
        self._cancel = threading.Event()

    def info(self) -> BackendInfo:
        return self._info

    @property
    def child_pid(self) -> int | None:
        """The simulator child's process id, while one runs (for tests and the soak check)."""
        return self._proc.pid if self._proc is not None else None

    def _ensure_child(self) -> None:
        if self._proc is not None and self._proc.is_alive():
            return
        self._forget_child()
        if os.name != "posix":  # no fd passing: multiprocessing's spawn (scripts need the guard)
            ctx = mp.get_context("spawn")
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=serve, args=(child,), name="simtviz-simulator", daemon=True)
            proc.start()
            child.close()
            self._proc, self._conn = _MpChild(proc), parent
            return
        self._proc, self._conn = start_child()

    def _forget_child(self) -> None:
        proc, conn = self._proc, self._conn
        self._proc = self._conn = None
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.close()
        if proc is not None:
            proc.cleanup()

    def warm_up(self) -> None:
        """Start the child ahead of the first run (importing numba there takes about a second)."""
        with self._lock:
            self._ensure_child()

    def cancel(self) -> None:
        """Stop the run in progress, if any, within a poll interval (it kills the child)."""
        self._cancel.set()
        self.cancel_child()

    def shutdown(self) -> None:
        self._cancel.set()
        proc, conn = self._proc, self._conn
        if proc is not None:
            with contextlib.suppress(Exception):
                conn.send(None)
            proc.join(0.3)
            if proc.is_alive():
                proc.kill()
                proc.join(1.0)
        self._forget_child()

    def execute(self, experiment: AnyExperiment, request: Any, progress: Progress | None) -> Any:
        """Run ``experiment`` in the child. Progress is what the child reports, or else the
        elapsed share of the experiment's estimate (capped below 1)."""
        estimate_s = experiment.estimate_s(request, self._info)
        with self._lock:
            self._cancel.clear()
            self._ensure_child()
            self._conn.send((module_of(experiment), experiment.name, request, self._info))
            reply = self._wait(progress, estimate_s)
        if reply[0] == "error":
            _, name, text, tb = reply
            raise KernelFailed(f"the simulator raised {name}: {text}\n{tb}")
        if progress:
            progress(1.0)
        return reply[1]

    def _wait(self, progress: Progress | None, estimate_s: float | None) -> Any:
        # The child this run talks to, held here: shutdown() on the GUI thread may forget it
        # (self._proc = None) while this thread waits.
        proc, conn = self._proc, self._conn
        started = last = time.monotonic()
        reported = 0.0
        while True:
            if self._cancel.is_set():
                self._kill_child()
                raise Cancelled("run cancelled")
            if conn.poll(POLL_SECONDS):
                try:
                    reply = conn.recv()
                except (EOFError, OSError) as exc:
                    self._kill_child()
                    raise KernelFailed("the simulator process ended unexpectedly") from exc
                if reply[0] != "progress":
                    return reply
                reported = max(reported, min(float(reply[1]), 0.99))
            elif not proc.is_alive():
                self._kill_child()
                raise KernelFailed("the simulator process ended unexpectedly")
            now = time.monotonic()
            if progress and now - last >= PROGRESS_SECONDS:
                last = now
                elapsed = min(0.95, (now - started) / estimate_s) if estimate_s else 0.0
                progress(max(reported, elapsed))

    def _kill_child(self) -> None:
        proc = self._proc
        if proc is not None and proc.is_alive():
            proc.kill()
            proc.join(1.0)
        self._forget_child()


class _Child:
    """The child started by ``start_child``: its process, its watchdog pipe and temporary folder."""

    def __init__(self, popen: subprocess.Popen[bytes], watch_fd: int, temp: Path) -> None:
        self.popen, self.temp = popen, temp
        self.watch_fd: int | None = watch_fd  # None once closed

    @property
    def pid(self) -> int:
        return self.popen.pid

    def is_alive(self) -> bool:
        return self.popen.poll() is None

    def join(self, timeout: float) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout)

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.popen.kill()

    def cleanup(self) -> None:
        """Close the watchdog pipe (a live child takes it as "exit now") and remove the folder."""
        if self.watch_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.watch_fd)
            self.watch_fd = None
        self.join(1.0)
        shutil.rmtree(self.temp, ignore_errors=True)


class _MpChild:
    """multiprocessing's Process with ``_Child``'s methods (platforms without fd passing)."""

    def __init__(self, proc: Any) -> None:
        self.proc = proc

    pid = property(lambda self: self.proc.pid)

    def is_alive(self) -> bool:
        return bool(self.proc.is_alive())

    def join(self, timeout: float) -> None:
        self.proc.join(timeout)

    def kill(self) -> None:
        self.proc.kill()

    def cleanup(self) -> None:
        pass


def _package_root() -> str:
    import simtviz

    return str(Path(simtviz.__file__).resolve().parent.parent)


def remove_stale_temp(base: str | None = None) -> list[Path]:
    """Remove temporary folders of simulator children whose app is gone (a power cut, SIGKILL of both)."""
    removed = []
    for folder in Path(base or tempfile.gettempdir()).glob(f"{TEMP_PREFIX}*"):
        try:
            pid = int(folder.name[len(TEMP_PREFIX) :].split("-")[0])
        except ValueError:
            continue
        if pid != os.getpid() and not _pid_alive(pid):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def _pid_alive(pid: int) -> bool:
    if os.name != "posix":  # Windows' os.kill(pid, 0) would end the process: assume it lives
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def start_child() -> tuple[_Child, Connection]:
    """Start ``python -m simtviz.backends.sim_child``: a socket for requests and replies, and a
    pipe whose end the child watches (it reads end-of-file when this process is gone)."""
    remove_stale_temp()
    temp = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-"))
    ours, theirs = socket.socketpair()
    watch_r, watch_w = os.pipe()  # both close-on-exec: no other child inherits them
    env = dict(os.environ)
    # The child imports simtviz from where this process did, whatever the script's sys.path was.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_package_root(), env.get("PYTHONPATH", "")) if p)
    env["NUMBA_ENABLE_CUDASIM"] = "1"
    env["TMPDIR"] = str(temp)
    # And every module this process can import by name (an experiment registered in a test file).
    env[SYS_PATH_VARIABLE] = os.pathsep.join(p for p in sys.path if p)
    args = [sys.executable, "-m", "simtviz.backends.sim_child"]
    args += [str(theirs.fileno()), str(watch_r), str(os.getpid())]
    try:
        popen = subprocess.Popen(
            args, pass_fds=(theirs.fileno(), watch_r), stdin=subprocess.DEVNULL, env=env, close_fds=True
        )
    except BaseException:
        ours.close()
        os.close(watch_w)
        shutil.rmtree(temp, ignore_errors=True)
        raise
    finally:
        theirs.close()
        os.close(watch_r)
    return _Child(popen, watch_w, temp), Connection(ours.detach())
