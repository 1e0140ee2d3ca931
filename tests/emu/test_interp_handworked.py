"""The lockstep interpreter's statements, builtins and numba's typing (emu/interp.py), on kernels
of a few threads with every expected number worked out by hand in a comment."""

from __future__ import annotations

import numpy as np
import pytest

from emu_source import refused_source as refused
from emu_source import run_source as run
from simtviz import emu
from simtviz.core.errors import EmulatorUnsupported
from simtviz.emu import KernelError

RECURSE = """
from numba import cuda

@cuda.jit(device=True)
def f(n):
    if n == 0:
        return 0
    return f(n - 1) + 1

@cuda.jit
def k(out, n):
    out[0] = f(n)
"""


def test_recursion_runs_63_calls_deep_and_no_deeper() -> None:
    # The kernel is call 1; f(62) makes calls 2 .. 64 (f(62) .. f(0)): 64 calls, the most the
    # emulator runs, and returns 62. f(63) would be the 65th call: refused on line 8.
    out = np.zeros(1, np.int64)
    run(RECURSE, 1, out, 62)
    assert out[0] == 62
    with pytest.raises(EmulatorUnsupported) as info:
        run(RECURSE, 1, out, 63)
    assert (info.value.construct, info.value.line) == ("recursion in f", 8)


def test_an_operator_on_an_array_names_the_expression_and_its_line() -> None:
    # line 4: 1 + a, with a an array (not an element).
    err = refused(
        "from numba import cuda\n@cuda.jit\ndef k(out, a):\n    x = 1 + a\n", np.zeros(4), np.zeros(4)
    )
    assert (err.construct, err.line) == ("1 + a (int64 Add ArrayRef)", 4)


def test_a_thread_index_has_only_x_y_z() -> None:
    err = refused("from numba import cuda\n@cuda.jit\ndef k(out):\n    x = cuda.threadIdx.w\n", np.zeros(4))
    assert (err.construct, err.line) == ("the attribute .w of cuda.threadIdx", 4)


def test_launching_a_plain_function_is_refused_without_a_line() -> None:
    # h has no @cuda.jit: nothing of it ran, so no line is named.
    out = np.zeros(4, np.int64)
    err = refused("from numba import cuda\ndef h(out):\n    out[0] = 1\n", out, kernel="h")
    assert (err.construct, err.line) == ("calling h, which is not a @cuda.jit(device=True) function", None)
    assert out[0] == 0


def test_range_of_a_float_is_a_kernel_error_on_its_line() -> None:
    with pytest.raises(KernelError) as info:
        run(
            "from numba import cuda\n@cuda.jit\ndef k(out):\n    for j in range(2.0):\n        out[0] = j\n",
            4,
            np.zeros(4),
        )
    assert (info.value.message, info.value.line) == ("range() takes 1 to 3 integers", 4)


def test_booleans_add_as_integers_and_combine_as_booleans(capsys: pytest.CaptureFixture[str]) -> None:
    # i = 0..3. (i > 0) + (i > 1): True + True is 2 in numba (integers): 0, 1, 2, 2.
    # (i > 0) & (i < 3) stays a boolean: False True True False, printed as such, stored as 0 1 1 0.
    out = np.zeros((2, 4), np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(out):
            i = cuda.threadIdx.x
            out[0, i] = (i > 0) + (i > 1)
            both = (i > 0) & (i < 3)
            out[1, i] = both
            print(both)
        """,
        4, out,
    )  # fmt: skip
    assert out.tolist() == [[0, 1, 2, 2], [0, 1, 1, 0]]
    assert capsys.readouterr().out.split() == ["False", "True", "True", "False"]


def test_an_integer_power_stays_exact_when_some_exponent_is_zero() -> None:
    # lane k = 0, 1: 3 ** (39 k) = 1 and 3^39 = 4,052,555,153,018,976,267 (below 2^63 = 9.22e18),
    # exact in int64; a float64 would round it to ...256.
    out = np.zeros(2, np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(out):
            i = cuda.threadIdx.x
            out[i] = 3 ** (39 * i)
        """,
        2, out,
    )  # fmt: skip
    assert out.tolist() == [1, 4052555153018976267]


