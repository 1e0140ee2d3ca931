"""The lesson's probes in the simulator: real simulator outcomes, honest gaps for GPU-only values."""

from __future__ import annotations

import pytest

from simtviz.backends.lesson import PROBES, run_probe


@pytest.fixture(scope="module")
def results(backend_kind: str) -> dict[str, dict]:
    if backend_kind != "sim":
        pytest.skip("simulator test")
    return {name: run_probe(name) for name in PROBES}


def test_every_probe_runs_and_explains_each_gap(results: dict[str, dict]) -> None:
    for name, result in results.items():
        assert result["probe"] == name and result["backend"] == "sim"
        assert "error" not in result, result.get("error")
        for key in PROBES[name].keys:
            assert key in result, (name, key)
        for key, reason in result["unavailable"].items():
            assert result[key] is None and len(reason) > 20, (name, key)


def test_gpu_only_quantities_are_none_in_the_simulator(results: dict[str, dict]) -> None:
    gpu_only = {
        "jit_timing": ["first_launch_ms", "second_launch_ms", "first_event_ms"],
        "copy_bandwidth": ["h2d_pageable_GBps", "h2d_pinned_GBps", "d2h_pageable_GBps", "d2h_pinned_GBps"],
        "host_array_to_kernel": ["host_copy_warnings"],
        "async_timeline": ["launch_return_ms", "sync_return_ms", "kernel_gpu_ms"],
        "bounds_check": ["oob_writes"],
        "launch_2048": ["raised"],
        "array_dtypes": ["zeros_dtype", "uniform_dtype"],
    }
    for name, keys in gpu_only.items():
        for key in keys:
            assert results[name][key] is None and key in results[name]["unavailable"], (name, key)


def test_what_the_simulator_can_show_is_shown(results: dict[str, dict]) -> None:
    assert results["jit_timing"]["verified"] is True
    host = results["host_array_to_kernel"]
    assert host["raised"] is None and host["result_correct"] is True and host["sim_warnings"] == []
    # The simulator runs the kernel inside the launch: done before the launch call returns.
    assert results["async_timeline"]["kernel_done_at_launch_return"] is True
    # 1000 elements, blocks of 256: grid 4, 24 surplus threads; the simulator raises IndexError.
    bounds = results["bounds_check"]
    assert bounds["grid"] == 4 and bounds["surplus_threads"] == 24
    assert "IndexError" in bounds["raised"]
    # The simulator checks no launch limits; the app names the one broken.
    assert results["launch_2048"]["sim_ran_without_error"] is True
    assert "2,048 > 1,024" in results["launch_2048"]["app_check"]


def test_cupy_attributes_are_read_from_cupy_itself(results: dict[str, dict]) -> None:
    dtypes = results["array_dtypes"]
    assert dtypes["numpy_zeros_dtype"] == "float64"
    if dtypes["has_cp_rand"] is None:
        pytest.skip("CuPy is not installed here")
    assert dtypes["has_cp_rand"] is False and dtypes["has_cp_random_random"] is True
    lines = dtypes["chapter_lines"]
    assert "AttributeError" in lines[1]["error"] and "'rand'" in lines[1]["error"]
    assert "NameError" in lines[2]["error"] and "'A'" in lines[2]["error"]
    assert results["async_timeline"]["cupy_has_synchronize"] is False
    assert "synchronize" in results["async_timeline"]["cp_synchronize_error"]


def test_an_unknown_probe_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        run_probe("no_such_probe")
