"""Simulator runs in a child process: the window keeps its CPU core and Cancel is immediate.

The simulator starts hundreds of Python threads per block; in the GUI's process they would
compete with the event loop for the GIL, and a running launch cannot be interrupted. A child
process (``spawn``: never fork a process that runs Qt) runs each experiment by name: it imports
the experiment's module, runs its simulator half, and sends progress and the result back over a
pipe. Cancel kills the child and the next run starts a fresh one.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import threading
import time
import traceback
from typing import Any

from simtviz.backends.base import Backend, BackendInfo, BackendKind, Progress
from simtviz.backends.experiment import Experiment, load, module_of
from simtviz.backends.sim import sim_info
from simtviz.core.errors import Cancelled, KernelFailed

POLL_SECONDS = 0.05
PROGRESS_SECONDS = 0.1


def _serve(conn: Any) -> None:
    """Child process main loop: run each requested experiment and reply with its result."""
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
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

    def _ensure_child(self) -> None:
        if self._proc is not None and self._proc.is_alive():
            return
        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_serve, args=(child,), name="simtviz-simulator", daemon=True)
        proc.start()
        child.close()
        self._proc, self._conn = proc, parent

    def warm_up(self) -> None:
        """Start the child ahead of the first run (importing numba there takes about a second)."""
        with self._lock:
            self._ensure_child()

    def cancel(self) -> None:
        """Stop the run in progress, if any, within a poll interval (it kills the child)."""
        self._cancel.set()

    def shutdown(self) -> None:
        self._cancel.set()
        proc, conn = self._proc, self._conn
        self._proc = self._conn = None
        if proc is not None:
            with contextlib.suppress(Exception):
                conn.send(None)
            proc.join(0.3)
            if proc.is_alive():
                proc.kill()
                proc.join(1.0)

    def execute(self, experiment: Experiment, request: Any, progress: Progress | None) -> Any:
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
        started = last = time.monotonic()
        reported = 0.0
        while True:
            if self._cancel.is_set():
                self._kill_child()
                raise Cancelled("run cancelled")
            if self._conn.poll(POLL_SECONDS):
                try:
                    reply = self._conn.recv()
                except (EOFError, OSError) as exc:
                    self._kill_child()
                    raise KernelFailed("the simulator process ended unexpectedly") from exc
                if reply[0] != "progress":
                    return reply
                reported = max(reported, min(float(reply[1]), 0.99))
            elif not self._proc.is_alive():
                self._kill_child()
                raise KernelFailed("the simulator process ended unexpectedly")
            now = time.monotonic()
            if progress and now - last >= PROGRESS_SECONDS:
                last = now
                elapsed = min(0.95, (now - started) / estimate_s) if estimate_s else 0.0
                progress(max(reported, elapsed))

    def _kill_child(self) -> None:
        proc = self._proc
        self._proc = self._conn = None
        if proc is not None and proc.is_alive():
            proc.kill()
            proc.join(1.0)
