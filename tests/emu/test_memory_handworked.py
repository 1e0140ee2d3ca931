"""Device memory in the emulator (emu/memory.py): bounds at exactly the edge, negative indices,
stores cast to the array's type, collisions of plain stores, and atomics' old values, each worked
out by hand on a few threads."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from emu_source import launch_source
from simtviz import emu
from simtviz.emu import KernelError, KernelIndexError

run = launch_source


READ_AT = """
from numba import cuda

@cuda.jit
def k(a, out, at):
    i = cuda.threadIdx.x
    out[i] = a[i + at]
"""


def test_the_last_element_reads_and_one_past_it_raises_with_index_and_line() -> None:
    # a has 4 elements; 4 threads read a[i + at]. at = 0: a[0..3]. at = 1: thread 3 reads a[4].
    a = np.array([10, 11, 12, 13], np.int32)
    out = np.zeros(4, np.int32)
    run(READ_AT, 1, 4, a, out, 0)
    assert out.tolist() == [10, 11, 12, 13]
    with pytest.raises(KernelIndexError) as info:
        run(READ_AT, 1, 4, a, out, 1)
    assert info.value.line == 7
    assert info.value.message == "index 4 is out of bounds for axis 0 with size 4 (a)"


def test_negative_indices_wrap_down_to_minus_the_size_and_no_further() -> None:
    # at = -4: threads read a[-4 .. -1] = a[0 .. 3] (NumPy's rule, as numba's simulator).
    # at = -5: thread 0 reads a[-5], one below -4: out of bounds, named as -5.
    a = np.array([10, 11, 12, 13], np.int32)
    out = np.zeros(4, np.int32)
    run(READ_AT, 1, 4, a, out, -4)
    assert out.tolist() == [10, 11, 12, 13]
    with pytest.raises(KernelIndexError) as info:
        run(READ_AT, 1, 4, a, out, -5)
    assert info.value.message == "index -5 is out of bounds for axis 0 with size 4 (a)"


def test_one_uniform_index_out_of_bounds_and_its_wrap() -> None:
    # every thread reads a[at]: at = -1 is a[3] = 13; at = 4 is past the end.
    a = np.array([10, 11, 12, 13], np.int32)
    out = np.zeros(2, np.int32)
    src = "from numba import cuda\n@cuda.jit\ndef k(a, out, at):\n    out[cuda.threadIdx.x] = a[at]\n"
    run(src, 1, 2, a, out, -1)
    assert out.tolist() == [13, 13]
    with pytest.raises(KernelIndexError) as info:
        run(src, 1, 2, a, out, 4)
    assert info.value.message == "index 4 is out of bounds for axis 0 with size 4 (a)"


def test_the_column_edge_of_a_2d_array() -> None:
    # m is 3 x 5 (rows, columns): m[1, 4] is the last column, m[1, 5] is outside axis 1.
    m = np.arange(15, dtype=np.int64).reshape(3, 5)
    out = np.zeros(1, np.int64)
    src = "from numba import cuda\n@cuda.jit\ndef k(m, out, j):\n    out[0] = m[1, j]\n"
    run(src, 1, 1, m, out, 4)
    assert out[0] == 9  # row 1 starts at 5: 5 + 4
    with pytest.raises(KernelIndexError) as info:
        run(src, 1, 1, m, out, 5)
    assert info.value.message == "index 5 is out of bounds for axis 1 with size 5 (m)"


def test_indexing_with_too_few_indices_or_a_float() -> None:
    m = np.zeros((3, 5))
    with pytest.raises(KernelIndexError) as info:
        run("from numba import cuda\n@cuda.jit\ndef k(m):\n    m[1] = 2.0\n", 1, 1, m)
    assert info.value.message == "m is 2-D but is indexed with 1 index(es)"
    with pytest.raises(KernelIndexError) as info:
        run("from numba import cuda\n@cuda.jit\ndef k(m):\n    m[1, 0.5] = 2.0\n", 1, 1, m)
    assert (info.value.message, info.value.line) == ("index 1 of m is not an integer", 4)


def test_skipping_out_of_bounds_counts_each_access_at_the_edges() -> None:
    # skip_oob (the tracer's helpers): 6 threads, i = 0..5, a of 4 elements.
    # load a[i - 1]: i = 0 reads a[-1] (negative: skipped, 0) and i = 5 reads a[4]: 2 loads skipped.
    # store b[i] = ...: i = 4, 5 are past b's 4 elements: 2 stores skipped.
    # atomic add on c[i - 2]: i = 0, 1 are negative: 2 atomics skipped, their old value 0.
    a = np.array([10, 11, 12, 13], np.int64)
    b = np.zeros(4, np.int64)
    c = np.full(4, 100, np.int64)
    out = np.full((2, 6), -1, np.int64)
    stats = run(
        """
        from numba import cuda

        @cuda.jit
        def k(a, b, c, out):
            i = cuda.threadIdx.x
            v = a[i - 1]
            out[0, i] = v
            b[i] = v + 1
            out[1, i] = cuda.atomic.add(c, i - 2, 1)
        """,
        1, 6, a, b, c, out, skip_oob=True,
    )  # fmt: skip
    assert out[0].tolist() == [0, 10, 11, 12, 13, 0]
    assert b.tolist() == [1, 11, 12, 13]  # v + 1 for i = 0..3
    assert out[1].tolist() == [0, 0, 100, 100, 100, 100]
    assert c.tolist() == [101, 101, 101, 101]  # i = 2..5 add to c[0..3]
    assert stats.oob == {("a", "load"): 2, ("b", "store"): 2, ("c", "atomic"): 2}


def test_stores_cast_to_the_arrays_type_and_wrap_at_int32_edges() -> None:
    # x int32 = [2147483647, -2147483648]; x[i] + 1 is computed in int64 (2147483648 and
    # -2147483647) and stored into int32: 2^31 wraps to -2^31; -2^31 + 1 fits. A float 2.75 stored
    # into int32 truncates to 2 and -2.75 to -2.
    x = np.array([2147483647, -2147483648], np.int32)
    y = np.zeros(2, np.int32)
    wide = np.zeros(2, np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(x, y, wide):
            i = cuda.threadIdx.x
            wide[i] = x[i] + 1
            x[i] = x[i] + 1
            y[i] = 2.75 - 5.5 * i
        """,
        1, 2, x, y, wide,
    )  # fmt: skip
    assert wide.tolist() == [2147483648, -2147483647]
    assert x.tolist() == [-2147483648, -2147483647]
    assert y.tolist() == [2, -2]


