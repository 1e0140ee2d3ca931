"""The vector add's model read back by hand: default sizes and repeats, the report's rows on a GPU
and on the emulator, the sweep table only where it belongs. Numbers are worked out in comments;
the emulator test runs the real chapter kernel on 1,024 threads."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from simtviz.core.vecadd import (
    SweepRow,
    VecaddRequest,
    VecaddResult,
    check_result,
    default_n,
    program_source,
    report_lines,
    report_text,
    sweep_table,
    timing_lines,
)


def _rows(result: VecaddResult) -> dict[str, str]:
    return {label: value for label, value, _how in timing_lines(result)}


# --- defaults ------------------------------------------------------------------------------------


def test_default_sizes_keep_the_guides_plus_eleven() -> None:
    # GPU: 2^24 + 11 = 16,777,216 + 11 = 16,777,227; simulator and emulator: 2^12 + 11 = 4,107
    assert default_n("gpu") == 16_777_227
    assert default_n("sim") == default_n("emu") == 4_107


@pytest.mark.parametrize(
    ("n", "block", "size", "grid"),
    [
        # 16,777,227 / 256 = 65,536.04 → 65,537 blocks
        (16_777_227, 256, "2**24 + 11", "65,537"),
        # 4,107 / 256 = 16.04 → 17
        (4_107, 256, "2**12 + 11", "17"),
        # 1,000 / 128 = 7.8 → 8
        (1_000, 128, "1000", "8"),
    ],
)
def test_the_program_shown_names_the_size_as_the_guide_writes_it(
    n: int, block: int, size: str, grid: str
) -> None:
    code = program_source(n, block, True)
    assert f"vector_size = {size}\n" in code and f"block_size = {block}\n" in code
    assert f"# = {grid}\n" in code


def test_default_repeats_fifty_on_a_gpu_one_elsewhere() -> None:
    assert VecaddRequest(100).repeats("gpu") == 50
    assert VecaddRequest(100).repeats("sim") == VecaddRequest(100).repeats("emu") == 1
    assert VecaddRequest(100, repeat=7).repeats("gpu") == 7


# --- a GPU's report ------------------------------------------------------------------------------


def test_gpu_launch_overhead_with_numbas_arrays_beside_cupys() -> None:
    r = VecaddResult("gpu:X", 100, 32, 4, launch_overhead_us=94.0, launch_overhead_numba_us=12.5)
    assert _rows(r)["host launch overhead"] == "94.0 µs (numba device arrays: 12.5 µs)"
    assert (
        _rows(VecaddResult("gpu:X", 100, 32, 4, launch_overhead_us=94.0))["host launch overhead"] == "94.0 µs"
    )


def test_gpu_out_of_bounds_writes_counted_with_commas() -> None:
    r = VecaddResult("gpu:X", 100, 32, 4, guarded=False, oob_writes=1_234_567, verified=True, max_abs_err=0.0)
    assert _rows(r)["out-of-bounds writes"] == "1,234,567"
    assert "  out-of-bounds writes     1,234,567" in report_text(r).splitlines()
    # not measured: a dash, and the report leaves the line out
    unknown = VecaddResult("gpu:X", 100, 32, 4, oob_writes=None, verified=True, max_abs_err=0.0)
    assert _rows(unknown)["out-of-bounds writes"] == "—"
    assert "out-of-bounds writes" not in report_text(unknown)


# --- the sweep table -----------------------------------------------------------------------------


def test_no_sweep_table_without_a_sweep() -> None:
    r = VecaddResult("sim", 100, 32, 4, verified=True, max_abs_err=0.0, sim_wall_ms=3.0)
    assert "Block-size sweep" not in report_text(r)


def test_the_panels_report_leaves_the_sweep_to_its_own_table() -> None:
    r = VecaddResult("sim", 100, 32, 4, verified=True, max_abs_err=0.0, sweep=[SweepRow.shape(100, 32)])
    assert "Block-size sweep:" not in report_lines(r, include_sweep=False)
    assert "Block-size sweep:" in report_text(r)


# --- the emulator's unguarded run ----------------------------------------------------------------


def test_emulator_unguarded_counts_writes_past_c_without_a_canary() -> None:
    from simtviz.backends.vecadd.emu import run_vecadd_emu

    # N = 1,011, block 256: 4 blocks = 1,024 threads, 1,024 − 1,011 = 13 surplus threads, each
    # writing C past its end (13 writes) after reading A and B past theirs (13 + 13 = 26 loads)
    result = run_vecadd_emu(VecaddRequest(1_011, 256, repeat=1, guarded=False))
    lines = report_text(result).splitlines()
    assert "  out-of-bounds writes     13" in lines
    assert any("the 13 writes past the end of C (and 26 loads past A and B)" in line for line in lines)
    # the emulator has no canary region: no "canary of … elements" line
    assert not any("canary of" in line for line in lines)
    assert lines[-1] == "Test succeeded"


# --- bandwidth against the copy and the peak -----------------------------------------------------


def test_a_kernel_exactly_as_fast_as_the_copy_is_measured_against_the_copy() -> None:
    # 4,000 GB/s over a 4,000 GB/s copy is 100 %, not above it: the copy is still the ceiling;
    # 4,000 / 4,800 = 83 % of the peak
    r = VecaddResult(
        "gpu:X", 100, 32, 4, kernel_ms=0.1, bandwidth_GBps=4000.0, copy_GBps=4000.0, peak_GBps=4800.0
    )
    assert _rows(r)["effective bandwidth"] == "4,000 GB/s = 100% of the copy, 83% of the 4.8 TB/s peak"


def test_no_copy_measured_gives_the_peak_alone() -> None:
    # 900 / 4,800 = 18.75 % → 19 %
    r = VecaddResult(
        "gpu:X", 100, 32, 4, kernel_ms=0.1, bandwidth_GBps=900.0, copy_GBps=None, peak_GBps=4800.0
    )
    assert _rows(r)["effective bandwidth"] == "900 GB/s, 19% of the 4.8 TB/s peak"


def test_no_kernel_time_gives_no_bandwidth_beside_a_known_peak() -> None:
    r = VecaddResult("gpu:X", 100, 32, 4, copy_GBps=3900.0, peak_GBps=4800.0)
    assert _rows(r)["effective bandwidth"] == "—"
    assert _rows(r)["theoretical DRAM peak"] == "4.8 TB/s"


@pytest.mark.parametrize(
    ("peak", "words"),
    # from 1,000 GB/s on in TB/s with one decimal: 1,000 → 1.0 TB/s; below in GB/s: 999 GB/s
    [(1000.0, "1.0 TB/s"), (999.0, "999 GB/s"), (3352.32, "3.4 TB/s")],
)
def test_the_peak_in_tb_from_a_thousand_gb(peak: float, words: str) -> None:
    assert _rows(VecaddResult("gpu:X", 100, 32, 4, peak_GBps=peak))["theoretical DRAM peak"] == words


# --- the simulator's out-of-bounds row -----------------------------------------------------------


def test_simulator_says_nothing_about_bounds_when_the_check_failed() -> None:
    # the kernel finished but C is wrong: no "0 (bounds-checked)" claim beside a failed check
    failed = VecaddResult("sim", 10, 4, 3, verified=False, assertion_text="Arrays are not almost equal")
    assert _rows(failed)["out-of-bounds writes"] == "—"
    assert "out-of-bounds writes" not in report_text(failed)


# --- the sweep's rows and table ------------------------------------------------------------------


def test_a_sweep_row_of_256_thread_blocks() -> None:
    # N = 1,011, block 256: ⌈1,011 / 256⌉ = 4 blocks, 4 × 256 = 1,024 threads, 13 idle
    assert SweepRow.shape(1_011, 256) == SweepRow(256, 4, 1_024, 13)
    # block 32: ⌈1,011 / 32⌉ = 32 blocks, 1,024 threads, 13 idle
    assert SweepRow.shape(1_011, 32) == SweepRow(32, 32, 1_024, 13)


def test_sweep_table_says_whose_wall_clock_and_leaves_untimed_rows_blank() -> None:
    timed = SweepRow(256, 4, 1_024, 13, kernel_ms=0.0123, bandwidth_GBps=2500.0)
    walled = SweepRow(32, 32, 1_024, 13, sim_wall_ms=3.0)
    untimed = SweepRow(1024, 1, 1_024, 13)
    gpu = VecaddResult("gpu:X", 1_011, 256, 4, sweep=[timed, untimed])
    # columns right-aligned to 6, 10, 6, 12, 12 characters
    assert sweep_table(gpu).splitlines() == [
        "Block-size sweep:",
        " block       grid   idle         time    bandwidth",
        "   256          4     13    0.0123 ms   2,500 GB/s",
        "  1024          1     13            —            —",
    ]
    sim = VecaddResult("sim", 1_011, 256, 4, sweep=[walled])
    # the simulator's wall-clock, not a GPU time: "3.00 ms (sim)"
    assert sweep_table(sim).splitlines()[2] == "    32         32     13 3.00 ms (sim)            —"


# --- the check and NumPy's time ------------------------------------------------------------------


def test_a_wrong_element_fails_the_check_with_numpys_words() -> None:
    result = VecaddResult("sim", 3, 4, 1)
    # c differs from a + b by 0.5 in its last element
    check_result(result, np.array([1.0, 2.0, 3.5]), np.array([1.0, 2.0, 3.0]))
    assert result.verified is False and result.max_abs_err == 0.5
    assert (result.assertion_text or "").startswith("Arrays are not almost equal to 6 decimals")
    check_result(result, np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0]))
    assert result.verified is True and result.max_abs_err == 0.0


def test_numpys_time_is_the_median_of_its_runs_in_ms(monkeypatch: pytest.MonkeyPatch) -> None:
    import simtviz.core.vecadd as core

    # three runs of 2 ms, 1 ms and 5 ms (clock in seconds): median 2 ms
    ticks = iter([10.0, 10.002, 20.0, 20.001, 30.0, 30.005])
    monkeypatch.setattr(core, "time", SimpleNamespace(perf_counter=lambda: next(ticks)))
    assert core.numpy_median_ms(np.zeros(2), np.zeros(2), runs=3) == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("ms", "words"),
    # under 1 ms four decimals (GPU kernels), from 1 ms on two
    [(0.5, "0.5000 ms"), (0.99996, "1.0000 ms"), (1.0, "1.00 ms"), (12.345, "12.35 ms")],
)
def test_kernel_time_decimals(ms: float, words: str) -> None:
    assert _rows(VecaddResult("gpu:X", 100, 32, 4, kernel_ms=ms))["kernel (GPU)"] == words


# --- "Run it anyway?" in the vector add's words, and whose clock timed it ------------------------


def test_threads_in_words_of_one_launch() -> None:
    # ⌈1,011 / 256⌉ = 4 blocks, run once on the simulator (no repeat asked)
    assert VecaddRequest(1_011, 256).threads_in_words() == (
        "The vector add with N = 1,011 launches 4 blocks of 256 threads once. A smaller N takes less time."
    )


def test_threads_in_words_with_repeats_and_the_sweep() -> None:
    # ⌈100,003 / 256⌉ = 391 blocks, 3 times, then the six sweep sizes
    assert VecaddRequest(100_003, 256, repeat=3, sweep=True).threads_in_words() == (
        "The vector add with N = 100,003 launches 391 blocks of 256 threads 3 times, then once per"
        " block size of the sweep (32, 64, 128, 256, 512, 1,024). A smaller N takes less time."
    )


def test_only_gpu_results_are_timed_on_a_gpu() -> None:
    assert VecaddResult("gpu:NVIDIA H200", 100, 32, 4).on_gpu is True
    assert VecaddResult("sim", 100, 32, 4).on_gpu is False
    assert VecaddResult("emu", 100, 32, 4).on_gpu is False
