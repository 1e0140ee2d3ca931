"""The ``trace`` experiment: the student's own kernel, rewritten to log every memory access.

``check`` refuses before anything runs: a launch the device would refuse (the simulator speaks
for the driver), one too long for the simulator without ``force``, a bad budget, time limit or
window of blocks,
and — without starting any process — a file the tracer cannot follow or arguments that do not
match the kernel (``precheck``). The experiment is ``isolated``: ``Backend.run`` runs each
request in a child process of its own (``backends.isolated``), so student code never runs in the
app's process or in the simulator child that the index map shares, and an endless loop ends at
``request.time_limit_s``. What the child does is ``child_session`` (``trace.child``): the
GPU-compile check, then ``run_trace_sim`` (``trace.sim``), ``run_trace_gpu`` (``trace.gpu``) or
``run_trace_emu`` (``trace.emu``, the CPU emulator) through ``trace.batch``. ``run_gpu``,
``run_sim`` and ``run_emu`` run a request in the calling process (the child's halves).
"""

from __future__ import annotations

from typing import Any

from simtviz.backends.base import Backend, BackendInfo, Progress, simulated_rejection
from simtviz.backends.experiment import register
from simtviz.backends.isolated import ANALYSIS_FROM
from simtviz.core.errors import LaunchTooLarge
from simtviz.core.launch import Dim3, LaunchConfig
from simtviz.core.trace.args import ArgSpecError, parse_args
from simtviz.core.trace.model import TraceRequest, TraceResult
from simtviz.core.trace.rewrite import Rewrite
from simtviz.core.trace.source import TraceUnsupported

# Texts up to this many characters are parsed here before a run (a few ms); a longer one only in
# the child, inside the time limit, so the app's GUI thread never parses megabytes (1 MB took 6 s).
PRECHECK_MAX_CHARS = 64_000


def launch_config(request: TraceRequest) -> LaunchConfig:
    return LaunchConfig(Dim3(*request.grid), Dim3(*request.block))


def precheck(request: TraceRequest) -> Rewrite:
    """Everything that can be checked from the text alone (nothing runs): the kernel, its
    arguments, the constructs. Raises TraceUnsupported / ArgSpecError with the student's line.
    The request's plan keeps what it read, for the next check and (in the child) the run."""
    return request.plan().rewrite


class TraceExperiment:
    name = "trace"
    isolated = True  # a child process per run, killed at request.time_limit_s
    analysis_from = ANALYSIS_FROM  # the analysis after the traced run gets a clock of its own

    def check(self, request: TraceRequest, info: BackendInfo, ask_gpu: bool = True) -> None:
        """Raises what would refuse ``request``. A construct the tracer refuses is first compiled
        for a GPU (``ask_gpu``: a process of its own, ~1 s when not cached), so numba-cuda's reason
        comes first; the app passes False and lets the run's child ask (its GUI never waits)."""
        if request.budget < 1:
            raise ArgSpecError(f"the budget must be at least 1 access (got {request.budget})")
        if not request.time_limit_s > 0:
            raise ArgSpecError(f"the time limit must be more than 0 s (got {request.time_limit_s})")
        request.check_window()
        from simtviz.core.files import KERNEL_FILE_LIMIT, format_bytes

        size = len(request.source.encode("utf-8", "replace"))
        if size > KERNEL_FILE_LIMIT:
            raise ArgSpecError(
                f"the kernel's file is {format_bytes(size)}; simtviz traces files of up to "
                f"{format_bytes(KERNEL_FILE_LIMIT)} (keep the kernel and what it needs)"
            )
        if len(request.source) > PRECHECK_MAX_CHARS:
            parse_args(request.args)  # the arguments and their total size: no parsing of the text
        else:
            try:
                precheck(request)
            except TraceUnsupported as exc:
                if not ask_gpu:
                    raise
                from simtviz.backends.trace.gpu_compile import gpu_refusal

                refusal = gpu_refusal(request, exc)  # numba-cuda's reason first, if a GPU refuses too
                if refusal is not None:
                    raise refusal from None
                raise
        if info.speaks_for_driver:  # the simulator or the emulator: simtviz speaks for the driver
            rejection = simulated_rejection(launch_config(request), info.limits)
            if rejection is not None:
                rejection.launch_line = f"{request.kernel or 'kernel'}[{request.grid}, {request.block}](...)"
                raise rejection
            if info.needs_confirmation(request.threads) and not request.force:
                raise LaunchTooLarge(
                    request.threads,
                    info.estimate_seconds(request.threads, "trace"),
                    info.max_threads_unasked,
                    info.device_words,
                )
        # On a GPU the launch goes to the driver, whose own error is the lesson.

    def estimate_s(self, request: TraceRequest, info: BackendInfo) -> float | None:
        return info.estimate_seconds(request.threads, "trace") if info.speaks_for_driver else None

    def child_env(self, kind: str, request: object) -> dict[str, str]:
        """For a child started for ``request``: no GPU-compile checker ahead when not needed."""
        from simtviz.backends.trace.gpu_compile import child_env

        return child_env(kind, request)

    def child_session(self, kind: str) -> Any:
        """What the run's child process does (``isolated_child``): see ``trace.child``."""
        from simtviz.backends.trace.child import TraceSession

        return TraceSession(kind)

    def run_gpu(
        self, backend: Backend | None, request: TraceRequest, progress: Progress | None
    ) -> TraceResult:
        from simtviz.backends.trace.gpu import run_trace_gpu

        return run_trace_gpu(request, progress)

    def run_sim(
        self, request: TraceRequest, info: BackendInfo | None, progress: Progress | None
    ) -> TraceResult:
        from simtviz.backends.trace.sim import run_trace_sim

        return run_trace_sim(request, progress)

    def run_emu(
        self, request: TraceRequest, info: BackendInfo | None, progress: Progress | None
    ) -> TraceResult:
        from simtviz.backends.trace.emu import run_trace_emu

        return run_trace_emu(request, progress)


# typed as the class itself: the app's pre-Run check passes ``ask_gpu``, which only the trace has
TRACE: TraceExperiment = register(TraceExperiment())