def test_plain_stores_to_one_element_keep_the_last_lane_and_count_the_rest() -> None:
    # 6 threads. out[i // 2] = i: pairs (0, 1) (2, 3) (4, 5) collide, the later lane wins:
    # [1, 3, 5], 3 stores lost (line 7). rev[5 - i] = i: distinct elements in descending order,
    # nothing lost: [5, 4, 3, 2, 1, 0]. one[0] = i: every lane on one element: lane 5 wins, 5 lost
    # (line 9). Lanes 1..5 only (i > 0) on a uniform element: 4 lost (line 11).
    out = np.zeros(3, np.int64)
    rev = np.zeros(6, np.int64)
    one = np.zeros(2, np.int64)
    stats = run(
        """
        from numba import cuda

        @cuda.jit
        def k(out, rev, one):
            i = cuda.threadIdx.x
            out[i // 2] = i
            rev[5 - i] = i
            one[0] = i
            if i > 0:
                one[1] = i * 10
        """,
        1, 6, out, rev, one,
    )  # fmt: skip
    assert out.tolist() == [1, 3, 5]
    assert rev.tolist() == [5, 4, 3, 2, 1, 0]
    assert one.tolist() == [5, 50]
    assert stats.lost == {("out", 7): 3, ("one", 9): 5, ("one", 11): 4}


def test_an_unwatched_array_counts_no_lost_stores() -> None:
    out = np.zeros(3, np.int64)
    stats = run(
        "from numba import cuda\n@cuda.jit\ndef k(out):\n    out[cuda.threadIdx.x // 2] = cuda.threadIdx.x\n",
        1, 6, out, unwatched=["out"],
    )  # fmt: skip
    assert out.tolist() == [1, 3, 5] and stats.lost == {}


