"""Simulator runs in a child process: the window keeps its CPU core and Cancel is immediate.

The simulator starts hundreds of Python threads per block; in the GUI's process they would
compete with the event loop for the GIL, and a running launch cannot be interrupted. A child
process (``spawn``: never fork a process that runs Qt) writes the records into a memory-mapped
temporary file that the parent reads for progress; Cancel kills the child and the next run
starts a fresh one.
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing as mp
import os
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

import numpy as np

from simtviz.backends.base import Backend, BackendInfo, Progress
from simtviz.backends.sim import (
    SimBackend,
    allocate_fields,
    fields_nbytes,
    finish_recording,
    progress_of,
    sim_info,
)
from simtviz.core.errors import Cancelled, KernelFailed
from simtviz.core.launch import LaunchConfig
from simtviz.core.recording import Recording
from simtviz.core.window import Window

POLL_SECONDS = 0.05


def _serve(conn: Any) -> None:
    """Child process main loop: run each requested launch into the memory map it names."""
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
    # Import numba and the kernel now, while the parent is still building its window, so the
    # first Run does not wait for them (~1 s).
    import simtviz.kernels.record  # noqa: F401
    from simtviz.backends.sim import run_kernel_in_simulator

    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        if request is None:
            return
        if isinstance(request, dict):  # a named function to run here (vecadd), not a recording
            conn.send(_call(request))
            continue
        grid, block, origin, size, path = request
        try:
            config = LaunchConfig.of(grid, block)
            window = Window(origin, size)
            mapped = np.memmap(path, dtype=np.uint8, mode="r+")
            fields = allocate_fields(window.threads, mapped, fill=False)  # the parent filled it
            seconds = run_kernel_in_simulator(config, window, fields)
            mapped.flush()
            del fields, mapped
            conn.send(("ok", seconds))
        except BaseException as exc:  # reported to the parent, which raises it there
            conn.send(("error", type(exc).__name__, str(exc), traceback.format_exc()))


def _call(request: dict[str, Any]) -> tuple[Any, ...]:
    """Run ``request["call"]`` (``module:function``) with ``request["kwargs"]``; reply as ``_serve`` does."""
    try:
        module, name = request["call"].split(":")
        return ("ok", getattr(importlib.import_module(module), name)(**request.get("kwargs", {})))
    except BaseException as exc:
        return ("error", type(exc).__name__, str(exc), traceback.format_exc())


class SimProcessBackend(Backend):
    """The ``sim`` backend with every launch run in one persistent child process."""

    kind = "sim"

    def __init__(self, reason: str = "") -> None:
        self._checks = SimBackend(reason)
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

    def record(
        self,
        config: LaunchConfig,
        window: Window | None = None,
        *,
        force: bool = False,
        progress: Progress | None = None,
    ) -> Recording:
        window = self._checks.prepare(config, window, force)
        with self._lock:
            self._cancel.clear()
            self._ensure_child()
            fd, path = tempfile.mkstemp(prefix="simtviz-record-", suffix=".bin")
            try:
                os.ftruncate(fd, max(1, fields_nbytes(window.threads)))
                os.close(fd)
                mapped = np.memmap(path, dtype=np.uint8, mode="r+")
                view = allocate_fields(window.threads, mapped)
                self._conn.send(
                    (config.grid.as_tuple(), config.block.as_tuple(), window.origin, window.size, path)
                )
                reply = self._wait(view, progress)
                if reply[0] == "error":
                    _, name, text, tb = reply
                    raise KernelFailed(f"the simulator raised {name}: {text}\n{tb}")
                fields = {k: np.array(v) for k, v in view.items()}
                del view, mapped
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(path)
        if progress:
            progress(1.0)
        return finish_recording(config, window, fields, reply[1])

    def call_in_child(
        self,
        target: str,
        kwargs: dict[str, Any],
        *,
        estimate_s: float | None = None,
        progress: Progress | None = None,
    ) -> Any:
        """Run ``target`` (``module:function``, picklable arguments and value) in the child.

        Progress is the elapsed share of ``estimate_s`` (capped below 1); Cancel kills the child.
        """
        with self._lock:
            self._cancel.clear()
            self._ensure_child()
            self._conn.send({"call": target, "kwargs": kwargs})
            started = time.monotonic()

            def fraction() -> float:
                return min(0.95, (time.monotonic() - started) / estimate_s) if estimate_s else 0.0

            reply = self._wait({}, progress, fraction)
        if reply[0] == "error":
            _, name, text, tb = reply
            raise KernelFailed(f"the simulator raised {name}: {text}\n{tb}")
        return reply[1]

    def _wait(
        self,
        view: dict[str, np.ndarray],
        progress: Progress | None,
        fraction: Callable[[], float] | None = None,
    ) -> Any:
        last = time.monotonic()
        while True:
            if self._cancel.is_set():
                self._kill_child()
                raise Cancelled("run cancelled")
            if self._conn.poll(POLL_SECONDS):
                try:
                    return self._conn.recv()
                except (EOFError, OSError) as exc:
                    self._kill_child()
                    raise KernelFailed("the simulator process ended unexpectedly") from exc
            if not self._proc.is_alive():
                self._kill_child()
                raise KernelFailed("the simulator process ended unexpectedly")
            now = time.monotonic()
            if progress and now - last >= 0.1:
                last = now
                progress(fraction() if fraction else progress_of(view))

    def _kill_child(self) -> None:
        proc = self._proc
        self._proc = self._conn = None
        if proc is not None and proc.is_alive():
            proc.kill()
            proc.join(1.0)
