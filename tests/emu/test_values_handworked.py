"""numba's typing where it changes a result (emu/values.py): casts, int(), float(), bool(),
math.* and the widening of integers, on kernels of a few threads; numbers worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from emu_source import run_source as run
from simtviz.core.errors import EmulatorUnsupported


def test_casts_of_one_value_and_of_a_value_per_thread() -> None:
    # uniform: float32(7) / 2 = 3.5; int32(7.9) = 7 (toward zero); bool_(5) + bool_(0) = 1 + 0.
    # per thread, x = [-1.5, 2.5, 3.75]: int32(x) = -1 2 3; float32(x) * 2 = -3 5 7.5.
    x = np.array([-1.5, 2.5, 3.75])
    out = np.zeros((5, 3), np.float64)
    run(
        """
        import numpy as np
        from numba import cuda, float32, int32

        @cuda.jit
        def k(x, out):
            i = cuda.threadIdx.x
            out[0, i] = float32(7) / 2
            out[1, i] = int32(7.9)
            out[2, i] = np.bool_(5) + np.bool_(0)
            out[3, i] = int32(x[i])
            out[4, i] = float32(x[i]) * 2
        """,
        3, x, out,
    )  # fmt: skip
    assert out.tolist() == [
        [3.5, 3.5, 3.5],
        [7, 7, 7],
        [1, 1, 1],
        [-1, 2, 3],
        [-3, 5, 7.5],
    ]


def test_int_float_and_bool_builtins() -> None:
    # int(): toward zero, for one value (int(-2.5) = -2) and per thread (x = [-1.5, 2.5, 3.75]:
    # -1 2 3); float(7) / 2 = 3.5 (not 3); bool(0) = False, bool(i) for i = 0 1 2: 0 1 1.
    x = np.array([-1.5, 2.5, 3.75])
    out = np.zeros((5, 3), np.float64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(x, out):
            i = cuda.threadIdx.x
            out[0, i] = int(-2.5)
            out[1, i] = int(x[i])
            out[2, i] = float(7) / 2
            out[3, i] = bool(0)
            out[4, i] = bool(i)
        """,
        3, x, out,
    )  # fmt: skip
    assert out.tolist() == [[-2, -2, -2], [-1, 2, 3], [3.5, 3.5, 3.5], [0, 0, 0], [0, 1, 1]]


def test_math_functions_of_two_arguments_and_rounding() -> None:
    # pow(2, 10) = 1024; hypot(3, 4) = 5; fmod(-7, 3) = -1 (the sign of -7); copysign(2, -0.0) = -2;
    # atan2(0, -1) = pi (as 3.141592653589793 below). floor(-2.5) = -3, ceil(2.1) = 3,
    # trunc(-2.7) = -2, floor of the integer i (0 1 2) = i: all int64, so // 2 is integer.
    out = np.zeros((8, 3), np.float64)
    run(
        """
        import math
        from numba import cuda

        @cuda.jit
        def k(out):
            i = cuda.threadIdx.x
            out[0, i] = math.pow(2, 10)
            out[1, i] = math.hypot(3, 4)
            out[2, i] = math.fmod(-7, 3)
            out[3, i] = math.copysign(2, -0.0)
            out[4, i] = math.atan2(0, -1)
            out[5, i] = math.floor(-2.5) * 10 + math.ceil(2.1)
            out[6, i] = math.trunc(-2.7) // 2
            out[7, i] = math.floor(i) // 2
        """,
        3, out,
    )  # fmt: skip
    # row 5: -3 * 10 + 3 = -27; row 6: -2 // 2 = -1; row 7: 0 0 1
    assert out.tolist() == [
        [1024] * 3,
        [5] * 3,
        [-1] * 3,
        [-2] * 3,
        [3.141592653589793] * 3,
        [-27] * 3,
        [-1] * 3,
        [0, 0, 1],
    ]


def test_uint64_plus_an_int_is_float64_as_in_numba() -> None:
    # numba types uint64 + int64 as float64: 2^60 + 1 = 1,152,921,504,606,846,977 plus 1 rounds
    # to 2^60 = 1,152,921,504,606,846,976 (float64 steps are 256 there); stored back as uint64.
    a = np.array([2**60 + 1], np.uint64)
    out = np.zeros(1, np.uint64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(a, out):
            out[0] = a[0] + 1
        """,
        1, a, out,
    )  # fmt: skip
    assert int(out[0]) == 1152921504606846976


def test_a_tuple_as_a_condition_is_true_when_not_empty() -> None:
    # (i,) is a tuple of one: true; () is empty: false. out = 1 then + 10 never.
    out = np.zeros(2, np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(out):
            i = cuda.threadIdx.x
            if (i,):
                out[i] = 1
            if ():
                out[i] += 10
        """,
        2, out,
    )  # fmt: skip
    assert out.tolist() == [1, 1]


def test_shared_and_local_arrays_with_a_dtype_named_in_a_string() -> None:
    # "int32" as a string: storing 2.75 keeps 2 (toward zero); an unknown name is refused on its line.
    out = np.zeros(2, np.float64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(out):
            i = cuda.threadIdx.x
            s = cuda.shared.array(2, "int32")
            s[i] = 2.75
            out[i] = s[i]
        """,
        2, out,
    )  # fmt: skip
    assert out.tolist() == [2, 2]
    with pytest.raises(EmulatorUnsupported) as info:
        run('from numba import cuda\n@cuda.jit\ndef k(out):\n    s = cuda.local.array(2, "float")\n', 2, out)
    assert info.value.line == 4
    assert info.value.construct == "this line (TypeError: 'float' is not a dtype the emulator knows)"
