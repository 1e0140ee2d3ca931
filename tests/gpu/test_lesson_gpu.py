"""On a real GPU, the lesson's probes measure what the chapter claims (or disproves).

Run as its own process: ``SIMTVIZ_BACKEND=gpu python -m pytest -m gpu``. Plausibility, not
speed: each comparison has a margin of at least 2x over what the H200 measured.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest

from simtviz.backends.lesson import run_probe
from simtviz.core import lesson
from simtviz.core.lesson.grading import after_run, measured

pytestmark = pytest.mark.gpu


def test_the_first_launch_pays_for_the_jit() -> None:
    r = run_probe("jit_timing")
    assert r["backend"].startswith("gpu:") and r["verified"] is True
    assert r["first_launch_ms"] > 2 * r["second_launch_ms"]
    assert r["first_launch_ms"] > 50  # numba compiles for ~0.1-1 s; a cached launch is ~0.1 ms


def test_pinned_copies_beat_pageable_ones() -> None:
    r = run_probe("copy_bandwidth", mbytes=64)
    assert r["d2h_pinned_GBps"] > r["d2h_pageable_GBps"]
    assert r["h2d_pinned_GBps"] > r["h2d_pageable_GBps"]
    assert 1 < r["d2h_pinned_GBps"] < 1000


def test_cupy_dtypes_are_float64_and_the_chapters_lines_fail_where_it_is_wrong() -> None:
    r = run_probe("array_dtypes")
    assert r["zeros_dtype"] == "float64" and r["uniform_dtype"] == "float64"
    assert r["has_cp_rand"] is False and r["has_cp_random_random"] is True
    first, second, third = r["chapter_lines"]
    assert first["ok"] and first["dtype"] == "float64"
    assert "AttributeError" in second["error"] and "NameError" in third["error"]


def test_a_host_array_kernel_is_correct_and_warned_about() -> None:
    r = run_probe("host_array_to_kernel")
    assert r["raised"] is None and r["result_correct"] is True
    assert r["host_copy_warnings"], r["warnings"]
    assert "Host array used in CUDA kernel will incur copy overhead" in r["host_copy_warnings"][0]
    assert "NumbaPerformanceWarning" in r["host_copy_warnings"][0]


def test_a_gpu_array_in_plain_python() -> None:
    r = run_probe("gpu_array_to_python")
    assert "TypeError" in r["asarray_error"]
    assert r["np_sum_is_cupy"] is True and r["np_sum_value"] == 6.0  # 0 + 1 + 2 + 3
    assert r["loop_total"] == 6.0 and r["loop_item_shape"] == []


def test_the_launch_returns_long_before_the_kernel_ends() -> None:
    r = run_probe("async_timeline", hold_ms=50.0)
    assert r["cupy_has_synchronize"] is False
    for run in r["runs"]:
        assert run["kernel_done_at_launch_return"] is False, run
        assert run["kernel_done_after_sync"] is True, run
        assert run["launch_return_ms"] < 10  # host back after µs, not after the 50 ms kernel
        assert run["kernel_gpu_ms"] >= 49
        assert run["sync_return_ms"] >= 49  # synchronize waited for the kernel


def test_nothing_checks_bounds_on_the_gpu() -> None:
    r = run_probe("bounds_check")
    assert r["raised"] is None
    assert r["oob_writes"] == 24  # 4 blocks of 256 for 1000 elements
    assert r["c_correct"] is True


def test_2048_threads_per_block_raises_the_drivers_error() -> None:
    r = run_probe("launch_2048")
    assert r["raised"] is not None and "CUDA_ERROR_INVALID_VALUE" in r["raised"]


# ---- issue 22: walk every step on the GPU, run every program the lesson shows ----

_runs: dict[tuple[str, str], dict[str, Any]] = {}


def _probe_of(step: lesson.Step, probe: str) -> dict[str, Any]:
    params = lesson.probe_params(step, probe)
    key = (probe, repr(sorted(params.items())))
    if key not in _runs:
        _runs[key] = run_probe(probe, **params)
    return _runs[key]


@pytest.mark.parametrize("section", [s.section for s in lesson.STEPS if s.claims or s.question])
def test_walk_the_step_on_the_gpu(section: str) -> None:
    """Every claim the step marks as checkable on a GPU, and its question's answer, measured."""
    step = lesson.step(section)
    for claim in step.claims:
        if "gpu" not in claim.expect:
            continue
        result = _probe_of(step, claim.probe)
        assert "error" not in result, result.get("error")
        assert result[claim.key] == claim.expect["gpu"], (claim.text, {k: result.get(k) for k in result})
    q = step.question
    if q is not None:
        result = _probe_of(step, q.probe)
        assert measured(q, result) == q.answer, (q.prompt, result)
        said = after_run(q, q.answer, result, "the GPU")
        assert said.startswith(f"You said {q.answer}; the GPU did {q.answer}. Right."), said


