"""The traced kernel's process warms itself up before saying ready (a GPU child: numba's first
compile and CuPy's analysis kernels would otherwise land in the student's first Run), and
nothing the warm-up does shows up in the student's output or stops the child."""

from __future__ import annotations

import os
from typing import Any

import pytest

from simtviz.backends.trace.child import warm_up
from simtviz.backends.trace.sim import run_trace_sim


def test_the_warm_up_traces_a_tiny_vecadd_and_prints_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    summaries: list[dict[str, Any]] = []

    def runner(request: Any, progress: Any) -> Any:
        print("numba would warn here", flush=True)
        os.write(2, b"and C code writes to fd 2\n")
        result = run_trace_sim(request, progress)
        summaries.append(result.summary())
        return result

    warm_up(runner, threads=128)  # a GPU child's warm-up is bigger; the simulator runs this one
    # 128 threads × (load A, load B, store C), all in bounds: the whole traced path ran.
    assert [(s["accesses"], s["logged"], s["oob_total"]) for s in summaries] == [(384, 384, 0)]
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    print("after the warm-up", flush=True)  # fd 1 and 2 are back
    assert capfd.readouterr().out == "after the warm-up\n"


def test_a_failing_warm_up_leaves_the_real_run_to_say_it(capfd: pytest.CaptureFixture[str]) -> None:
    def runner(_request: Any, _progress: Any) -> Any:
        raise RuntimeError("no GPU after all")

    warm_up(runner, threads=128)  # the real run will say what is wrong, in its own words
    assert capfd.readouterr().err == ""