def test_a_load_under_a_partial_mask_gives_the_arrays_values() -> None:
    # lanes i = 1, 3 (odd) read a[i] and a[2] (one element for all): 11 + 12, 13 + 12.
    a = np.array([10, 11, 12, 13], np.int32)
    out = np.zeros(4, np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(a, out):
            i = cuda.threadIdx.x
            if i % 2 == 1:
                out[i] = a[i] + a[2]
        """,
        1, 4, a, out,
    )  # fmt: skip
    assert out.tolist() == [0, 23, 0, 25]


def test_atomics_on_bins_in_lane_order_with_their_old_values() -> None:
    # 8 threads, bin = i % 3 (0 1 2 0 1 2 0 1). add(h, bin, i + 1): bin 0 gets lanes 0 3 6
    # (+1 +4 +7): olds 0 1 5, final 12; bin 1 lanes 1 4 7 (+2 +5 +8): olds 0 2 7, final 15;
    # bin 2 lanes 2 5 (+3 +6): olds 0 3, final 9.
    # max(m, bin, 10 - i) from m = [5, 5, 5]: bin 0 values 10 7 4: olds 5 10 10, final 10;
    # bin 1 values 9 6 3: olds 5 9 9, final 9; bin 2 values 8 5: olds 5 8, final 8.
    # inc(c, bin, 1): counts 0 1 0 1 ... wrapping to 0 after 1: bin 0 olds 0 1 0, final 1;
    # bin 1 olds 0 1 0, final 1; bin 2 olds 0 1, final 0.
    # dec(d, bin, 2) from d = [0, 1, 2]: bin 0 (0 → 2 → 1 → 0): olds 0 2 1, final 0; bin 1 (1 → 0
    # → 2 → 1): olds 1 0 2, final 1; bin 2 (2 → 1 → 0): olds 2 1, final 0.
    h = np.zeros(3, np.int32)
    m = np.full(3, 5, np.int32)
    c = np.zeros(3, np.uint32)
    d = np.array([0, 1, 2], np.uint32)
    out = np.zeros((4, 8), np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(h, m, c, d, out):
            i = cuda.threadIdx.x
            b = i % 3
            out[0, i] = cuda.atomic.add(h, b, i + 1)
            out[1, i] = cuda.atomic.max(m, b, 10 - i)
            out[2, i] = cuda.atomic.inc(c, b, 1)
            out[3, i] = cuda.atomic.dec(d, b, 2)
        """,
        1, 8, h, m, c, d, out,
    )  # fmt: skip
    # lanes:               0  1  2  3  4  5  6  7  (bins 0 1 2 0 1 2 0 1)
    assert out[0].tolist() == [0, 0, 0, 1, 2, 3, 5, 7] and h.tolist() == [12, 15, 9]
    assert out[1].tolist() == [5, 5, 5, 10, 9, 8, 10, 9] and m.tolist() == [10, 9, 8]
    assert out[2].tolist() == [0, 0, 0, 1, 1, 1, 0, 0] and c.tolist() == [1, 1, 0]
    assert out[3].tolist() == [0, 1, 2, 2, 0, 1, 1, 2] and d.tolist() == [0, 1, 0]


