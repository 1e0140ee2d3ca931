"""The lockstep interpreter (emu/interp.py), more hand-worked cases: for loops counting down (one
stride for all threads, or one per thread), a tuple indexed with a float, a variable that names a
number on some threads and an array on others, and a module-level constant computed by a device
function."""

from __future__ import annotations

import numpy as np
import pytest

from emu_source import refused_source as refused
from emu_source import run_source as run
from simtviz.core.errors import EmulatorUnsupported


def test_range_counting_down_stops_before_its_stop() -> None:
    # range(3, 0, -1) is 3, 2, 1 (0 is the stop, not run): 3 iterations, sum 6; every thread
    # runs the same loop. range(5, 1, -2) is 5, 3 (1 is the stop): sum 8.
    out = np.zeros((2, 2), np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(out):
            i = cuda.threadIdx.x
            for j in range(3, 0, -1):
                out[0, i] += 1
                out[1, i] += j
            for j in range(5, 1, -2):
                out[1, i] += j * 100
        """,
        2, out,
    )  # fmt: skip
    assert out[0].tolist() == [3, 3]
    assert out[1].tolist() == [806, 806]  # 6 + (5 + 3) * 100


def test_a_stride_per_thread_counts_up_or_down_and_stops_before_its_stop() -> None:
    # 3 threads, range(4, stop, 1 - 2 * i), stop = 8 when the stride is +1, else 0:
    # thread 0: stride +1, 4 5 6 7 (8 not run): 4 iterations, sum 22.
    # thread 1: stride -1, 4 3 2 1 (0 not run): 4 iterations, sum 10.
    # thread 2: stride -3, 4 1 (-2 is past 0): 2 iterations, sum 5.
    out = np.zeros((2, 3), np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(out):
            i = cuda.threadIdx.x
            stop = 8 if i == 0 else 0
            for j in range(4, stop, 1 - 2 * i):
                out[0, i] += 1
                out[1, i] += j
        """,
        3, out,
    )  # fmt: skip
    assert out[0].tolist() == [4, 4, 2]
    assert out[1].tolist() == [22, 10, 5]


def test_a_tuple_indexed_with_a_float_is_refused() -> None:
    # a.shape[1.0]: Python and numba need an integer index into a tuple; refused on line 4
    # (it must not quietly read shape[1]).
    a = np.zeros((2, 3), np.int64)
    with pytest.raises(EmulatorUnsupported) as info:
        run("from numba import cuda\n@cuda.jit\ndef k(a):\n    a[0, 0] = a.shape[1.0]\n", 1, a)
    assert info.value.line == 4
    assert a[0, 0] == 0


def test_a_number_on_some_threads_and_an_array_on_others_is_refused() -> None:
    # dst = 0 on every thread, then dst = b on odd threads only (line 9): the even threads' dst
    # stays a number, and one variable cannot hold both: refused on line 9 with nothing written
    # (not b = [1, 1, 1, 1], every thread writing into b).
    b = np.zeros(4, np.int64)
    err = refused(
        """
        from numba import cuda

        @cuda.jit
        def k(b):
            i = cuda.threadIdx.x
            dst = 0
            if i % 2 == 1:
                dst = b
            dst[i] = 1
        """,
        b,
    )
    assert (err.construct, err.line) == ("dst naming a different array on different threads", 9)
    assert b.tolist() == [0, 0, 0, 0]


def test_a_number_may_become_an_array_once_the_other_threads_returned() -> None:
    # 4 threads; dst = 0 on all, threads 2 and 3 return, then dst = a on threads 0 and 1 (the
    # only ones left, as in numba's simulator): a[0] = a[1] = 7, a[2], a[3] untouched.
    a = np.zeros(4, np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(a):
            i = cuda.threadIdx.x
            dst = 0
            if i >= 2:
                return
            dst = a
            dst[i] = 7
        """,
        4, a,
    )  # fmt: skip
    assert a.tolist() == [7, 7, 0, 0]


def test_a_module_constant_computed_by_a_device_function_with_a_loop() -> None:
    # M = tri(4) = 0 + 1 + 2 + 3 = 6 at module level (numba's simulator runs it: M is 6); the
    # default y = tri(5) = 0 + 1 + 2 + 3 + 4 = 10, so g(1) = 11.
    out = np.zeros(2, np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit(device=True)
        def tri(n):
            s = 0
            for j in range(n):
                s += j
            return s

        M = tri(4)

        @cuda.jit(device=True)
        def g(x, y=tri(5)):
            return x + y

        @cuda.jit
        def k(out):
            out[0] = M
            out[1] = g(1)
        """,
        1, out,
    )  # fmt: skip
    assert out.tolist() == [6, 11]


def test_a_module_constant_whose_device_function_waits_at_a_barrier_is_refused() -> None:
    # X = f() runs cuda.syncthreads() outside any kernel: numba's simulator fails on it, so the
    # emulator has no value for X and refuses the kernel where it reads X (line 13), writing
    # nothing (not out[0] = 3, f's return value).
    out = np.zeros(1, np.int64)
    with pytest.raises(EmulatorUnsupported) as info:
        run(
            """
            from numba import cuda

            @cuda.jit(device=True)
            def f():
                cuda.syncthreads()
                return 3

            X = f()

            @cuda.jit
            def k(out):
                out[0] = X
            """,
            1, out,
        )  # fmt: skip
    assert info.value.line == 13
    assert out[0] == 0
