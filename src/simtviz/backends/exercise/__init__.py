"""The ``exercise`` experiment: a student's file graded on an exercise's cases.

Every case is a ``trace`` run of the student's own kernel (``backends.trace``), all of them in
one child process (``trace.batch.TraceBatch``): the experiment is ``isolated``, so
``Backend.run`` grades in a child of its own (``backends.isolated``), where the kernel runs,
killed at the time limit, never in the calling process and never through ``eval``. The traced
runs are read there by ``core.exercise.checks`` and ``core.exercise.explain``; the Report comes
back. A kernel the tracer refuses or numba
cannot compile raises (the CLI's exit 2) before or instead of any verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from simtviz.backends.base import Backend, BackendInfo, Progress
from simtviz.backends.experiment import Experiment, register
from simtviz.backends.isolated import ANALYSIS_FROM
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

    @property
    def kernel(self) -> str:
        """The kernel the exercise asks for (a time limit names it)."""
        return exercise(self.exercise).kernel


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


class ExerciseSession:
    """What an exercise's child process does (``isolated_child``): the trace's own preparation
    and GPU-compile check (``trace.child``), every case in this one process, then the checks."""

    def __init__(self, kind: str) -> None:
        from simtviz.backends.trace.child import TraceSession

        self.kind = kind
        self.trace = TraceSession(kind)

    def prepare(self) -> None:
        self.trace.prepare()

    def run(self, request: ExerciseRequest, progress: Progress, phase: Callable[[str], None]) -> Report:
        return grade(request, self.kind, lambda batch: self.trace.run(batch, progress, phase))

    def close(self) -> None:
        self.trace.close()


def in_process(kind: str, progress: Progress | None) -> BatchRunner:
    """The cases run in this process (the child's runner, ``trace.batch``)."""
    from simtviz.backends.trace.child import runner_for

    runner = runner_for(kind)
    return lambda batch: runner(batch, progress)


class ExerciseExperiment:
    name = "exercise"
    isolated = True  # graded in a child process per Check (the student's kernel runs there)
    analysis_from = ANALYSIS_FROM  # the analysis after the traced run gets a clock of its own

    def check(self, request: ExerciseRequest, info: BackendInfo) -> None:
        """The tracer's checks on every case: unsupported constructs, argument mismatches."""
        ex = exercise(request.exercise)
        check_signature(ex, request)
        for trace_request in batch_for(ex, request).requests:
            TRACE.check(trace_request, info)

    def estimate_s(self, request: ExerciseRequest, info: BackendInfo) -> float | None:
        return None

    def child_env(self, kind: str, request: object) -> dict[str, str]:
        """For a child started for ``request``: no GPU-compile checker ahead when not needed."""
        from simtviz.backends.trace.gpu_compile import child_env

        return child_env(kind, request)

    def child_session(self, kind: str) -> ExerciseSession:
        return ExerciseSession(kind)

    def run_gpu(self, backend: Backend | None, request: ExerciseRequest, progress: Progress | None) -> Report:
        return grade(request, "gpu", in_process("gpu", progress))

    def run_sim(
        self, request: ExerciseRequest, info: BackendInfo | None, progress: Progress | None
    ) -> Report:
        return grade(request, "sim", in_process("sim", progress))

    def run_emu(
        self, request: ExerciseRequest, info: BackendInfo | None, progress: Progress | None
    ) -> Report:
        return grade(request, "emu", in_process("emu", progress))


EXERCISE: Experiment[ExerciseRequest, Report] = register(ExerciseExperiment())
