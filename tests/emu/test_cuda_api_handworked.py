"""``cuda.*`` in the emulator (emu/cuda_api.py): cuda.grid on non-square shapes, barriers with a
predicate, warp shuffles and votes on a partial warp, shared and local arrays, atomics' forms.
Every number is worked out by hand in a comment."""

from __future__ import annotations

import numpy as np
import pytest

from emu_source import launch_source
from simtviz.emu import KernelError


def run(source: str, grid: object, block: object, *args: object) -> None:
    launch_source(source, grid, block, *args)


def test_grid_2d_on_a_non_square_launch() -> None:
    # grid (3, 2) of blocks (4, 2): x = threadIdx.x + 4 blockIdx.x in 0..11, y = threadIdx.y +
    # 2 blockIdx.y in 0..3; gridsize(2) = (12, 4). out[y, x] = 100 x + y + gridsize's 12 * 1000 + 4.
    out = np.zeros((4, 12), np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(out):
            x, y = cuda.grid(2)
            w, h = cuda.gridsize(2)
            out[y, x] = 100 * x + y + w * 1000 + h
        """,
        (3, 2), (4, 2), out,
    )  # fmt: skip
    expected = [[12004 + 100 * x + y for x in range(12)] for y in range(4)]
    assert out.tolist() == expected


def test_grid_3d_and_1d() -> None:
    # grid (2, 1, 3) of blocks (1, 3, 2): x in 0..1, y in 0..2, z = threadIdx.z + 2 blockIdx.z in
    # 0..5: out[z, y, x] = x + 10 y + 100 z; grid(1) = x as well; gridsize(3) = (2, 3, 6).
    out = np.zeros((6, 3, 2), np.int64)
    first = np.zeros((6, 3, 2), np.int64)
    size = np.zeros(3, np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(out, first, size):
            x, y, z = cuda.grid(3)
            out[z, y, x] = x + 10 * y + 100 * z
            first[z, y, x] = cuda.grid(1)
            a, b, c = cuda.gridsize(3)
            size[0] = a
            size[1] = b
            size[2] = c
        """,
        (2, 1, 3), (1, 3, 2), out, first, size,
    )  # fmt: skip
    z, y, x = np.meshgrid(range(6), range(3), range(2), indexing="ij")
    assert (out == x + 10 * y + 100 * z).all()
    assert (first == x).all()
    assert size.tolist() == [2, 3, 6]


def test_grid_of_four_dimensions_is_a_kernel_error() -> None:
    with pytest.raises(KernelError) as info:
        run("from numba import cuda\n@cuda.jit\ndef k(out):\n    i = cuda.grid(4)\n", 1, 1, np.zeros(1))
    assert (info.value.message, info.value.line) == ("cuda.grid/gridsize take 1, 2 or 3 (got 4)", 4)


def test_barriers_with_a_predicate_count_per_block() -> None:
    # 2 blocks of 4, i = threadIdx.x, block b. Predicate i < b + 1: block 0 has 1 thread true,
    # block 1 has 2. count: 1, 2; and: 0 (not all) for both blocks; or: 1 for both.
    # Predicate i < 4 (all true): and = 1. Predicate b == 1: or = 0 in block 0, 1 in block 1.
    out = np.zeros((5, 8), np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(out):
            i = cuda.threadIdx.x
            b = cuda.blockIdx.x
            g = b * 4 + i
            out[0, g] = cuda.syncthreads_count(i < b + 1)
            out[1, g] = cuda.syncthreads_and(i < b + 1)
            out[2, g] = cuda.syncthreads_or(i < b + 1)
            out[3, g] = cuda.syncthreads_and(i < 4)
            out[4, g] = cuda.syncthreads_or(b == 1)
        """,
        2, 4, out,
    )  # fmt: skip
    assert out.tolist() == [
        [1] * 4 + [2] * 4,
        [0] * 8,
        [1] * 8,
        [1] * 8,
        [0] * 4 + [1] * 4,
    ]


def test_a_barrier_after_some_threads_returned_counts_only_the_running_ones() -> None:
    # Threads 3 of each block of 4 return; the other 3 reach syncthreads_and(True): all of the
    # running ones agree, 1. syncthreads_count(True) = 3.
    out = np.zeros((2, 8), np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(out):
            i = cuda.threadIdx.x
            g = cuda.blockIdx.x * 4 + i
            if i == 3:
                return
            out[0, g] = cuda.syncthreads_and(True)
            out[1, g] = cuda.syncthreads_count(True)
        """,
        2, 4, out,
    )  # fmt: skip
    assert out.tolist() == [[1, 1, 1, 0] * 2, [3, 3, 3, 0] * 2]


