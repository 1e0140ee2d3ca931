"""The GPU child's runner (``trace.batch.run_gpu``) with the GPU's traced run stood in for: a
plain request's result comes back as the backend made it, and an exercise's batch keeps one entry
per case, a case's failure on the device among them."""

from __future__ import annotations

from typing import Any

import pytest

from simtviz.backends.trace import batch
from simtviz.backends.trace import gpu as trace_gpu
from simtviz.core.errors import KernelFailed
from simtviz.core.trace.model import TraceRequest


def _request(kernel: str) -> TraceRequest:
    return TraceRequest("", (1, 1, 1), (1, 1, 1), {}, kernel=kernel)


@pytest.fixture
def gpu_runs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str | None, Any]]:
    seen: list[tuple[str | None, Any]] = []

    def run_trace_gpu(request: TraceRequest, progress: Any) -> str:
        seen.append((request.kernel, progress))
        if request.kernel == "bad":
            raise KernelFailed("line 3: IndexError: index 8 is out of bounds")
        return f"traced {request.kernel}"

    monkeypatch.setattr(trace_gpu, "run_trace_gpu", run_trace_gpu)
    return seen


def test_a_plain_request_returns_the_gpu_s_own_result(gpu_runs: list[tuple[str | None, Any]]) -> None:
    def progress(_fraction: float) -> None:
        pass

    assert batch.run_gpu(_request("k"), progress) == "traced k"
    assert gpu_runs == [("k", progress)]


def test_a_batch_on_the_gpu_keeps_each_case_s_result_or_failure(
    gpu_runs: list[tuple[str | None, Any]],
) -> None:
    result = batch.run_gpu(batch.TraceBatch((_request("a"), _request("bad"), _request("c"))))
    assert result.results[0] == "traced a" and result.results[2] == "traced c"
    assert isinstance(result.results[1], KernelFailed)
    assert [kernel for kernel, _ in gpu_runs] == ["a", "bad", "c"]  # the failure did not stop the batch
