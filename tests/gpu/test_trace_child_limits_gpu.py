"""On a real GPU: the trace child's limits (issue 24) leave CUDA working. A GPU child gets no
address-space limit (CUDA reserves far more virtual memory than it uses) but leads its own
session, with open files ≤ 1,024, and a background process its file starts dies at the time limit.

Run as its own process:
``SIMTVIZ_BACKEND=gpu python -m pytest -m gpu tests/gpu/test_trace_child_limits_gpu.py``.
"""

from __future__ import annotations

import ast
import time
from pathlib import Path

import pytest

from simtviz.backends.isolated import run_isolated
from simtviz.core.errors import TimeLimitReached
from simtviz.core.trace.model import TraceRequest

pytestmark = pytest.mark.gpu

KERNEL = """
@cuda.jit
def k(A):
    i = cuda.grid(1)
    if i < A.shape[0]:
        A[i] = 1.0
"""
LIMITS = (
    """
import os, resource
from numba import cuda


def _seen(w=open(os.environ["SIMTVIZ_TEST_MARK"], "w").write(repr({
    "session_leader": os.getsid(0) == os.getpid(),
    "as": resource.getrlimit(resource.RLIMIT_AS)[0],
    "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[0],
}))):
    return w
"""
    + KERNEL
)
SLEEPER = (
    """
import os, subprocess, time
from numba import cuda


def _start(p=subprocess.Popen(["sleep", "300"])):
    return p


def _mark(w=open(os.environ["SIMTVIZ_TEST_MARK"], "w").write(str(_start.__defaults__[0].pid))):
    return w


def _wait(t=time.sleep(300)):
    return t
"""
    + KERNEL
)


def test_a_gpu_child_traces_with_its_limits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import resource

    mark = tmp_path / "mark"
    monkeypatch.setenv("SIMTVIZ_TEST_MARK", str(mark))
    # 1,024 threads, one store each
    result = run_isolated(
        "gpu", "trace", TraceRequest(LIMITS, (4, 1, 1), (256, 1, 1), {"A": "float32[1024]"})
    )
    assert result.summary()["accesses"] == 1024
    seen = ast.literal_eval(mark.read_text())
    assert seen["session_leader"] and seen["nofile"] <= 1024
    assert seen["as"] == resource.RLIM_INFINITY


def test_a_gpu_child_s_background_process_dies_at_the_time_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mark = tmp_path / "mark"
    monkeypatch.setenv("SIMTVIZ_TEST_MARK", str(mark))
    with pytest.raises(TimeLimitReached, match="top-level code"):
        run_isolated(
            "gpu", "trace", TraceRequest(SLEEPER, (1, 1, 1), (32, 1, 1), {"A": "float32[32]"}, time_limit_s=3)
        )
    pid = int(mark.read_text())
    time.sleep(1.0)
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        state = "\nState:\tZ"
    assert "\nState:\tZ" in state
