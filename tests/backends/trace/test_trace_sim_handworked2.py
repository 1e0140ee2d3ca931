"""The simulator's trace runner at its thread limit exactly, and the experiment's GPU step handing
back what the GPU runner made (hand-worked; the GPU runner stood in for)."""

from __future__ import annotations

from typing import Any

import pytest
from numba import cuda  # noqa: F401  (the simulator, before simtviz's backends import numba)

from simtviz.backends.trace import TraceExperiment
from simtviz.core.errors import LaunchTooLarge
from simtviz.core.trace.model import TraceRequest
from simtviz.core.trace.source import TraceUnsupported

KERNEL = """from numba import cuda


@cuda.jit
def double(A):
    i = cuda.grid(1)
    if i < A.size:
        A[i] = 2 * A[i]
"""


def test_exactly_131_072_threads_run_without_asking() -> None:
    """131,072 one-thread blocks is the simulator's limit itself (SIM_MAX_THREADS_UNASKED): not
    past it, so the run goes on to read the file, where a kernel name that is not there stops it
    in its own words (one thread more is refused, test_trace_check_handworked)."""
    from simtviz.backends.trace.sim import run_trace_sim

    request = TraceRequest(KERNEL, (131_072, 1, 1), (1, 1, 1), {"A": "float32[32]"}, kernel="no_such_kernel")
    with pytest.raises(TraceUnsupported) as stopped:
        run_trace_sim(request)
    assert not isinstance(stopped.value, LaunchTooLarge)
    assert str(stopped.value) == "no @cuda.jit kernel named 'no_such_kernel' (found double)"


def test_the_gpu_step_hands_back_the_gpu_runner_s_result(monkeypatch: pytest.MonkeyPatch) -> None:
    from simtviz.backends.trace import gpu

    made = object()
    seen: list[Any] = []

    def run_trace_gpu(request: Any, progress: Any) -> object:
        seen.append((request, progress))
        return made

    monkeypatch.setattr(gpu, "run_trace_gpu", run_trace_gpu)
    request = TraceRequest(KERNEL, (1, 1, 1), (32, 1, 1), {"A": "float32[32]"})
    assert TraceExperiment().run_gpu(None, request, None) is made
    assert seen == [(request, None)]
