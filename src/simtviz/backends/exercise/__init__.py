"""The ``exercise`` experiment: a student's file graded on an exercise's cases.

Every case is a ``trace`` run of the student's own kernel (``backends.trace``), all of them in
one child process (``trace.batch.TraceBatch``): the kernel runs only there, killed at the time
limit, never in this process and never through ``eval``. The traced runs are then read by
``core.exercise.checks`` and ``core.exercise.explain``. A kernel the tracer refuses or numba
cannot compile raises (the CLI's exit 2) before or instead of any verdict.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from simtviz.backends.base import Backend, BackendInfo, Progress
from simtviz.backends.experiment import register
from simtviz.backends.trace import TRACE
from simtviz.backends.trace.batch import TraceBatch, TraceBatchResult
from simtviz.core.exercise.catalog import exercise
from simtviz.core.exercise.checks import run_checks
from simtviz.core.exercise.explain import explain
from simtviz.core.exercise.model import Exercise, Report
from simtviz.core.trace.model import DEFAULT_TIME_LIMIT_S, TraceRequest
from simtviz.core.trace.source import TraceUnsupported, find_kernels, parse

BatchRunner = Callable[[TraceBatch], TraceBatchResult]


@dataclass(frozen=True)
class ExerciseRequest:
    exercise: str  # its id
    source: str  # the student's file
    filename: str = "exercise.py"
    time_limit_s: float = DEFAULT_TIME_LIMIT_S


def batch_for(ex: Exercise, request: ExerciseRequest) -> TraceBatch:
    """The trace runs of every case of ``ex`` on the student's file."""
    return TraceBatch(
        tuple(
            TraceRequest(
                source=request.source,
                grid=case.grid,
                block=case.block,
                args=dict(case.args),
                kernel=ex.kernel,
                filename=request.filename,
                time_kernel=False,
                time_limit_s=request.time_limit_s,
                force=True,
            )
            for case in ex.cases
        )
    )


def check_signature(ex: Exercise, request: ExerciseRequest) -> None:
    """TraceUnsupported, with the line, when the file has no kernel ``ex.kernel`` taking
    ``ex.params`` (said in the exercise's words, before the tracer speaks of --arg specs)."""
    tree = parse(request.source, request.filename)
    kernels = {k.name: k for k in find_kernels(tree)}
    if ex.kernel not in kernels:
        have = f" (it has {', '.join(sorted(kernels))})" if kernels else ""
        raise TraceUnsupported(
            0, f"the exercise asks for a @cuda.jit kernel {ex.signature}; the file has none{have}"
        )
    found = kernels[ex.kernel]
    if tuple(found.params) != ex.params:
        raise TraceUnsupported(
            found.line,
            f"the exercise's kernel is {ex.signature}; yours is {ex.kernel}({', '.join(found.params)})",
        )


def grade(
    request: ExerciseRequest, backend: str, run_batch: BatchRunner, ex: Exercise | None = None
) -> Report:
    """Run the cases through ``run_batch`` and read every check from the traces (``ex``: the
    exercise itself, when not the catalog's, e.g. with fewer cases)."""
    ex = ex or exercise(request.exercise)
    check_signature(ex, request)
    batch = batch_for(ex, request)
    results = run_batch(batch).results
    done = [r for r in results if not isinstance(r, BaseException)]
    name = done[0].backend if done else backend
    return Report(ex.id, name, run_checks(ex, results), explain(ex, results))


def isolated_runner(
    kind: str, progress: Progress | None = None, cancel: threading.Event | None = None, child: Any = None
) -> BatchRunner:
    """Cases run in one child process of backend ``kind`` (``trace.isolated``): ``child``, when
    one was started ahead (the Exercises tab keeps one waiting), else a new one."""
    from simtviz.backends.trace.isolated import run_isolated

    def run(batch: TraceBatch) -> TraceBatchResult:
        result: Any = run_isolated(kind, batch, progress, cancel, child)  # type: ignore[arg-type]
        return result

    return run


class ExerciseExperiment:
    name = "exercise"

    def check(self, request: ExerciseRequest, info: BackendInfo) -> None:
        """The tracer's checks on every case: unsupported constructs, argument mismatches."""
        ex = exercise(request.exercise)
        check_signature(ex, request)
        for trace_request in batch_for(ex, request).requests:
            TRACE.check(trace_request, info)

    def estimate_s(self, request: ExerciseRequest, info: BackendInfo) -> float | None:
        return None

    def run_gpu(self, backend: Backend | None, request: ExerciseRequest, progress: Progress | None) -> Report:
        return grade(request, "gpu", isolated_runner("gpu", progress))

    def run_sim(
        self, request: ExerciseRequest, info: BackendInfo | None, progress: Progress | None
    ) -> Report:
        return grade(request, "sim", isolated_runner("sim", progress))

    def run_emu(
        self, request: ExerciseRequest, info: BackendInfo | None, progress: Progress | None
    ) -> Report:
        # The student's kernel runs in a child on the emulator too (their code, never this process).
        return grade(request, "emu", isolated_runner("emu", progress))


EXERCISE = register(ExerciseExperiment())