def test_atomics_on_many_elements_and_on_one_element_from_40_lanes() -> None:
    # 40 threads. add(h, i % 20, 1) over 20 bins (more than 16: a sort groups them): lanes i and
    # i + 20 share bin i % 20, olds 0 then 1, every bin ends at 2.
    # inc(c, 0 * i, 35): 40 lanes on one element, more than 32 in a row: olds 0 1 .. 35, then
    # lane 35 found 35 = the limit, so 0 again: lanes 36..39 see 0 1 2 3; final 4.
    # exch(e, 0 * i, i) from e = 99: lane 0 sees 99, lane k sees k - 1; final 39.
    # min(mn, 0 * i, 50 - i) from 100: olds 100 50 49 .. 12 (lane k > 0: 51 - k); final 11.
    h = np.zeros(20, np.int64)
    c = np.zeros(1, np.uint32)
    e = np.array([99], np.int64)
    mn = np.array([100], np.int64)
    out = np.zeros((4, 40), np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(h, c, e, mn, out):
            i = cuda.threadIdx.x
            out[0, i] = cuda.atomic.add(h, i % 20, 1)
            out[1, i] = cuda.atomic.inc(c, 0 * i, 35)
            out[2, i] = cuda.atomic.exch(e, 0 * i, i)
            out[3, i] = cuda.atomic.min(mn, 0 * i, 50 - i)
        """,
        1, 40, h, c, e, mn, out,
    )  # fmt: skip
    assert out[0].tolist() == [0] * 20 + [1] * 20 and h.tolist() == [2] * 20
    assert out[1].tolist() == [*range(36), 0, 1, 2, 3] and c[0] == 4
    assert out[2].tolist() == [99, *range(39)] and e[0] == 39
    assert out[3].tolist() == [100, *range(50, 11, -1)] and mn[0] == 11


def test_compare_and_swap_from_40_lanes_on_one_element() -> None:
    # cas(s, 0 * i, i, i + 1) from s = 0: lane k swaps only when s == k; s counts up lane by lane:
    # every lane finds its own number: olds 0 1 .. 39, final 40 (more than 32 in a row).
    s = np.zeros(1, np.int32)
    out = np.zeros(40, np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(s, out):
            i = cuda.threadIdx.x
            out[i] = cuda.atomic.cas(s, 0 * i, i, i + 1)
        """,
        1, 40, s, out,
    )  # fmt: skip
    assert out.tolist() == list(range(40)) and s[0] == 40


def test_a_counter_added_by_some_lanes_wraps_at_the_int32_edge() -> None:
    # c = 2147483646 (2^31 - 2); odd lanes of 4 (1, 3) add 1 to c[0]: olds 2147483646 and
    # 2147483647, then c wraps to -2147483648; the even lanes did not add: 0.
    c = np.array([2147483646], np.int32)
    out = np.full(4, -1, np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(c, out):
            i = cuda.threadIdx.x
            old = 0
            if i % 2 == 1:
                old = cuda.atomic.add(c, 0, 1)
            out[i] = old
        """,
        1, 4, c, out,
    )  # fmt: skip
    assert out.tolist() == [0, 2147483646, 0, 2147483647] and c[0] == -2147483648


def test_a_float_counter_and_an_unsigned_one() -> None:
    # f float32 += 0.5 by 3 lanes: olds 0, 0.5, 1.0, final 1.5. u uint32 = 4294967295 (2^32 - 1)
    # + 1 by 2 lanes: olds 4294967295, 0; final 1.
    f = np.zeros(1, np.float32)
    u = np.array([4294967295], np.uint32)
    out = np.zeros((2, 3), np.float64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(f, u, out):
            i = cuda.threadIdx.x
            out[0, i] = cuda.atomic.add(f, 0, 0.5)
            if i < 2:
                out[1, i] = cuda.atomic.add(u, 0, 1)
        """,
        1, 3, f, u, out,
    )  # fmt: skip
    assert out[0].tolist() == [0.0, 0.5, 1.0] and f[0] == 1.5
    assert out[1].tolist() == [4294967295, 0, 0] and u[0] == 1


def test_atomics_on_a_non_contiguous_array_are_refused() -> None:
    a = np.zeros((2, 4), np.int32)[:, ::2]  # every second column: not contiguous
    with pytest.raises(KernelError) as info:
        run("from numba import cuda\n@cuda.jit\ndef k(a):\n    cuda.atomic.add(a, (0, 0), 1)\n", 1, 2, a)
    assert (info.value.message, info.value.line) == ("atomics on the non-contiguous array a", 4)


