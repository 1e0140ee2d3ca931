"""The emulator's lockstep semantics, worked out by hand: lost updates, atomics' old values,
barriers, masks under break/continue/return, numba's typing. No numba is needed here."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from simtviz import emu
from simtviz.core.errors import EmulatorUnsupported


def run(source: str, grid: object, block: object, *args: object, **kw: object) -> emu.LaunchStats:
    module = emu.load_source(textwrap.dedent(source), "k.py")
    return emu.launch(module, None, grid, block, list(args), **kw)  # type: ignore[arg-type]


def test_a_racing_increment_keeps_one_store_per_step_and_counts_the_rest_lost() -> None:
    # 2 blocks × 64 threads in one chunk, all in lockstep: every thread reads c[0] = 0, every
    # thread stores 1. One store wins: c[0] == 1 and 127 stores are lost (line 6).
    c = np.zeros(1, np.int32)
    stats = run(
        """
        from numba import cuda

        @cuda.jit
        def k(c):
            c[0] += 1
        """,
        2, 64, c,
    )  # fmt: skip
    assert c[0] == 1
    assert stats.lost == {("c", 6): 127}


def test_atomics_return_each_lanes_old_value_in_lane_order() -> None:
    # 8 threads. add(c, 0, 1): lane k sees k. max(m, 0, v) with v = (k * 5) % 8 = 0 5 2 7 4 1 6 3
    # starting from m = 3: olds 3 3 5 5 7 7 7 7, final 7. exch(e, 0, k): olds 9 (initial) 0 1 .. 6,
    # final 7. cas(s, 0, k % 2 == 0 ? ..): cas(s, 0, 0, 10 + k) swaps only for the first lane that
    # finds 0: lane 0 (olds 0, then 10 for everyone). sub on lanes' parity bins: b[k % 2] -= k:
    # bin 0 olds 0, 0-0=0, -2, -6 (lanes 0,2,4,6); final b = [-12, -16].
    c, m, e, s = (
        np.zeros(1, np.int32),
        np.array([3], np.int32),
        np.array([9], np.int64),
        np.zeros(1, np.int32),
    )
    b = np.zeros(2, np.int64)
    out = np.zeros((5, 8), np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(c, m, e, s, b, out):
            i = cuda.threadIdx.x
            out[0, i] = cuda.atomic.add(c, 0, 1)
            out[1, i] = cuda.atomic.max(m, 0, (i * 5) % 8)
            out[2, i] = cuda.atomic.exch(e, 0, i)
            out[3, i] = cuda.atomic.cas(s, 0, 0, 10 + i)
            out[4, i] = cuda.atomic.sub(b, i % 2, i)
        """,
        1, 8, c, m, e, s, b, out,
    )  # fmt: skip
    assert out[0].tolist() == list(range(8)) and c[0] == 8
    assert out[1].tolist() == [3, 3, 5, 5, 7, 7, 7, 7] and m[0] == 7
    assert out[2].tolist() == [9, 0, 1, 2, 3, 4, 5, 6] and e[0] == 7
    assert out[3].tolist() == [0] + [10] * 7 and s[0] == 10
    assert out[4].tolist() == [0, 0, 0, -1, -2, -4, -6, -9] and b.tolist() == [-12, -16]


