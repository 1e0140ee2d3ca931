"""The trace experiment in its child process (``isolated_child``): what it starts, prepares and runs.

``TraceSession(kind)`` is made before the child chooses its backend: it starts the GPU-compile
checker then (``gpu_compile``: a process with numba real, whose import overlaps the child's).
``prepare`` imports numba and the helpers, makes a GPU child's context and warms it up; ``run``
refuses what a GPU would not compile (before any backend runs the kernel), then runs the
request (a ``TraceRequest`` or an exercise's ``TraceBatch``) with the backend's runner
(``trace.batch``), naming each step (``prepare.PHASE_HOOK``) so a time limit says where it hit.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Callable
from typing import Any


def runner_for(kind: str) -> Callable[[Any, Any], Any]:
    """The in-process runner of backend ``kind`` (``trace.batch``): request, progress → result."""
    from simtviz.backends.trace import batch

    runner: Callable[[Any, Any], Any] = {"gpu": batch.run_gpu, "emu": batch.run_emu}.get(kind, batch.run_sim)
    return runner


class TraceSession:
    """One traced run (or one exercise's batch) in this child process."""

    def __init__(self, kind: str) -> None:
        from simtviz.backends.trace.gpu_compile import start_checker

        self.kind = kind
        self.checker = start_checker(kind)
        self.runner = runner_for(kind)

    def prepare(self) -> None:
        if self.kind != "emu":  # the emulator imports no numba
            import simtviz.kernels.trace_helpers  # noqa: F401  (numba and the helpers, before 'ready')
        if self.kind == "gpu":
            from numba import cuda

            cuda.current_context()  # this process's own context, made now rather than at Run
            warm_up(self.runner)

    def run(self, request: Any, progress: Callable[[float], None], phase: Callable[[str], None]) -> Any:
        from simtviz.backends.trace import prepare
        from simtviz.backends.trace.batch import TraceBatch
        from simtviz.backends.trace.gpu_compile import verify

        prepare.PHASE_HOOK = phase
        # refuses what a GPU would not compile, before the backend runs anything
        # an exercise's cases share the student's file and kernel: its first case is checked
        first = request.requests[0] if isinstance(request, TraceBatch) and request.requests else request
        note = verify(first, self.kind, self.checker, lambda: progress(0.0))
        result = self.runner(request, progress)
        if note:
            result.notes.append(note)
        return result

    def close(self) -> None:
        if self.checker is not None:
            self.checker.close()


# The warm-up's kernel: a template's vecadd over 2^16 threads (196,608 accesses). Not tiny on
# purpose: CuPy's scans and reductions take other kernels above a few thousand elements, and a
# warm-up too small to reach them left the first 10^7-access analysis 120 ms slower (H200).
WARM_UP_TEMPLATE = "vecadd_guarded"
WARM_UP_THREADS = 1 << 16


def warm_up(runner: Any, threads: int = WARM_UP_THREADS) -> None:
    """One tiny traced run before saying ``ready``, its output discarded, so the student's Run
    only compiles their own kernel: the first compile in a process also sets up numba's NVVM and
    typing (≈0.8 s on the H200) and the analysis loads CuPy's kernels (on a machine that never ran
    them, CuPy compiles them: over 10 s once). The app starts this process ahead of Run (the
    Your kernel tab, when shown, and after each run). Whatever goes wrong here is left for the
    real run to say; nothing it prints reaches the student's output."""
    from simtviz.core.trace.model import TraceRequest
    from simtviz.core.trace.templates import template

    t = template(WARM_UP_TEMPLATE)
    n = threads
    request = TraceRequest(
        t.source,
        (-(-n // 256), 1, 1),
        (min(n, 256), 1, 1),
        {"A": f"float32[{n}]:random", "B": f"float32[{n}]:random", "C": f"float32[{n}]"},
        filename=t.file,
    )
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            runner(request, None)
    except Exception:
        pass
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)
