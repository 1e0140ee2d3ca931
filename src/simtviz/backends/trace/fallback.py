"""The traced kernel on a backend by name, with the CPU emulator's way back to the simulator.

The CLI (``simtviz trace``) and the Your kernel tab run a trace in a child process of its own
(``isolated``), not through a ``Backend``. On ``emu`` that child interprets the kernel with
simtviz's emulator; a kernel it cannot run (``EmulatorUnsupported``, carried back from the
child), or no emulator runner at all, runs again in a simulator child after one line that says
why (``emu_backend.fallback_line``): given to ``notice`` when there is one (the CLI prints it on
stderr), else first among the result's notes (the tab shows them with the findings).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from simtviz.backends.base import Progress
from simtviz.backends.trace.isolated import TraceChild, run_isolated
from simtviz.core.errors import EmulatorUnsupported
from simtviz.core.trace.model import TraceRequest, TraceResult


def run_traced(
    kind: str,
    request: TraceRequest,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    child: TraceChild | None = None,
    notice: Callable[[str], None] | None = None,
) -> TraceResult:
    """``run_isolated(kind, …)``; on ``emu``, the simulator where the emulator cannot run it."""
    from simtviz.backends.emu_backend import fallback_line
    from simtviz.backends.sim import sim_info
    from simtviz.backends.trace import RUNNERS, TRACE

    if kind != "emu":
        return run_isolated(kind, request, progress, cancel, child)
    if "emu" not in RUNNERS:
        why = "the CPU emulator cannot trace kernels yet"
    else:
        try:
            return run_isolated("emu", request, progress, cancel, child)
        except EmulatorUnsupported as exc:
            why = str(exc)
    line = fallback_line("trace", why)
    if notice is not None:
        notice(line)
    # The simulator's own limits: a launch quick on the emulator may be long there.
    TRACE.check(request, sim_info())
    result = run_isolated("sim", request, progress, cancel, child)  # ``child`` (an emu one) is ended
    if notice is None:
        result.notes.insert(0, line)
    return result
