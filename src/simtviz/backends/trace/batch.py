"""Several traced runs in one child process: an exercise's cases (``simtviz exercise check``).

The child process (``isolated_child``, ``trace.child``) runs one request and ends; numba's
import (about a second) is most of a small run's time, so an exercise's cases travel as one
``TraceBatch`` and run one after the other in that one process. A case that fails on the device
is kept as its error (the others still run); a kernel the tracer refuses or numba cannot compile
ends the batch, as it would end any run. The runners here are what the child calls
(``trace.child.runner_for``): a plain ``TraceRequest`` goes straight to the backend's runner.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from simtviz.backends.base import Progress
from simtviz.core.trace.model import KernelCompileError, TraceRequest, TraceResult
from simtviz.core.trace.source import TraceUnsupported


@dataclass(frozen=True)
class TraceBatch:
    requests: tuple[TraceRequest, ...]

    @property
    def time_limit_s(self) -> float:  # per case: each case's progress resets the child's clock
        return max(r.time_limit_s for r in self.requests)

    @property
    def kernel(self) -> str | None:
        return self.requests[0].kernel

    @property
    def filename(self) -> str:
        return self.requests[0].filename


@dataclass
class TraceBatchResult:
    results: list[TraceResult | BaseException]  # one per request, in order
    notes: list[str] = field(default_factory=list)  # what the kernel printed (the isolated runner)


def _run(runner: Any, request: TraceRequest | TraceBatch, progress: Progress | None) -> Any:
    if isinstance(request, TraceRequest):
        return runner(request, progress)
    out: list[TraceResult | BaseException] = []
    for case in request.requests:
        # each case reports its own progress from 0: the parent's clock gives every case's kernel
        # the time limit, and its analysis the analysis' limit, as for a single run
        try:
            out.append(runner(case, progress))
        except (TraceUnsupported, KernelCompileError):
            raise
        except Exception as exc:  # this case failed on the device; the others still run
            out.append(exc)
    return TraceBatchResult(out)


def run_sim(request: TraceRequest | TraceBatch, progress: Progress | None = None) -> Any:
    from simtviz.backends.trace.sim import run_trace_sim

    return _run(run_trace_sim, request, progress)


def run_gpu(request: TraceRequest | TraceBatch, progress: Progress | None = None) -> Any:
    from simtviz.backends.trace.gpu import run_trace_gpu

    return _run(run_trace_gpu, request, progress)


def run_emu(request: TraceRequest | TraceBatch, progress: Progress | None = None) -> Any:
    from simtviz.backends.trace.emu import run_trace_emu

    return _run(run_trace_emu, request, progress)