def test_an_arrays_shape_size_strides_and_type_in_a_kernel() -> None:
    # m: float32, 3 x 5, C order: size 15, ndim 2, itemsize 4, strides (20, 4) bytes.
    # A shared (2, 4) int64 array: size 8, shape[1] 4, a row of 4 x 8 bytes: strides[0] 32.
    m = np.zeros((3, 5), np.float32)
    out = np.zeros(9, np.float64)
    run(
        """
        from numba import cuda, int64

        @cuda.jit
        def k(m, out):
            s = cuda.shared.array((2, 4), int64)
            out[0] = m.size
            out[1] = m.ndim
            out[2] = m.itemsize
            out[3] = m.strides[0]
            out[4] = m.strides[1]
            out[5] = m.shape[0] * 10 + m.shape[1]
            out[6] = s.size
            out[7] = s.shape[1]
            out[8] = s.strides[0]
        """,
        1, 1, m, out,
    )  # fmt: skip
    assert out.tolist() == [15, 2, 4, 20, 4, 35, 8, 4, 32]


def test_indices_from_minus_one_up_and_the_edge_named_when_both_ends_are_hit() -> None:
    # at = -1: threads read a[-1], a[0], a[1], a[2] = 13 10 11 12 (only -1 wraps; 0 stays a[0]).
    a = np.array([10, 11, 12, 13], np.int32)
    out = np.zeros(4, np.int32)
    run(READ_AT, 1, 4, a, out, -1)
    assert out.tolist() == [13, 10, 11, 12]
    # two threads read a[8 i - 4]: -4 (in bounds: a[0]) and 4 (past the end): 4 is named.
    with pytest.raises(KernelIndexError) as info:
        run("from numba import cuda\n@cuda.jit\ndef k(a):\n    a[8 * cuda.threadIdx.x - 4] = 1\n", 1, 2, a)
    assert info.value.message == "index 4 is out of bounds for axis 0 with size 4 (a)"


def test_skipping_accesses_when_every_lane_is_outside() -> None:
    # skip_oob, 3 threads, a of 4: a[9] (one index for all) is skipped: 0 + 1; the store b[i + 7]
    # is skipped for every lane (nothing stored, nothing lost); the atomic on c[i + 5] too: old 0.
    a = np.array([10, 11, 12, 13], np.int64)
    b = np.zeros(4, np.int64)
    c = np.zeros(4, np.int64)
    out = np.full((2, 3), -1, np.int64)
    stats = run(
        """
        from numba import cuda

        @cuda.jit
        def k(a, b, c, out):
            i = cuda.threadIdx.x
            out[0, i] = a[9] + 1
            b[i + 7] = 5
            out[1, i] = cuda.atomic.add(c, i + 5, 1)
        """,
        1, 3, a, b, c, out, skip_oob=True,
    )  # fmt: skip
    assert out.tolist() == [[1, 1, 1], [0, 0, 0]]
    assert b.tolist() == [0, 0, 0, 0] and c.tolist() == [0, 0, 0, 0]
    assert stats.lost == {}
    assert stats.oob == {("a", "load"): 3, ("b", "store"): 3, ("c", "atomic"): 3}


def test_one_lane_atomics_and_two_lane_collisions() -> None:
    # 4 threads. Only thread 2 adds 5 to c[0] = 7: its old value 7, c = 12. Threads 0 and 1 store
    # into p[0 * i] (one element, indexed per thread): thread 1 wins, 1 store lost (line 10).
    # Ascending q[i] = i loses nothing. Unwatched u[0] = i (one element for all): lane 3 wins,
    # nothing counted.
    c = np.array([7], np.int32)
    p = np.zeros(1, np.int64)
    q = np.zeros(4, np.int64)
    u = np.zeros(1, np.int64)
    out = np.full(4, -1, np.int64)
    module = emu.load_source(
        textwrap.dedent(
            """
            from numba import cuda

            @cuda.jit
            def k(c, p, q, u, out):
                i = cuda.threadIdx.x
                if i == 2:
                    out[i] = cuda.atomic.add(c, 0, 5)
                if i < 2:
                    p[0 * i] = 10 + i
                q[i] = i
                u[0] = i
            """
        ),
        "k.py",
    )
    stats = emu.launch(module, None, 1, 4, [c, p, q, u, out], unwatched=["u"])
    assert out.tolist() == [-1, -1, 7, -1] and c[0] == 12
    assert p[0] == 11 and q.tolist() == [0, 1, 2, 3] and u[0] == 3
    assert stats.lost == {("p", 10): 1}