def test_shuffles_on_a_block_of_40_threads() -> None:
    # A block of 40: warp 0 is threads 0..31, warp 1 threads 32..39 (8 threads). v = 100 + i.
    # down by 4: lane l reads lane l + 4 of its warp when that exists: threads 0..27 read i + 4,
    # 28..31 keep their own (lane 32.. is outside warp 0); in warp 1 threads 32..35 read 36..39,
    # 36..39 keep theirs (past the partial warp's end). up by 1: thread 0 and 32 keep their own.
    # xor 1 swaps neighbours (0 <-> 1, ...). idx 5: every lane of warp 0 reads thread 5, of
    # warp 1 thread 37. idx of a uniform value: 7 everywhere.
    out = np.zeros((5, 40), np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(out):
            i = cuda.threadIdx.x
            v = 100 + i
            out[0, i] = cuda.shfl_down_sync(0xFFFFFFFF, v, 4)
            out[1, i] = cuda.shfl_up_sync(0xFFFFFFFF, v, 1)
            out[2, i] = cuda.shfl_xor_sync(0xFFFFFFFF, v, 1)
            out[3, i] = cuda.shfl_sync(0xFFFFFFFF, v, 5)
            out[4, i] = cuda.shfl_sync(0xFFFFFFFF, 7, 5)
        """,
        1, 40, out,
    )  # fmt: skip
    i = np.arange(40)
    down = [104 + k for k in range(28)] + [128, 129, 130, 131] + [136, 137, 138, 139] + [136, 137, 138, 139]
    up = [100] + [100 + k for k in range(31)] + [132] + [132 + k for k in range(7)]
    assert out[0].tolist() == down
    assert out[1].tolist() == up
    assert out[2].tolist() == (100 + (i ^ 1)).tolist()
    assert out[3].tolist() == [105] * 32 + [137] * 8
    assert out[4].tolist() == [7] * 40


def test_votes_on_a_full_and_a_partial_warp() -> None:
    # A block of 40 (warps of 32 and 8). ballot(i % 2 == 1): in warp 0 the odd lanes' bits,
    # 0xAAAAAAAA, bit 31 set, so int32 -1431655766 (0xAAAAAAAA - 2^32); in warp 1 lanes 1 3 5 7:
    # 0xAA = 170. all(i < 36): warp 0 yes (1), warp 1 no (0); any(i > 38): warp 0 no, warp 1 yes.
    # activemask() under i < 35: warp 0 all 32 lanes, 4294967295 (uint32); warp 1 lanes 0..2
    # (threads 32..34): 0b111 = 7; the other lanes do not run it: 0.
    out = np.zeros((4, 40), np.int64)
    mask = np.zeros(40, np.uint32)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(out, mask):
            i = cuda.threadIdx.x
            out[0, i] = cuda.ballot_sync(0xFFFFFFFF, i % 2 == 1)
            out[1, i] = cuda.all_sync(0xFFFFFFFF, i < 36)
            out[2, i] = cuda.any_sync(0xFFFFFFFF, i > 38)
            out[3, i] = cuda.laneid
            if i < 35:
                mask[i] = cuda.activemask()
        """,
        1, 40, out, mask,
    )  # fmt: skip
    assert out[0].tolist() == [-1431655766] * 32 + [170] * 8
    assert out[1].tolist() == [1] * 32 + [0] * 8
    assert out[2].tolist() == [0] * 32 + [1] * 8
    assert out[3].tolist() == list(range(32)) + list(range(8))
    assert mask.tolist() == [4294967295] * 32 + [7, 7, 7, 0, 0, 0, 0, 0]


def test_shared_memory_is_one_array_per_block() -> None:
    # 3 blocks of 4: each thread writes s[i] = 10 b + i, a barrier, then reads its neighbour
    # s[(i + 1) % 4], which is its own block's: block b gives 10 b + 1, 10 b + 2, 10 b + 3, 10 b.
    out = np.zeros(12, np.int64)
    run(
        """
        from numba import cuda, int32

        @cuda.jit
        def k(out):
            s = cuda.shared.array(shape=4, dtype=int32)
            i = cuda.threadIdx.x
            b = cuda.blockIdx.x
            s[i] = 10 * b + i
            cuda.syncthreads()
            out[b * 4 + i] = s[(i + 1) % 4]
        """,
        3, 4, out,
    )  # fmt: skip
    assert out.tolist() == [1, 2, 3, 0, 11, 12, 13, 10, 21, 22, 23, 20]


def test_local_arrays_are_one_per_thread_and_shared_2d_shapes() -> None:
    # Each of 4 threads fills its own local array of 3 with i, i + 1, i + 2 and sums it: 3 i + 3.
    # A shared (2, 3) array of float64 per block: t[1, 2] written by thread 0 as 7.5, read by all
    # after the barrier.
    out = np.zeros((2, 4), np.float64)
    run(
        """
        from numba import cuda, float64

        @cuda.jit
        def k(out):
            i = cuda.threadIdx.x
            loc = cuda.local.array(3, float64)
            for j in range(3):
                loc[j] = i + j
            out[0, i] = loc[0] + loc[1] + loc[2]
            t = cuda.shared.array((2, 3), float64)
            if i == 0:
                t[1, 2] = 7.5
            cuda.syncthreads()
            out[1, i] = t[1, 2]
        """,
        1, 4, out,
    )  # fmt: skip
    assert out.tolist() == [[3, 6, 9, 12], [7.5] * 4]