def test_a_tuple_assigned_on_some_lanes_keeps_the_others() -> None:
    # t = (i, 1) for every lane, then (10, 20) on even lanes: out = t[0] * 100 + t[1]
    # lanes 0..3: 1020, 101, 1020, 301.
    out = np.zeros(4, np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(out):
            i = cuda.threadIdx.x
            t = (i, 1)
            if i % 2 == 0:
                t = (10, 20)
            out[i] = t[0] * 100 + t[1]
        """,
        4, out,
    )  # fmt: skip
    assert out.tolist() == [1020, 101, 1020, 301]


def test_an_array_variable_reassigned_after_an_early_return() -> None:
    # Lanes 2, 3 return; lanes 0, 1 go on with dst = b: b = [10, 11, 0, 0], a untouched.
    a = np.zeros(4, np.int64)
    b = np.zeros(4, np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(a, b):
            i = cuda.threadIdx.x
            dst = a
            if i >= 2:
                return
            dst = b
            dst[i] = 10 + i
        """,
        4, a, b,
    )  # fmt: skip
    assert a.tolist() == [0, 0, 0, 0] and b.tolist() == [10, 11, 0, 0]


def test_builtins_min_max_round_len_and_unary_plus() -> None:
    # i = 0..3 over x = [-2.5, 2.5, 3.5, 1.25] and a 2-D m of shape (3, 5):
    # min(i, 2) = 0 1 2 2; max(i, 1, 3 - i) = 3 2 2 3; round(x) to even: -2 2 4 1;
    # round(x, 1) * 100: -250 250 350 120 (1.25 is exact: to even, 1.2); len(m) = 3 rows,
    # len(m.shape) = 2; +x[i] * 4 = -10 10 14 5.
    x = np.array([-2.5, 2.5, 3.5, 1.25])
    m = np.zeros((3, 5))
    out = np.zeros((6, 4), np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(x, m, out):
            i = cuda.threadIdx.x
            out[0, i] = min(i, 2)
            out[1, i] = max(i, 1, 3 - i)
            out[2, i] = round(x[i])
            out[3, i] = round(round(x[i], 1) * 100)
            out[4, i] = len(m) * 10 + len(m.shape)
            out[5, i] = +x[i] * 4
        """,
        4, x, m, out,
    )  # fmt: skip
    assert out.tolist() == [
        [0, 1, 2, 2],
        [3, 2, 2, 3],
        [-2, 2, 4, 1],
        [-250, 250, 350, 120],
        [32, 32, 32, 32],
        [-10, 10, 14, 5],
    ]


def test_pass_annotated_assignment_and_a_cast_per_thread() -> None:
    # y: float = i / 2 and float32(i) / 4: lanes 0..3 give 0, 0.5, 1, 1.5 and 0, .25, .5, .75;
    # out = y + cast = 0, 0.75, 1.5, 2.25. pass does nothing.
    out = np.zeros(4, np.float64)
    run(
        """
        from numba import cuda, float32

        @cuda.jit
        def k(out):
            i = cuda.threadIdx.x
            pass
            y: float = i / 2
            out[i] = y + float32(i) / 4
        """,
        4, out,
    )  # fmt: skip
    assert out.tolist() == [0.0, 0.75, 1.5, 2.25]


CHOOSE = """
from numba import cuda

@cuda.jit(device=True)
def pick(a, b, i):
    if i % 2 == 1:
        return b
    return a

@cuda.jit
def by_if(a, b):
    i = cuda.threadIdx.x
    dst = a
    if i % 2 == 1:
        dst = b
    dst[i] = 1

@cuda.jit
def by_ifexp(a, b):
    i = cuda.threadIdx.x
    dst = b if i % 2 == 1 else a
    dst[i] = 1

@cuda.jit
def by_return(a, b):
    i = cuda.threadIdx.x
    dst = pick(a, b, i)
    dst[i] = 1
"""


@pytest.mark.parametrize(
    ("kernel", "line", "construct"),
    [
        ("by_if", 15, "dst naming a different array on different threads"),
        ("by_ifexp", 21, "b if i % 2 == 1 else a (a different array on different threads)"),
        ("by_return", 8, "returning a different array on different threads"),
    ],
)
def test_an_array_chosen_per_thread_is_refused_not_written_to_one(
    kernel: str, line: int, construct: str
) -> None:
    # On a GPU odd threads write b and even ones a: a = [1, 0, 1, 0], b = [0, 1, 0, 1]. The
    # emulator holds one array per variable, so it refuses (numba's simulator runs it) instead of
    # writing every thread's 1 into b, as it did. by_return: pick's line 8 returns a to lanes that
    # did not return b on line 7.
    a, b = np.zeros(4, np.int64), np.zeros(4, np.int64)
    with pytest.raises(EmulatorUnsupported) as info:
        run(CHOOSE, 4, a, b, kernel=kernel)
    assert (info.value.construct, info.value.line) == (construct, line)
    assert a.tolist() == [0, 0, 0, 0] and b.tolist() == [0, 0, 0, 0]


def test_the_same_array_on_every_thread_is_no_choice() -> None:
    # dst = a on odd lanes after dst = a on all: one array, runs. a[i] = 1 on odd lanes only.
    a = np.zeros(4, np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(a):
            i = cuda.threadIdx.x
            dst = a
            if i % 2 == 1:
                dst = a
                dst[i] = 1
        """,
        4, a,
    )  # fmt: skip
    assert a.tolist() == [0, 1, 0, 1]


