"""Device memory in the emulator (emu/memory.py), more hand-worked cases: atomic adds of negative
numbers (one counter, and per-thread bins) with each lane's old value, an array printed from a
kernel, and a float index that skipping out-of-bounds accesses must not swallow."""

from __future__ import annotations

import numpy as np
import pytest

from emu_source import launch_source
from simtviz.emu import KernelIndexError

run = launch_source


def test_a_counter_counting_down_below_zero_gives_each_lane_its_old_value() -> None:
    # c int32 = 10; 3 threads add -4 to c[0] (one element for all): olds 10, 6, 2; final -2.
    # d int64 = -5; the same 3 threads add 2 - i (2, 1, 0): olds -5, -3, -2; final -2.
    c = np.array([10], np.int32)
    d = np.array([-5], np.int64)
    out = np.zeros((2, 3), np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(c, d, out):
            i = cuda.threadIdx.x
            out[0, i] = cuda.atomic.add(c, 0, -4)
            out[1, i] = cuda.atomic.add(d, 0, 2 - i)
        """,
        1, 3, c, d, out,
    )  # fmt: skip
    assert out[0].tolist() == [10, 6, 2] and c[0] == -2
    assert out[1].tolist() == [-5, -3, -2] and d[0] == -2


def test_bins_taking_negative_adds_give_each_lane_its_old_value() -> None:
    # 4 threads, bin = i % 2, add(h, bin, -(i + 1)) on int32 h = [0, 100]:
    # bin 0: lanes 0, 2 add -1, -3: olds 0, -1; final -4.
    # bin 1: lanes 1, 3 add -2, -4: olds 100, 98; final 94.
    h = np.array([0, 100], np.int32)
    out = np.zeros(4, np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(h, out):
            i = cuda.threadIdx.x
            out[i] = cuda.atomic.add(h, i % 2, -(i + 1))
        """,
        1, 4, h, out,
    )  # fmt: skip
    assert out.tolist() == [0, 100, -1, 98] and h.tolist() == [-4, 94]


def test_an_array_printed_from_a_kernel_names_its_space_type_and_shape(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # One thread prints the global a (int64, 4 elements) and a shared s (float32, 2 x 3).
    a = np.zeros(4, np.int64)
    run(
        """
        from numba import cuda, float32

        @cuda.jit
        def k(a):
            s = cuda.shared.array((2, 3), float32)
            print(a)
            print(s)
        """,
        1, 1, a,
    )  # fmt: skip
    assert capsys.readouterr().out == "<global array a int64[4]>\n<shared array s float32[2, 3]>\n"


def test_a_float_index_is_an_error_even_when_out_of_bounds_accesses_are_skipped() -> None:
    # skip_oob skips integer indices outside the array; b[i + 10.0] is no integer index at all
    # (and past b's 4 elements): an error on line 6, not a skipped store; nothing stored.
    b = np.zeros(4, np.int64)
    with pytest.raises(KernelIndexError) as info:
        run(
            "from numba import cuda\n@cuda.jit\ndef k(b):\n    i = cuda.threadIdx.x\n\n    b[i + 10.0] = 1\n",
            1, 2, b, skip_oob=True,
        )  # fmt: skip
    assert (info.value.message, info.value.line) == ("index 0 of b is not an integer", 6)
    assert b.tolist() == [0, 0, 0, 0]
