"""The bank analysis from hand-made logs (no kernel runs): words, banks, broadcasts, elements
wider than a bank, and the words of a GPU run's timing note."""

from __future__ import annotations

import numpy as np

from simtviz.core.trace.analysis import LOG_FIELDS, ArrayInfo, analyse
from simtviz.core.trace.report import timing_words
from simtviz.core.trace.rewrite import Site
from simtviz.core.trace.stats import SharedLineStats


def log_of(offsets: list[int], array: int = 1, site: int = 0) -> np.ndarray:
    """One warp (threads 0..n-1), each making one load at ``offsets[lane]`` bytes."""
    n = len(offsets)
    log = np.zeros((LOG_FIELDS, n), dtype=np.int64)
    log[0] = np.arange(n)
    log[1] = site
    log[2] = array << 3  # a load, in bounds
    log[3] = offsets
    return log


def shared_line(dtype: str, offsets: list[int]) -> SharedLineStats:
    arrays = [ArrayInfo("A", (32,), "float32"), ArrayInfo("s", (4096,), dtype, "shared")]
    sites = [Site(0, 7, 4, "s", "load", 1, "shared")]
    a = analyse(log_of(offsets), len(offsets), sites, arrays, (32, 1, 1))
    assert a.lines == [] and list(a.arrays) == ["A"] and list(a.shared_arrays or {}) == ["s"]
    (row,) = a.shared_lines or []
    assert row.requests == 1
    return row


def test_complex128_elements_cover_four_words_each() -> None:
    # 32 lanes × 16 bytes, consecutive: words 0..127, 4 in every bank: 4 wavefronts, the least.
    row = shared_line("complex128", [16 * lane for lane in range(32)])
    assert (row.wavefronts, row.min_wavefronts, row.max_conflict_degree) == (4, 4, 4)


def test_bytes_in_one_word_are_one_word() -> None:
    # int8 s[lane]: bytes 0..31 are words 0..7, banks 0..7, one word each: 1 wavefront.
    row = shared_line("int8", list(range(32)))
    assert (row.wavefronts, row.min_wavefronts) == (1, 1)


def test_a_stride_of_32_words_puts_every_lane_in_one_bank_and_a_repeat_is_a_broadcast() -> None:
    # float32 s[32·(lane % 8)]: 8 distinct words, all in bank 0, each read by 4 lanes: 8 wavefronts.
    row = shared_line("float32", [4 * 32 * (lane % 8) for lane in range(32)])
    assert (row.wavefronts, row.min_wavefronts, row.max_conflict_degree) == (8, 1, 8)


def test_a_gpu_run_whose_kernel_as_written_was_not_timed_says_so() -> None:
    s = {"backend": "gpu:NVIDIA H200", "kernel_ms": None, "instrumented_ms": 0.25}
    assert timing_words(**s) == (
        "Kernel time: 0.250 ms traced (GPU time, host launch cost excluded); "
        "the kernel as written was not timed."
    )
    assert timing_words(**{"backend": "sim", "kernel_ms": None, "instrumented_ms": None}).startswith(
        "Kernel time: not measured on the simulator"
    )