def test_a_device_function_called_70_times_in_a_loop_is_no_recursion() -> None:
    # f(k) = k + 1, called once per iteration: sum over k = 0..69 of (k + 1) = 70 * 71 / 2 = 2485.
    out = np.zeros(1, np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit(device=True)
        def f(k):
            return k + 1

        @cuda.jit
        def k(out):
            s = 0
            for j in range(70):
                s += f(j)
            out[0] = s
        """,
        1, out,
    )  # fmt: skip
    assert out[0] == 2485


def test_an_error_inside_a_helper_of_another_module_names_the_kernels_line() -> None:
    # tv_load1 (simtviz.kernels.trace_helpers) counts in count[1]; a count array of 1 element
    # makes its own line fail. The student sees their line 9, the call, not the helper's line.
    a = np.zeros(4, np.int32)
    with pytest.raises(KernelError) as info:
        run(
            """
            from numba import cuda
            from simtviz.kernels.trace_helpers import tv_load1

            @cuda.jit
            def k(a, log, count):
                i = cuda.threadIdx.x
                x = 0
                x = tv_load1(a, i, log, count, i, 0, 0, 0)
            """,
            4, a, np.zeros((8, 4), np.int64), np.zeros(1, np.int64),
        )  # fmt: skip
    assert info.value.line == 9


def test_control_flow_words_on_lanes_worked_by_hand() -> None:
    # i = 0..3. A name first bound inside an if (t on lanes 2, 3: 2 i): 0 0 4 6.
    # while with continue and break: n counts j = 0.. while j < 10, skipping odd j, stopping at
    # j == 2 i + 2: lane 0 stops at 2 (counted 0: 1), lane 1 at 4 (0, 2: 2), lane 2 at 6 (3),
    # lane 3 at 8 (4). not / ~: not (i > 1) = 1 1 0 0; ~i = -1 -2 -3 -4. An if-expression whose
    # test is one value for all (3 > 2: 7) and one false on every lane (i > 9: -i).
    # c += i * 10 then out: 0 10 20 30.
    out = np.zeros((6, 4), np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(out):
            i = cuda.threadIdx.x
            if i > 1:
                t = 2 * i
                out[0, i] = t
            n = 0
            j = -1
            while j < 10:
                j += 1
                if j % 2 == 1:
                    continue
                if j == 2 * i + 2:
                    break
                n += 1
            out[1, i] = n
            out[2, i] = not (i > 1)
            out[3, i] = ~i
            out[4, i] = (7 if 3 > 2 else 0) * 100 + (i if i > 9 else -i)
            c = 0
            c += i * 10
            out[5, i] = c
        """,
        4, out,
    )  # fmt: skip
    assert out.tolist() == [
        [0, 0, 4, 6],
        [1, 2, 3, 4],
        [1, 1, 0, 0],
        [-1, -2, -3, -4],
        [700, 699, 698, 697],
        [0, 10, 20, 30],
    ]


