"""The lockstep interpreter (emu/interp.py), more hand-worked cases on module-level constants that
call a device function (read once, when the file is read, with no thread running): a print in
the helper's loop, and a helper numba's simulator cannot run (a kernel launched with no grid, a
for loop over something other than range), so the kernel reading the constant is refused."""

from __future__ import annotations

import numpy as np
import pytest

from emu_source import refused_source as refused
from emu_source import run_source as run


def test_a_print_in_a_module_level_helper_loop_prints_once_per_iteration(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # LAPS = laps(3) runs once when the file is read, as numba's simulator imports it: the loop
    # prints 0, 1, 2 (one line each, not one per thread of any block) and returns 3; the kernel
    # then writes 3 on each of its 2 threads and prints nothing.
    out = np.zeros(2, np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit(device=True)
        def laps(n):
            for j in range(n):
                print("lap", j)
            return n

        LAPS = laps(3)

        @cuda.jit
        def k(out):
            out[cuda.threadIdx.x] = LAPS
        """,
        2, out,
    )  # fmt: skip
    assert capsys.readouterr().out.splitlines() == ["lap 0", "lap 1", "lap 2"]
    assert out.tolist() == [3, 3]


def test_a_module_constant_whose_helper_calls_a_kernel_is_refused() -> None:
    # VALUE = helper(5) calls the kernel other() with no [grid, block]: numba's simulator fails
    # on it (no launch configuration), so the emulator has no VALUE and refuses the kernel k
    # where it reads VALUE (line 17), naming the kernel call; out stays 0 (not 5).
    out = np.zeros(4, np.int64)
    err = refused(
        """
        from numba import cuda

        @cuda.jit
        def other(x):
            pass

        @cuda.jit(device=True)
        def helper(x):
            other(x)
            return x

        VALUE = helper(5)

        @cuda.jit
        def k(out):
            out[cuda.threadIdx.x] = VALUE
        """,
        out,
        kernel="k",
    )  # fmt: skip
    assert err.line == 17
    assert "calling the kernel other from a kernel" in str(err)
    assert out.tolist() == [0, 0, 0, 0]


def test_a_module_constant_whose_helper_loops_over_a_number_is_refused() -> None:
    # TOTAL = total(3) loops `for j in abs(n)`: Python cannot iterate over the int 3, so numba's
    # simulator fails; the emulator has no TOTAL (it does not read abs(3) as range(3), which
    # would give 0 + 1 + 2 = 3) and refuses k where it reads TOTAL (line 15); out stays 0.
    out = np.zeros(4, np.int64)
    err = refused(
        """
        from numba import cuda

        @cuda.jit(device=True)
        def total(n):
            s = 0
            for j in abs(n):
                s += j
            return s

        TOTAL = total(3)

        @cuda.jit
        def k(out):
            out[cuda.threadIdx.x] = TOTAL
        """,
        out,
    )  # fmt: skip
    assert err.line == 15
    assert "a for loop over anything but range(...)" in str(err)
    assert out.tolist() == [0, 0, 0, 0]