def test_many_lanes_on_one_element_still_add_in_lane_order() -> None:
    # 4096 lanes add 0.5 to one float32 in lane order: old of lane k is 0.5 k exactly (all
    # values below 2^24 halves are exact), the final 2048.
    a = np.zeros(1, np.float32)
    out = np.zeros(4096, np.float32)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(a, out):
            i = cuda.grid(1)
            out[i] = cuda.atomic.add(a, 0, 0.5)
        """,
        16, 256, a, out,
    )  # fmt: skip
    np.testing.assert_array_equal(out, np.arange(4096) * 0.5)
    assert a[0] == 2048.0


def test_a_barrier_under_divergent_control_flow_is_reported_with_its_line() -> None:
    a = np.zeros(64, np.float32)
    with pytest.raises(emu.DivergentBarrier, match=r"line 8: .*reached by 16 of the 64 threads"):
        run(
            """
            from numba import cuda

            @cuda.jit
            def k(a):
                i = cuda.threadIdx.x
                if i < 16:
                    cuda.syncthreads()
                a[i] = 1
            """,
            1, 64, a,
        )  # fmt: skip


def test_threads_that_returned_do_not_count_at_a_barrier_and_block_uniform_branches_are_fine() -> None:
    # Threads 48..63 return before the barrier: the 48 left all reach it. Block 1 skips its
    # barrier entirely (a branch the whole block takes): no divergence either.
    a = np.zeros(128, np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(a):
            i = cuda.threadIdx.x
            if i >= 48:
                return
            if cuda.blockIdx.x == 0:
                n = cuda.syncthreads_count(i % 2)
                a[i] = n
            else:
                a[64 + i] = -1
        """,
        2, 64, a,
    )  # fmt: skip
    assert a[:48].tolist() == [24] * 48 and a[64:112].tolist() == [-1] * 48  # 24 odd of 0..47
    assert not a[48:64].any() and not a[112:].any()


def test_break_continue_and_return_under_masks() -> None:
    # Thread t: loop j = 0..9, skip odd j, stop once j > t; sum the even j ≤ t. Then threads
    # with t % 3 == 0 return before writing b. t = 0..7: sums 0 0 2 2 6 6 12 12 (0+2+4+6 ≤ 7).
    a, b = np.zeros(8, np.int64), np.full(8, -1, np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit(device=True)
        def even_sum(t):
            s = 0
            for j in range(10):
                if j % 2 == 1:
                    continue
                if j > t:
                    break
                s += j
            return s

        @cuda.jit
        def k(a, b):
            t = cuda.threadIdx.x
            a[t] = even_sum(t)
            if t % 3 == 0:
                return
            b[t] = t
        """,
        1, 8, a, b,
    )  # fmt: skip
    assert a.tolist() == [0, 0, 2, 2, 6, 6, 12, 12]
    assert b.tolist() == [-1, 1, 2, -1, 4, 5, -1, 7]


def test_numba_typing_float64_literals_true_division_and_floor_semantics() -> None:
    # float32 x = 9 times the float64 literal 0.1 is computed in float64 (9 × 0.1 =
    # 0.9000000000000000222) and rounded once: float32 0.9 (bits 0x3F666666). In float32 it would
    # be 9 × 0.1f = 9 × 0.100000001490116 = 0.900000013411045 → 0.90000004 (0x3F666667).
    # 7 / 2 = 3.5 (ints give float64); -7 // 2 = -4 and -7 % 2 = 1 (Python's floor rules).
    x = np.array([9.0], np.float32)
    out = np.zeros(1, np.float32)
    ints = np.zeros(3, np.float64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(x, out, ints):
            out[0] = x[0] * 0.1
            a = -7
            ints[0] = 7 / 2
            ints[1] = a // 2
            ints[2] = a % 2
        """,
        1, 1, x, out, ints,
    )  # fmt: skip
    assert out.view(np.uint32)[0] == 0x3F666666
    assert ints.tolist() == [3.5, -4.0, 1.0]


def test_index_arithmetic_is_int64_so_large_grids_do_not_wrap() -> None:
    # blockIdx.x * blockDim.x with blockIdx.x = 2^21 and 1024 threads = 2^31: past int32.
    out = np.zeros(1, np.int64)
    module = emu.load_source(
        textwrap.dedent(
            """
            from numba import cuda

            @cuda.jit
            def k(out):
                if cuda.threadIdx.x == 0:
                    out[0] = cuda.blockIdx.x * cuda.blockDim.x
            """
        )
    )
    ids = np.array([1 << 21], np.int64)
    emu.launch(module, "k", (1 << 22, 1, 1), (1024, 1, 1), [out], block_ids=ids)
    assert out[0] == 1 << 31


