"""Atomics in the emulator (emu/memory.py) past the 32 lanes handled in vectorised rounds: the
rest of a long run on one element steps one lane at a time, worked out by hand."""

from __future__ import annotations

import numpy as np

from emu_source import launch_source


def test_dec_from_40_lanes_on_one_unsigned_counter_wraps_at_zero_every_fourth_lane() -> None:
    # 40 threads, dec(c, 0 * i, 3) on c = [1, 5] (uint32). dec: old == 0 or old > 3 gives 3,
    # else old - 1. Lane 0 sees 1 (-> 0), lane 1 sees 0 (-> 3), lane 2 sees 3 (-> 2), lane 3
    # sees 2 (-> 1), then again: olds 1 0 3 2 ten times. Lanes 32..39 (past 32 in a row) go on
    # the same way; lane 39 saw 2, so c[0] ends at 1. c[1] is never touched: 5.
    c = np.array([1, 5], np.uint32)
    out = np.zeros(40, np.int64)
    launch_source(
        """
        from numba import cuda

        @cuda.jit
        def k(c, out):
            i = cuda.threadIdx.x
            out[i] = cuda.atomic.dec(c, 0 * i, 3)
        """,
        1, 40, c, out,
    )  # fmt: skip
    assert out.tolist() == [1, 0, 3, 2] * 10
    assert c.tolist() == [1, 5]


def test_inc_from_34_lanes_on_one_int32_element_of_two_hit() -> None:
    # 36 threads: lanes 0..33 inc(a, 0, 2) (34 lanes in a row on a[0]), lanes 34, 35 inc(a, 1, 2).
    # inc: old >= 2 gives 0, else old + 1. a = [0, 2]: a[0] olds 0 1 2 repeating (34 lanes:
    # 11 times 0 1 2, then 0); lane 33 saw 0, so a[0] ends at 1. a[1]: lane 34 sees 2 (-> 0),
    # lane 35 sees 0 (-> 1): a[1] ends at 1.
    a = np.array([0, 2], np.int32)
    out = np.zeros(36, np.int64)
    launch_source(
        """
        from numba import cuda

        @cuda.jit
        def k(a, out):
            i = cuda.threadIdx.x
            out[i] = cuda.atomic.inc(a, i // 34, 2)
        """,
        1, 36, a, out,
    )  # fmt: skip
    assert out.tolist() == [0, 1, 2] * 11 + [0, 2, 0]
    assert a.tolist() == [1, 1]