def test_a_constant_of_an_imported_kernel_module() -> None:
    # from simtviz.kernels import trace_helpers: trace_helpers.NOT_LOGGED is -1, LOG_FIELDS 8.
    out = np.zeros(1, np.int64)
    run(
        """
        from numba import cuda
        from simtviz.kernels import trace_helpers

        @cuda.jit
        def k(out):
            out[0] = trace_helpers.NOT_LOGGED * 10 + trace_helpers.LOG_FIELDS
        """,
        1, out,
    )  # fmt: skip
    assert out[0] == -2  # -10 + 8


def test_range_with_a_step_down_and_a_step_per_thread() -> None:
    # range(10, 0, -3): 10 7 4 1, sum 22, on every lane. range(0, 10, i + 1) for i = 0..3:
    # 0..9 (45), 0 2 4 6 8 (20), 0 3 6 9 (18), 0 4 8 (12). range(2, 5): 2 + 3 + 4 = 9.
    out = np.zeros((3, 4), np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(out):
            i = cuda.threadIdx.x
            for j in range(10, 0, -3):
                out[0, i] += j
            for j in range(0, 10, i + 1):
                out[1, i] += j
            for j in range(2, 5):
                out[2, i] += j
        """,
        4, out,
    )  # fmt: skip
    assert out.tolist() == [[22] * 4, [45, 20, 18, 12], [9] * 4]


def kernel_error(source: str, block: int, *args: object) -> KernelError:
    with pytest.raises(KernelError) as info:
        run(source, block, *args)
    return info.value


def test_range_errors_a_zero_step_and_four_arguments() -> None:
    # range(5, 0, 0) would never end: Python (and numba's simulator) raise ValueError; so does
    # the emulator, as a kernel error on line 4, also when one thread's step is 0 (i - 2 on i = 2).
    out = np.zeros(4)
    head = "from numba import cuda\n@cuda.jit\ndef k(out):\n"
    err = kernel_error(head + "    for j in range(5, 0, 0):\n        out[0] = j\n", 4, out)
    assert (err.message, err.line) == ("range() arg 3 must not be zero", 4)
    err = kernel_error(head + "    for j in range(5, 0, cuda.threadIdx.x - 2):\n        out[0] = j\n", 4, out)
    assert (err.message, err.line) == ("range() arg 3 must not be zero", 4)
    err = kernel_error(head + "    for j in range(0, 5, 1, 1):\n        out[0] = j\n", 4, out)
    assert (err.message, err.line) == ("range() takes 1 to 3 integers", 4)


def test_unpacking_a_number_and_dividing_by_zero_name_their_lines() -> None:
    head = "from numba import cuda\n@cuda.jit\ndef k(out):\n"
    err = kernel_error(head + "    a, b = 5\n", 2, np.zeros(2))
    assert (err.message, err.line) == ("cannot unpack into 2 names", 4)
    # 6 // (i - 1) on i = 0, 1: thread 1 divides by zero (line 4); 6 // 1 alone is fine: 6.
    err = kernel_error(head + "    out[cuda.threadIdx.x] = 6 // (cuda.threadIdx.x - 1)\n", 2, np.zeros(2))
    assert (err.message, err.line) == ("integer division or modulo by zero", 4)
    out = np.zeros(2)
    run(head + "    out[cuda.threadIdx.x] = 6 // 1 + 7 % (cuda.threadIdx.x + 1)\n", 2, out)
    assert out.tolist() == [6, 7]  # 6 + 7 % 1 = 6, 6 + 7 % 2 = 7


def test_device_function_defaults_jit_with_parentheses_and_an_arrays_dtype() -> None:
    # f(x, y=3, z=10) called f(i) and f(i, 1): i * 3 + 10 and i * 1 + 10. @cuda.jit() is a
    # kernel as @cuda.jit is. A local array of a.dtype (int32) keeps 2 of 2.9.
    a = np.zeros(2, np.int32)
    out = np.zeros((3, 2), np.float64)
    run(
        """
        from numba import cuda

        @cuda.jit(device=True)
        def f(x, y=3, z=10):
            return x * y + z

        @cuda.jit()
        def k(a, out):
            i = cuda.threadIdx.x
            out[0, i] = f(i)
            out[1, i] = f(i, 1)
            loc = cuda.local.array(1, a.dtype)
            loc[0] = 2.9
            out[2, i] = loc[0]
        """,
        2, a, out,
    )  # fmt: skip
    assert out.tolist() == [[10, 13], [10, 11], [2, 2]]


def test_and_or_short_circuit_per_thread_and_for_all_threads() -> None:
    # a has 4 elements, 6 threads. i < 4 and a[i] > 10: threads 4, 5 never read a[i] (it would
    # be out of bounds): a = [5, 15, 25, 0] gives 0 1 1 0 0 0. i >= 4 or a[i] < 10: 1 0 0 1 1 1.
    # For all threads: n = 4; n > 3 or a[100] > 0 is True without reading a[100]; n > 5 and
    # a[100] > 0 is False the same way: 1 and 0.
    a = np.array([5, 15, 25, 0], np.int64)
    out = np.zeros((4, 6), np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(a, out):
            i = cuda.threadIdx.x
            n = 4
            out[0, i] = i < 4 and a[i] > 10
            out[1, i] = i >= 4 or a[i] < 10
            out[2, i] = n > 3 or a[100] > 0
            out[3, i] = n > 5 and a[100] > 0
        """,
        6, a, out,
    )  # fmt: skip
    assert out.tolist() == [[0, 1, 1, 0, 0, 0], [1, 0, 0, 1, 1, 1], [1] * 6, [0] * 6]