def test_out_of_bounds_raises_index_error_with_the_line_and_negative_indices_wrap() -> None:
    a = np.arange(4, dtype=np.float64)
    out = np.zeros(4, np.float64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(a, out):
            i = cuda.threadIdx.x
            out[i] = a[-1 - i]
        """,
        1, 4, a, out,
    )  # fmt: skip
    assert out.tolist() == [3, 2, 1, 0]  # as NumPy (and numba's simulator): -1 is the last
    with pytest.raises(IndexError, match=r"line 7: index 4 is out of bounds for axis 0 with size 4"):
        run(
            """
            from numba import cuda

            @cuda.jit
            def k(a, out):
                i = cuda.threadIdx.x
                out[i + 1] = a[i]
            """,
            1, 4, a, out,
        )  # fmt: skip


@pytest.mark.parametrize(
    ("body", "construct", "line"),
    [
        ("v = cuda.popc(a[0])", "cuda.popc", 7),
        ("for x in a:\n        a[0] = x", "for ... in a", 7),
        ("a[0:2] = 1", "a slice", 7),
        ("try:\n        a[0] = 1\n    except Exception:\n        pass", "try/except", 7),
    ],
)
def test_unsupported_constructs_are_refused_before_anything_runs(
    body: str, construct: str, line: int
) -> None:
    a = np.zeros(4, np.float32)
    source = f"from numba import cuda\n\n\n@cuda.jit\ndef k(a):\n    a[1] = 5\n    {body}\n"
    with pytest.raises(EmulatorUnsupported) as info:
        emu.launch(emu.load_source(source), "k", 1, 32, [a])
    assert construct in info.value.construct and info.value.line == line
    assert not a.any()  # refused before running: a[1] = 5 never happened


def test_shared_arrays_are_per_block_local_arrays_per_thread_and_chunks_keep_blocks_whole() -> None:
    # Each block of 8 reverses its own slice through shared memory; a local array of 2 holds
    # (t, 2t). Chunks of 16 threads = 2 blocks: progress reports 2/6 … 6/6.
    a = np.arange(48, dtype=np.int64)
    out = np.zeros(48, np.int64)
    seen: list[float] = []
    run(
        """
        from numba import cuda, int64

        @cuda.jit
        def k(a, out):
            s = cuda.shared.array(8, int64)
            loc = cuda.local.array(2, int64)
            t = cuda.threadIdx.x
            i = cuda.grid(1)
            loc[0] = t
            loc[1] = 2 * t
            s[t] = a[i]
            cuda.syncthreads()
            out[i] = s[7 - t] * 100 + loc[0] + loc[1]
        """,
        6, 8, a, out, chunk_threads=16, progress=seen.append,
    )  # fmt: skip
    t = np.tile(np.arange(8), 6)
    expected = (np.arange(48) // 8 * 8 + 7 - t) * 100 + 3 * t
    np.testing.assert_array_equal(out, expected)
    assert seen == [2 / 6, 4 / 6, 1.0]


def test_intrinsics_give_minus_one_and_helpers_from_another_module_are_read_as_text() -> None:
    out = np.zeros(3, np.int64)
    run(
        """
        from numba import cuda
        from simtviz.kernels.intrinsics import sm_id, global_timer_ns
        from simtviz.kernels import trace_helpers

        @cuda.jit
        def k(out):
            out[0] = sm_id()
            out[1] = global_timer_ns()
            out[2] = trace_helpers.tv_thread_id(0, 1)
        """,
        1, 1, out,
    )  # fmt: skip
    assert out.tolist() == [-1, -1, 0]


def test_the_emulator_never_imports_numba() -> None:
    code = (
        "import sys, numpy as np\n"
        "from simtviz.backends.record import RecordRequest, RECORD\n"
        "from simtviz.core.launch import Dim3, LaunchConfig\n"
        "r = RECORD.run_emu(RecordRequest(LaunchConfig(Dim3(4, 2, 1), Dim3(8, 4, 1))), None, None)\n"
        "assert r.verification.matched == r.verification.total == 256\n"
        "print('numba' in sys.modules, 'cupy' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"]


def test_what_the_interpreter_did_not_foresee_is_reported_as_unsupported_with_its_line() -> None:
    # Comparing a tuple with a number passes the static check but has no meaning per thread.
    out = np.zeros(4, np.int64)
    with pytest.raises(EmulatorUnsupported) as info:
        run(
            """
            from numba import cuda

            @cuda.jit
            def k(out):
                i = cuda.threadIdx.x
                out[i] = 1 if cuda.grid(2) < i else 0
            """,
            1, 4, out,
        )  # fmt: skip
    assert info.value.line == 7 and "this line" in info.value.construct


def test_print_writes_one_line_per_active_thread_in_lane_order(capsys: pytest.CaptureFixture[str]) -> None:
    out = np.zeros(1, np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(out):
            i = cuda.threadIdx.x
            if i % 2 == 1:
                print("thread", i, i * 10)
        """,
        1, 6, out,
    )  # fmt: skip
    assert capsys.readouterr().out.splitlines() == ["thread 1 10", "thread 3 30", "thread 5 50"]


