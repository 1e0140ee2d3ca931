"""On a real GPU, the lesson's probes measure what the chapter claims (or disproves).

Run as its own process: ``SIMTVIZ_BACKEND=gpu python -m pytest -m gpu``. Plausibility, not
speed: each comparison has a margin of at least 2x over what the H200 measured (DESIGN.md).
"""

from __future__ import annotations

import pytest

from simtviz.backends.lesson import run_probe

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