def test_shared_memory_collisions_are_counted_and_its_bounds_checked() -> None:
    # 4 threads store i into s[i // 2] of a shared array of 2 (pairs collide: 2 lost on line 7),
    # then read s[0], s[1] = 1, 3. With skip_oob on the launch, a shared index past the end
    # still raises: skipping is for the launch's own arrays.
    out = np.zeros(4, np.int64)
    stats = run(
        """
        from numba import cuda, int64

        @cuda.jit
        def k(out):
            s = cuda.shared.array(2, int64)
            s[cuda.threadIdx.x // 2] = cuda.threadIdx.x
            cuda.syncthreads()
            out[cuda.threadIdx.x] = s[0] * 10 + s[1]
        """,
        1, 4, out,
    )  # fmt: skip
    assert out.tolist() == [13] * 4 and stats.lost == {("s", 7): 2}
    with pytest.raises(KernelIndexError) as info:
        run(
            "from numba import cuda, int64\n@cuda.jit\ndef k(out):\n"
            "    s = cuda.shared.array(2, int64)\n    s[cuda.threadIdx.x] = 1\n",
            1, 3, out, skip_oob=True,
        )  # fmt: skip
    assert (info.value.message, info.value.line) == ("index 2 is out of bounds for axis 0 with size 2 (s)", 5)


def test_compare_and_swap_on_some_lanes_with_their_own_compare_values() -> None:
    # Odd threads of 4: thread 1 on s[0] = 1 compares 1: swaps to 100 (old 1); thread 3 on
    # s[1] = 5 compares 3: no swap (old 5). Then thread 2 alone: cas(t, 0, 0, 9) on t[0] = 0 swaps.
    s = np.array([1, 5], np.int64)
    t = np.zeros(1, np.int64)
    out = np.full(4, -1, np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(s, t, out):
            i = cuda.threadIdx.x
            if i % 2 == 1:
                out[i] = cuda.atomic.cas(s, i // 2, i, 100)
            if i == 2:
                out[i] = cuda.atomic.cas(t, i // 2 - 1, 0, 9)
        """,
        1, 4, s, t, out,
    )  # fmt: skip
    assert out.tolist() == [-1, 1, 0, 5] and s.tolist() == [100, 5] and t[0] == 9


def test_atomics_past_32_lanes_beside_another_element() -> None:
    # 40 threads. max(m, i // 34, i) from m = [0, 0]: element 0 gets lanes 0..33 (34 of them,
    # more than 32 in a row), olds 0 0 1 2 .. 32 (lane k > 0: k - 1), final 33; element 1 lanes
    # 34..39: olds 0 34 35 36 37 38, final 39.
    # exch(e, i % 2, i) from e = [7, 8]: element 0 lanes 0 2 4 ..: olds 7 0 2 .. 36, final 38;
    # element 1 lanes 1 3 ..: olds 8 1 3 .. 37, final 39.
    # max(u, 0, i) with one index for all lanes, u = [5, 100]: element 0 only: lanes 0..5 see 5,
    # lane k >= 6 sees k - 1 (5, 6, .. 38), final 39; u[1] untouched.
    m = np.zeros(2, np.int64)
    e = np.array([7, 8], np.int64)
    u = np.array([5, 100], np.int64)
    out = np.zeros((3, 40), np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(m, e, u, out):
            i = cuda.threadIdx.x
            out[0, i] = cuda.atomic.max(m, i // 34, i)
            out[1, i] = cuda.atomic.exch(e, i % 2, i)
            out[2, i] = cuda.atomic.max(u, 0, i)
        """,
        1, 40, m, e, u, out,
    )  # fmt: skip
    assert out[0].tolist() == [0, 0, *range(1, 33), 0, 34, 35, 36, 37, 38] and m.tolist() == [33, 39]
    exch = [7 if k == 0 else 8 if k == 1 else k - 2 for k in range(40)]
    assert out[1].tolist() == exch and e.tolist() == [38, 39]
    assert out[2].tolist() == [*[5] * 6, *range(5, 39)] and u.tolist() == [39, 100]