def test_the_timing_numbers_are_the_vector_adds() -> None:
    r = run_probe("timing_ways")
    # The H200 ran it at 0.095 ms (≈4,230 GB/s); a margin of 2x each way.
    assert 0.04 < r["events_ms"] < 0.4 and 1000 < r["events_GBps"] < 9000, r
    assert r["first_launch_ms"] > 50 and r["numpy_args_ms"] > 10 * r["events_ms"], r


def test_silent_copies_and_mixed_arithmetic() -> None:
    r = run_probe("gpu_array_to_python")
    assert r["mixed_raises"] is True and "TypeError" in r["mixed_error"]
    assert r["silent_copies"] == ["float(x[0])", "x[0].item()", "bool(x[1])", "print(x)", "x.tolist()"]


def test_a_fault_in_a_kernel_surfaces_at_synchronize_and_sticks() -> None:
    r = run_probe("error_checks")
    assert r["fault_surfaced_at"] == "synchronize()", r
    assert "CudaAPIError" in r["fault_error"] and "ILLEGAL_ADDRESS" in r["fault_error"], r
    assert r["fault_sticky"] is True, r
    launch = run_probe("launch_2048")
    assert launch["failed_at"] == "the launch line" and launch["sticky"] is False, launch
    assert "CUDAError" in launch["error_class"] or "CudaAPIError" in launch["error_class"]


# What each program prints on a GPU (the simulator's ones are in tests/core/lesson/test_lesson_snippets.py).
GPU_OUTPUT = {
    "2.2.1": "kernels here are written with: numba.cuda",
    "2.2.1.1": "cp.add(a, b):",
    "2.2.1.3": "numba can run CUDA kernels here: True",
    "2.2.1.4": "[ 0.  2.  4.  6.  8. 10. 12. 14.]",
    "2.2.2": "threads that ran the kernel: 8",
    "2.2.2.1": "three launches done",
    "2.2.2.2": "threads in both launches: 224",
    "2.2.2.2.1": "launched 128 threads",
    "2.2.2.2.2": "launched 192 threads",
    "2.2.2.3": "every C[i] is 3.0: True",
    "2.2.2.3+": "lane: [ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23",
    "2.2.3.1": "float64 float64 float64 int64",
    "2.2.3.2": "on the GPU: True on the host: True",
    "2.2.3.3": "float(x[3]) = 3.0 copied to the host without a word",
    "2.2.4": "x[0] after the kernel: 2.0",
    "2.2.5": "Test succeeded",
    "2.2.5+": "right, events, 20 launches:",
    "2.2.6": "Exception occurred: CUDA_ERROR_INVALID_VALUE",
}


@pytest.mark.parametrize("section", [s.section for s in lesson.STEPS if s.code])
def test_every_program_runs_as_shown_on_the_gpu(section: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    proc = subprocess.run(
        [sys.executable, "-c", lesson.step(section).code],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert " ".join(GPU_OUTPUT[section].split()) in " ".join(proc.stdout.split()), proc.stdout
    print(f"{section}: {proc.stdout.strip()}")  # the numbers, for the report (pytest -s)