def test_inc_dec_and_bitwise_atomics_in_lane_order() -> None:
    # 5 lanes (k = 0..4). inc(u, 0, 2) from 0: 0→1→2→0 (old ≥ 2 wraps)→1→2: olds 0 1 2 0 1.
    # dec(d, 0, 3) from 1: 1→0→3 (old 0 wraps to 3)→2→1→0: olds 1 0 3 2 1.
    # and_ from 15 with ~(1 << k) (k < 4) then ~0: 15→14→12→8→0→0: olds 15 14 12 8 0.
    # or_ from 0 with 1 << k: olds 0 1 3 7 15, final 31. xor from 0 with 1: olds 0 1 0 1 0, final 1.
    u, d = np.zeros(1, np.uint32), np.ones(1, np.uint32)
    a, o, x = np.array([15], np.int64), np.zeros(1, np.int64), np.zeros(1, np.int64)
    out = np.zeros((5, 5), np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(u, d, a, o, x, out):
            i = cuda.threadIdx.x
            out[0, i] = cuda.atomic.inc(u, 0, 2)
            out[1, i] = cuda.atomic.dec(d, 0, 3)
            out[2, i] = cuda.atomic.and_(a, 0, ~(1 << i) if i < 4 else 0)
            out[3, i] = cuda.atomic.or_(o, 0, 1 << i)
            out[4, i] = cuda.atomic.xor(x, 0, 1)
        """,
        1, 5, u, d, a, o, x, out,
    )  # fmt: skip
    assert out.tolist() == [
        [0, 1, 2, 0, 1],
        [1, 0, 3, 2, 1],
        [15, 14, 12, 8, 0],
        [0, 1, 3, 7, 15],
        [0, 1, 0, 1, 0],
    ]
    assert (u[0], d[0], a[0], o[0], x[0]) == (2, 0, 0, 31, 1)


def test_a_long_run_of_lanes_on_one_element_through_a_per_thread_index() -> None:
    # 100 lanes, index i - i (0 for all, but per thread): max in lane order of v_k = (37 k) % 100.
    # The old value of lane k is the running maximum of v_0 .. v_{k-1} (0 before lane 0).
    m = np.zeros(1, np.int64)
    out = np.zeros(100, np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(m, out):
            i = cuda.threadIdx.x
            out[i] = cuda.atomic.max(m, i - i, (37 * i) % 100)
        """,
        1, 100, m, out,
    )  # fmt: skip
    running, expected = 0, []
    for k in range(100):  # the sequential definition, lane after lane
        expected.append(running)
        running = max(running, (37 * k) % 100)
    assert out.tolist() == expected and m[0] == 99


def test_an_error_in_a_device_function_of_the_kernels_file_names_its_own_line() -> None:
    a = np.zeros(4, np.float64)
    with pytest.raises(IndexError, match=r"^line 6: index 4 is out of bounds"):
        run(
            """
            from numba import cuda

            @cuda.jit(device=True)
            def put(a, i):
                a[i + 1] = 1.0

            @cuda.jit
            def k(a):
                put(a, cuda.threadIdx.x)
            """,
            1, 4, a,
        )  # fmt: skip


