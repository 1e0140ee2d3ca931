"""The Qt-free vecadd model: grid arithmetic, JSON fields, the report, the code shown."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simtviz.core import vecadd as core
from simtviz.core.vecadd import (
    EXTRA_JSON_FIELDS,
    JSON_FIELDS,
    SweepRow,
    VecaddRequest,
    VecaddResult,
    bandwidth_gbps,
    grid_for,
    idle_threads,
    program_source,
    report_text,
)

KERNELS_FILE = Path(core.__file__).parents[1] / "kernels" / "vecadd.py"


def test_the_guides_numbers() -> None:
    n = 2**24 + 11
    assert grid_for(n, 256) == 65537
    assert idle_threads(n, 256) == 245
    assert grid_for(100003, 256) == 391
    assert grid_for(2**12 + 11, 256) == 17


@given(st.integers(0, 2**40), st.integers(1, 4096))
def test_grid_is_the_guides_ceil(n: int, block: int) -> None:
    assert grid_for(n, block) == math.ceil(n / block) if n < 2**52 else True
    assert 0 <= idle_threads(n, block) < block
    assert grid_for(n, block) * block >= n


def test_block_zero_gives_grid_zero_for_the_launch_to_reject() -> None:
    assert grid_for(10, 0) == 0 and idle_threads(10, 0) == 0


def test_bandwidth_counts_three_arrays_of_doubles() -> None:
    assert bandwidth_gbps(10**9 // 24, 1.0) == pytest.approx(1000.0, rel=1e-6)
    assert bandwidth_gbps(5, None) is None and bandwidth_gbps(5, 0.0) is None


def test_json_has_exactly_the_contracts_fields_and_no_nan() -> None:
    result = VecaddResult("sim", 10, 4, 3, max_abs_err=float("nan"), numpy_ms=0.01)
    data = result.to_json_dict()
    assert tuple(data) == JSON_FIELDS + EXTRA_JSON_FIELDS
    assert data["max_abs_err"] is None and data["kernel_ms"] is None and data["oob_writes"] == 0


def test_report_ends_with_test_succeeded_only_when_verified() -> None:
    good = VecaddResult("sim", 10, 4, 3, verified=True, max_abs_err=0.0, sim_wall_ms=5.0)
    assert report_text(good).endswith("Test succeeded")
    bad = VecaddResult("sim", 10, 4, 3, verified=False, assertion_text="Arrays are not almost equal")
    assert report_text(bad).endswith("Test failed") and "Arrays are not almost equal" in report_text(bad)
    raised = VecaddResult("sim", 10, 4, 3, kernel_error="IndexError: index 10 is out of bounds")
    assert core.GPU_WOULD_NOT_RAISE in report_text(raised)


def test_gpu_report_shows_share_of_copy_and_cupy_ratio() -> None:
    r = VecaddResult("gpu:X", 100, 32, 4, verified=True, max_abs_err=0.0, kernel_ms=0.1, bandwidth_GBps=900.0,
                     copy_GBps=1000.0, cupy_ms=0.1, launch_overhead_us=90.0, oob_writes=245, guarded=False,
                     canary=501, sweep=[SweepRow.shape(100, 32)])  # fmt: skip
    text = report_text(r)
    assert (
        "90% of the copy" in text and "1.00× its speed" in text and "245 writes landed past the end" in text
    )
    assert "Block-size sweep" in text


def test_simulated_thread_count_includes_repeats_and_sweep() -> None:
    req = VecaddRequest(100, 32, repeat=3, sweep=True)
    assert req.simulated_threads() == 128 * 3 + (128 + 128 + 128 + 256 + 512 + 1024)


def _kernel_sources() -> dict[str, str]:
    text = KERNELS_FILE.read_text()
    tree = ast.parse(text)
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.decorator_list:
            start = node.decorator_list[0].lineno - 1
            out[node.name] = "\n".join(text.splitlines()[start : node.end_lineno]) + "\n"
    return out


def test_the_code_shown_is_the_code_that_runs() -> None:
    sources = _kernel_sources()
    assert sources["vecadd"] == core.GUARDED_KERNEL
    assert sources["vecadd_unguarded"] == core.UNGUARDED_KERNEL


def test_program_shown_has_no_errata() -> None:
    code = program_source()
    assert "cp.rand." not in code and "zeros_like(A)" not in code and "float32" not in code
    assert "vector_size = 2**24 + 11" in code and "block_size = 256" in code
    assert "np.testing.assert_array_almost_equal(c_np, expected)" in code
    compile(code, "vecadd.py", "exec")  # it is valid Python
    assert "vecadd_unguarded[grid_size, block_size](a, b, c)" in program_source(1000, 128, guarded=False)


def test_the_dram_peak_is_clock_times_bus_width_times_two() -> None:
    # H100 SXM: 2,619,000 kHz × 5,120 bits → 2.619e9 Hz × 640 bytes × 2 = 3,352.32 GB/s.
    assert core.dram_peak_gbps(2_619_000, 5_120) == pytest.approx(3_352.32)
    assert core.dram_peak_gbps(None, 5_120) is None and core.dram_peak_gbps(2_619_000, 0) is None


def test_the_copy_moves_the_kernels_bytes() -> None:
    # vecadd of N = 1,000 moves 3,000 doubles (A, B read; C written); a copy of 1,500 reads 1,500
    # and writes 1,500. Odd N rounds up: N = 1,001 → 1,502 (3,004 ≥ 3,003).
    assert core.copy_elements(1_000) == 1_500 and core.copy_elements(1_001) == 1_502


def test_gpu_report_names_the_copy_and_the_peak() -> None:
    r = VecaddResult("gpu:NVIDIA H200", 2**24 + 11, 256, 65537, verified=True, max_abs_err=0.0,
                     kernel_ms=0.0967, bandwidth_GBps=4162.0, copy_GBps=4300.0, peak_GBps=4800.0)  # fmt: skip
    rows = {label: value for label, value, _how in core.timing_lines(r)}
    assert rows["effective bandwidth"] == "4,162 GB/s = 97% of the copy, 87% of the 4.8 TB/s peak"
    assert rows["theoretical DRAM peak"] == "4.8 TB/s"
    assert r.to_json_dict()["peak_GBps"] == 4800.0


def test_the_simulator_never_shows_a_measured_looking_zero_for_an_unguarded_run() -> None:
    raised = VecaddResult("sim", 1011, 256, 4, guarded=False, oob_writes=None,
                          kernel_error="IndexError: index 1011 is out of bounds")  # fmt: skip
    rows = {label: value for label, value, _how in core.timing_lines(raised)}
    # 4 × 256 - 1,011 = 13 surplus threads: what a GPU's canary would count.
    assert rows["out-of-bounds writes"].startswith("not counted: the simulator stopped at the first bad")
    assert "count 13 in its canary" in rows["out-of-bounds writes"]
    assert raised.to_json_dict()["oob_writes"] is None
    text = report_text(raised)
    assert "out-of-bounds writes     0" not in text and text.count(core.GPU_WOULD_NOT_RAISE) == 1
    checked = VecaddResult("sim", 1011, 256, 4, verified=True, max_abs_err=0.0, sim_wall_ms=1.0)
    rows = {label: value for label, value, _how in core.timing_lines(checked)}
    assert rows["out-of-bounds writes"] == "0 (the simulator bounds-checks every access)"


def test_vecadd_and_the_index_map_estimate_a_million_threads_alike() -> None:
    from simtviz.backends.sim import sim_info
    from simtviz.core.estimates import format_duration

    # 2^20 = 1,048,576 threads at 3,000 a second: 349.53 s (measured here under load: 6 min, as
    # the real run; benchmarks/sim_rates.py). vecadd adds a second for a fresh process.
    index_map = sim_info().estimate_seconds(1_048_576)
    vector_add = core.estimate_sim_seconds(VecaddRequest(n=1_048_576, block=256, repeat=1))
    assert index_map == pytest.approx(349.53, abs=0.01) and vector_add == pytest.approx(350.53, abs=0.01)
    assert format_duration(index_map) == format_duration(vector_add) == "6 min"


def test_a_kernel_faster_than_the_copy_is_measured_against_the_peak() -> None:
    # The H200's numbers of 2026-12-02: vecadd 4,143 GB/s, copy of the same bytes 3,946 GB/s,
    # peak 4,800 GB/s: 4143/4800 = 86 %, 4143/3946 = 105 %.
    r = VecaddResult("gpu:H200", 100, 32, 4, verified=True, max_abs_err=0.0, kernel_ms=0.1,
                     bandwidth_GBps=4143.0, copy_GBps=3946.0, peak_GBps=4800.0)  # fmt: skip
    rows = {label: value for label, value, _how in core.timing_lines(r)}
    assert rows["effective bandwidth"] == (
        "4,143 GB/s = 86% of the 4.8 TB/s peak"
        " (105% of a plain copy of the same bytes, which is no ceiling here)"
    )
