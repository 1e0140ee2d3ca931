"""The ``trace`` experiment: the student's own kernel, rewritten to log every memory access.

``check`` refuses before anything runs: a launch the device would refuse (the simulator speaks
for the driver), one too long for the simulator without ``force``, a bad budget, time limit or
window of blocks,
and — without starting any process — a file the tracer cannot follow or arguments that do not
match the kernel (``precheck``). ``run_gpu`` and ``run_sim`` run the kernel in a child process of
its own (``isolated``): student code never runs in the app's process or in the simulator child
that the index map shares, and an endless loop ends at ``request.time_limit_s``.

``run_trace_sim(request, progress)`` (``trace.sim``) and ``run_trace_gpu(request, progress)``
(``trace.gpu``) are what the child calls, by the names in ``RUNNERS``.
"""

from __future__ import annotations

from typing import Any

from simtviz.backends.base import Backend, BackendInfo, BackendKind, Progress, simulated_rejection
from simtviz.backends.experiment import register
from simtviz.core.errors import LaunchTooLarge
from simtviz.core.launch import Dim3, LaunchConfig
from simtviz.core.trace_args import ArgSpecError, match_parameters, parse_args
from simtviz.core.trace_model import TraceRequest, TraceResult
from simtviz.core.trace_rewrite import Rewrite, rewrite_kernel
from simtviz.core.trace_source import choose_kernel, parse

# Names the child process imports and calls: "module:function".
# (``trace.batch``: a TraceRequest goes straight to run_trace_sim / run_trace_gpu, a TraceBatch
# runs each of its requests there.)
RUNNERS = {
    "sim": "simtviz.backends.trace.batch:run_sim",
    "gpu": "simtviz.backends.trace.batch:run_gpu",
}
# The simulator traces any launch of up to this many threads without asking (as the index map).
SIM_MAX_TRACE_THREADS = 131_072


def launch_config(request: TraceRequest) -> LaunchConfig:
    return LaunchConfig(Dim3(*request.grid), Dim3(*request.block))


def precheck(request: TraceRequest) -> Rewrite:
    """Everything that can be checked from the text alone (nothing runs): the kernel, its
    arguments, the constructs. Raises TraceUnsupported / ArgSpecError with the student's line."""
    from simtviz.core.trace_args import ArraySpec

    specs_by_name = parse_args(request.args)
    tree = parse(request.source, request.filename)
    fn = choose_kernel(tree, request.kernel)
    params = tuple(a.arg for a in fn.args.posonlyargs + fn.args.args)
    specs = match_parameters(params, specs_by_name)
    dims = {s.name: s.ndim for s in specs if isinstance(s, ArraySpec)}
    return rewrite_kernel(request.source, fn.name, dims, request.filename)


class TraceExperiment:
    name = "trace"

    def check(self, request: TraceRequest, info: BackendInfo) -> None:
        if request.budget < 1:
            raise ArgSpecError(f"the budget must be at least 1 access (got {request.budget})")
        if not request.time_limit_s > 0:
            raise ArgSpecError(f"the time limit must be more than 0 s (got {request.time_limit_s})")
        request.check_window()
        precheck(request)
        if info.kind is BackendKind.SIM:
            rejection = simulated_rejection(launch_config(request), info.limits)
            if rejection is not None:
                rejection.launch_line = f"{request.kernel or 'kernel'}[{request.grid}, {request.block}](...)"
                raise rejection
            if request.threads > SIM_MAX_TRACE_THREADS and not request.force:
                raise LaunchTooLarge(
                    request.threads,
                    info.estimate_seconds(request.threads, "trace"),
                    SIM_MAX_TRACE_THREADS,
                    info.device_words,
                )
        # On a GPU the launch goes to the driver, whose own error is the lesson.

    def estimate_s(self, request: TraceRequest, info: BackendInfo) -> float | None:
        return info.estimate_seconds(request.threads, "trace") if info.kind is BackendKind.SIM else None

    def run_gpu(
        self, backend: Backend | None, request: TraceRequest, progress: Progress | None
    ) -> TraceResult:
        from simtviz.backends.trace.isolated import run_isolated

        return run_isolated("gpu", request, progress)

    def run_sim(self, request: TraceRequest, info: BackendInfo | None, progress: Progress | None) -> Any:
        from simtviz.backends.trace.isolated import run_isolated

        return run_isolated("sim", request, progress)


TRACE = register(TraceExperiment())