BARRIER = """
from numba import cuda

@cuda.jit
def k(out, who):
    i = cuda.threadIdx.x
    b = cuda.blockIdx.x
    if (who == 0 and i == 0) or (who == 1 and b == 0):
        cuda.syncthreads()
    out[b * 4 + i] = 1
"""


def test_a_barrier_reached_by_one_thread_and_one_reached_by_a_whole_block() -> None:
    # 2 blocks of 4. who = 0: only thread 0 of each block reaches the barrier (line 9): 1 of the
    # 4 threads of block 0 is named. who = 1: every thread of block 0 and none of block 1: fine.
    out = np.zeros(8, np.int64)
    with pytest.raises(emu.DivergentBarrier) as info:
        module = emu.load_source(BARRIER, "k.py")
        emu.launch(module, None, 2, 4, [out, 0])
    assert info.value.line == 9
    assert info.value.message.startswith("cuda.syncthreads() reached by 1 of the 4 threads of block 0 ")
    emu.launch(emu.load_source(BARRIER, "k.py"), None, 2, 4, [out, 1])
    assert out.tolist() == [1] * 8


def test_a_loop_inside_a_branch_runs_only_for_that_branchs_threads() -> None:
    # Threads 0, 1 (i < 2) add 1 three times (with a continue that changes nothing): 3 3 0 0;
    # threads 2, 3 never enter the loop.
    out = np.zeros(4, np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(out):
            i = cuda.threadIdx.x
            if i < 2:
                for j in range(3):
                    out[i] += 1
                    if j > 5:
                        continue
        """,
        4, out,
    )  # fmt: skip
    assert out.tolist() == [3, 3, 0, 0]


def test_a_constant_of_a_simtviz_core_module_imported_as_a_module() -> None:
    # from simtviz.core import launch: launch.WARP_SIZE is 32 (a plain Python module's constant).
    out = np.zeros(1, np.int64)
    run(
        """
        from numba import cuda
        from simtviz.core import launch

        @cuda.jit
        def k(out):
            out[0] = launch.WARP_SIZE + 1
        """,
        1, out,
    )  # fmt: skip
    assert out[0] == 33