def test_a_shared_arrays_shape_must_be_a_constant() -> None:
    with pytest.raises(KernelError) as info:
        run(
            "from numba import cuda, int32\n@cuda.jit\ndef k(n):\n    s = cuda.shared.array(n, int32)\n",
            1, 2, np.zeros(4),
        )  # fmt: skip
    assert (info.value.message, info.value.line) == (
        "a shared or local array's shape must be integer constants",
        4,
    )


def test_atomic_forms_compare_and_swap_and_a_2d_index() -> None:
    # compare_and_swap(s, 0, 5) on s[0] = 0 by 3 lanes: lane 0 swaps (old 0), lanes 1, 2 see 5.
    # add(m, (1, i), i + 1) on a 2 x 3 array: row 1 gets 1 2 3, olds 0.
    s = np.zeros(1, np.int32)
    m = np.zeros((2, 3), np.int32)
    out = np.zeros((2, 3), np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(s, m, out):
            i = cuda.threadIdx.x
            out[0, i] = cuda.atomic.compare_and_swap(s, 0, 5)
            out[1, i] = cuda.atomic.add(m, (1, i), i + 1)
        """,
        1, 3, s, m, out,
    )  # fmt: skip
    assert out.tolist() == [[0, 5, 5], [0, 0, 0]] and s[0] == 5
    assert m.tolist() == [[0, 0, 0], [1, 2, 3]]


def test_an_atomic_on_a_number_is_a_kernel_error() -> None:
    with pytest.raises(KernelError) as info:
        run(
            "from numba import cuda\n@cuda.jit\ndef k(a):\n    cuda.atomic.add(a[0], 0, 1)\n",
            1,
            2,
            np.zeros(4),
        )
    assert (info.value.message, info.value.line) == ("cuda.atomic.add needs an array", 4)


@pytest.mark.parametrize("per_block", [40, 65])
def test_votes_stay_inside_each_blocks_warps(per_block: int) -> None:
    # 2 blocks. ballot(True) per warp: a full warp gives every bit, int32 -1 (0xFFFFFFFF); the
    # last warp of a block of 40 has 8 threads: 0xFF = 255; of a block of 65 (warps 32, 32, 1):
    # 1 thread, 0b1 = 1. Block 1's warps are its own, not merged with block 0's last one.
    # gridsize(1) = 2 blocks x per_block.
    out = np.zeros((2, 2 * per_block), np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(out):
            g = cuda.grid(1)
            out[0, g] = cuda.ballot_sync(0xFFFFFFFF, True)
            out[1, g] = cuda.gridsize(1)
        """,
        2, per_block, out,
    )  # fmt: skip
    last = 255 if per_block == 40 else 1
    block = [-1] * 32 + [last] * 8 if per_block == 40 else [-1] * 64 + [last]
    assert out[0].tolist() == block * 2
    assert out[1].tolist() == [2 * per_block] * (2 * per_block)


def test_array_arguments_by_keyword_and_a_local_arrays_name_in_an_error() -> None:
    # cuda.shared.array(4, dtype=int32): the shape by position, the type by keyword; 2.5 stored
    # is 2. A local array of 3 indexed at 3 (line 5) names itself.
    out = np.zeros(2, np.float64)
    run(
        """
        from numba import cuda, int32

        @cuda.jit
        def k(out):
            s = cuda.shared.array(4, dtype=int32)
            s[cuda.threadIdx.x] = 2.5
            out[cuda.threadIdx.x] = s[cuda.threadIdx.x]
        """,
        1, 2, out,
    )  # fmt: skip
    assert out.tolist() == [2, 2]
    with pytest.raises(KernelError) as info:
        run(
            "from numba import cuda, int32\n@cuda.jit\ndef k(out):\n"
            "    loc = cuda.local.array(3, int32)\n    loc[cuda.threadIdx.x + 2] = 1\n",
            1, 2, out,
        )  # fmt: skip
    assert (info.value.message, info.value.line) == (
        "index 3 is out of bounds for axis 0 with size 3 (loc)",
        5,
    )


def test_a_source_lane_past_31_wraps_and_a_full_second_warp_agrees() -> None:
    # A block of 40. shfl_sync(v, 33): lane 33 % 32 = 1 of each warp: thread 1 (101) in warp 0,
    # thread 33 (133) in warp 1. all_sync(True): every running lane of both warps agrees: 1.
    out = np.zeros((2, 40), np.int64)
    run(
        """
        from numba import cuda

        @cuda.jit
        def k(out):
            i = cuda.threadIdx.x
            out[0, i] = cuda.shfl_sync(0xFFFFFFFF, 100 + i, 33)
            out[1, i] = cuda.all_sync(0xFFFFFFFF, True)
        """,
        1, 40, out,
    )  # fmt: skip
    assert out[0].tolist() == [101] * 32 + [133] * 8
    assert out[1].tolist() == [1] * 40