def test_warp_shuffles_and_votes_within_each_warp_of_32() -> None:
    # 2 warps of 32 (one block of 64), v = i + 1. A shfl_down tree (16, 8, 4, 2, 1) leaves lane 0
    # of warp 0 with 1 + … + 32 = 528 and of warp 1 with 33 + … + 64 = (33 + 64) · 32 / 2 = 1552.
    # ballot(i % 3 == 0) in warp 0: bits 0, 3, …, 30 = (8^11 - 1) / 7 = 0x49249249; warp 1
    # (i = 32..63, lanes l = i - 32, i % 3 == 0 ⇔ l % 3 == 1): bits 1, 4, …, 31 = 0x92492492,
    # which numba-cuda's int32 ballot_sync reads as 0x92492492 - 2^32 = 2454267026 - 4294967296
    # = -1840700270 (the H200's value); activemask is uint32, so lane bit 31 would stay positive.
    # all(i < 40): warp 0 yes, warp 1 no; any(i == 50): warp 0 no, warp 1 yes.
    # shfl_xor(v, 1) swaps neighbours; shfl_up(v, 1) gives lane l - 1's value (lane 0 keeps its
    # own); shfl(v, 5) gives every lane its warp's lane 5.
    out = np.zeros((9, 64), np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(out):
            i = cuda.threadIdx.x
            v = i + 1
            s = v
            d = 16
            while d > 0:
                s += cuda.shfl_down_sync(0xFFFFFFFF, s, d)
                d //= 2
            out[0, i] = s
            out[1, i] = cuda.ballot_sync(0xFFFFFFFF, i % 3 == 0)
            out[2, i] = cuda.all_sync(0xFFFFFFFF, i < 40)
            out[3, i] = cuda.any_sync(0xFFFFFFFF, i == 50)
            out[4, i] = cuda.shfl_xor_sync(0xFFFFFFFF, v, 1)
            out[5, i] = cuda.shfl_up_sync(0xFFFFFFFF, v, 1)
            out[6, i] = cuda.shfl_sync(0xFFFFFFFF, v, 5)
            if i % 2 == 0:
                out[7, i] = cuda.activemask()
            else:
                out[8, i] = cuda.activemask()
        """,
        1, 64, out,
    )  # fmt: skip
    assert out[0, 0] == 528 and out[0, 32] == 1552
    assert set(out[1, :32]) == {0x49249249} and set(out[1, 32:]) == {-1840700270}
    assert out[2].tolist() == [1] * 32 + [0] * 32 and out[3].tolist() == [0] * 32 + [1] * 32
    assert out[4, :4].tolist() == [2, 1, 4, 3]
    assert out[5, :3].tolist() == [1, 1, 2] and out[5, 32:34].tolist() == [33, 33]
    assert set(out[6, :32]) == {6} and set(out[6, 32:]) == {38}
    assert set(out[7, ::2]) == {0x55555555}  # the even lanes of each warp
    assert set(out[8, 1::2]) == {0xAAAAAAAA}  # odd lanes: bit 31 set, uint32 so 2863311530 > 0


def test_a_shuffle_past_a_partial_warps_end_keeps_the_lanes_own_value() -> None:
    # A block of 40: warp 1 has lanes 0..7 (threads 32..39). shfl_down by 4: lanes 0..3 read
    # lanes 4..7 (threads 36..39); lanes 4..7 would read lanes 8..11, which do not exist.
    out = np.zeros(40, np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(out):
            i = cuda.threadIdx.x
            out[i] = cuda.shfl_down_sync(0xFFFFFFFF, i, 4)
        """,
        1, 40, out,
    )  # fmt: skip
    assert out[32:].tolist() == [36, 37, 38, 39, 36, 37, 38, 39]
    assert out[28:32].tolist() == [28, 29, 30, 31]  # warp 0's lanes 28..31: no lane 32..35 there
