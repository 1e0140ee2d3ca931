"""The trace's device helpers, run as numba runs them (the simulator here; the same kernels on a
GPU), row by row: what each logs for a load, a store and an atomic on 1-, 2- and 3-D global and
shared arrays (site, flags, byte offset, indices, barrier count), what each returns, what it
writes, and which threads of a 3-D grid take log slots. Every number is worked out by hand in the
comments; nothing here is computed by simtviz.

These rows are what the Your kernel tab's analysis reads: a wrong offset is a wrong sector count,
a wrong flag a store shown as a load, a wrong epoch a race reported across a barrier."""

from __future__ import annotations

import numpy as np
import pytest
from numba import cuda  # after conftest chose the simulator; a kernel's own globals name it


@pytest.fixture(scope="module")
def helpers(backend_kind: str):  # type: ignore[no-untyped-def]
    if backend_kind != "sim":
        pytest.skip("runs the helpers in numba's simulator (tests/gpu runs them on the GPU)")
    from simtviz.kernels import trace_helpers

    return trace_helpers


# One thread per block, two blocks, and a window of block 1 alone: block 1's thread is the
# only one logged (tid = 1 × 1 + 0 = 1, so i = 1), block 0's gets tid = -1 and i = -1.
#
# a float32[4]       = 10 11 12 13                       strides (4,)
# b float64[3, 2]    b[i, j] = 100 + 10 i + j            strides (16, 8)
# c int32[2, 3, 2]   c[i, j, k] = 1000 + 100 i + 10 j + k strides (24, 8, 4)
# shared: s1 float64[64] (8,), s2 float32[32, 33] (132, 4), s3 int32[2, 4, 8] (128, 32, 4)
#
# flags = oob + kind × 2 + array × 8 (kind: load 0, store 1, atomic 2; arrays a b c s1 s2 s3 = 0..5)
# columns: site, flags, byte offset, i0, i1, i2, epoch
EXPECTED_ROWS = [
    (0, 0, 4, 1, 0, 0, 0),  # load a[1] = 11:                1 × 4
    (1, 8, 24, 1, 1, 0, 0),  # load b[1, 1] = 111:           1 × 16 + 1 × 8; v = 122
    (2, 2, 8, 2, 0, 0, 0),  # store a[2] = 122:              2 × 4
    (3, 10, 24, 1, 1, 0, 0),  # store b[1, 1] = 122
    (4, 16, 28, 1, 0, 1, 0),  # load c[1, 0, 1] = 1101:      24 + 0 + 4; w = 1101
    (5, 18, 12, 0, 1, 1, 0),  # store c[0, 1, 1] = 1102:     0 + 8 + 4
    (6, 4, 4, 1, 0, 0, 0),  # atomic a[1] += 1 → 12
    (7, 12, 16, 1, 0, 0, 0),  # atomic b[1, 0] += 1 → 111:   1 × 16
    (8, 20, 24, 1, 0, 0, 0),  # atomic c[1, 0, 0] += 1 → 1101
    (9, 26, 8, 1, 0, 0, 0),  # store s1[1] = 122:            2 + 3 × 8
    (10, 34, 136, 1, 1, 0, 0),  # store s2[1, 1] = 122:      2 + 4 × 8; 132 + 4
    (11, 42, 36, 0, 1, 1, 0),  # store s3[0, 1, 1] = 1101:   2 + 5 × 8; 0 + 32 + 4
    (12, 28, 8, 1, 0, 0, 1),  # after the barrier: epoch 1; atomic s1[1] → 123
    (13, 36, 136, 1, 1, 0, 1),  # atomic s2[1, 1] → 123
    (14, 44, 132, 1, 0, 1, 1),  # atomic s3[1, 0, 1]:        128 + 0 + 4
    (15, 24, 8, 1, 0, 0, 1),  # load s1[1] = 123
    (16, 32, 136, 1, 1, 0, 1),  # load s2[1, 1] = 123;       x = 246
    (17, 40, 36, 0, 1, 1, 1),  # load s3[0, 1, 1] = 1101
    (18, 2, 4, 1, 0, 0, 1),  # store a[1] = 246 + 1101 = 1347
]


def run_probe(helpers):  # type: ignore[no-untyped-def]
    a = np.array([10, 11, 12, 13], dtype=np.float32)
    b = np.array([[100 + 10 * i + j for j in range(2)] for i in range(3)], dtype=np.float64)
    c = np.array(
        [[[1000 + 100 * i + 10 * j + k for k in range(2)] for j in range(3)] for i in range(2)],
        dtype=np.int32,
    )
    log = np.full((helpers.LOG_FIELDS, 64), -7, dtype=np.int64)
    count = np.zeros(helpers.COUNTERS, dtype=np.int64)
    d = [cuda.to_device(x) for x in (a, b, c, log, count)]
    helpers.trace_helpers_probe[2, 1](*d, 1, 1)
    return [x.copy_to_host() for x in d]


def test_each_helper_logs_its_site_kind_array_offset_indices_and_barrier_count(helpers) -> None:  # type: ignore[no-untyped-def]
    _, _, _, log, count = run_probe(helpers)
    # 19 accesses a thread; block 0's thread is outside the window, block 1's inside
    assert count.tolist() == [19, 19]
    rows = [tuple(int(v) for v in log[[1, 2, 3, 4, 5, 6, 7], s]) for s in range(19)]
    assert rows == EXPECTED_ROWS
    assert set(log[0, :19].tolist()) == {1}  # every row is thread 1's
    assert (log[:, 19:] == -7).all()  # no row past the slots taken


def test_loads_return_the_element_or_zero_and_stores_write_only_in_bounds(helpers) -> None:  # type: ignore[no-untyped-def]
    a, b, c, _, _ = run_probe(helpers)
    # Block 0's thread (i = -1): every access is out of bounds but its store of a[i + 1] = a[0],
    # of v = load a[-1] + load b[-1, 1] = 0 + 0. Block 1's writes are in the rows above.
    assert a.tolist() == [0, 1347, 122, 13]
    assert b.tolist() == [[100, 101], [111, 122], [120, 121]]
    expected_c = np.array(
        [[[1000 + 100 * i + 10 * j + k for k in range(2)] for j in range(3)] for i in range(2)],
        dtype=np.int32,
    )
    expected_c[0, 1, 1] = 1102  # w + 1
    expected_c[1, 0, 0] = 1101  # 1100 + 1, the atomic
    assert (c == expected_c).all()


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_out_of_bounds_loads_and_atomics_return_zero_and_in_bounds_ones_the_old_value(
    helpers, dims: int
) -> None:  # type: ignore[no-untyped-def]
    load = getattr(helpers, f"tv_load{dims}")
    atomic = getattr(helpers, f"tv_atomic_add{dims}")

    @cuda.jit
    def k(arr, out, log, count):  # type: ignore[no-untyped-def]
        t = cuda.threadIdx.x  # thread 0 in bounds, thread 1 one past the last element
        if dims == 1:
            out[t, 0] = load(arr, t, log, count, t, 0, 0, 0)
            out[t, 1] = atomic(arr, t, 5, log, count, t, 0, 1, 0)
        elif dims == 2:
            out[t, 0] = load(arr, t, t, log, count, t, 0, 0, 0)
            out[t, 1] = atomic(arr, t, t, 5, log, count, t, 0, 1, 0)
        else:
            out[t, 0] = load(arr, t, t, t, log, count, t, 0, 0, 0)
            out[t, 1] = atomic(arr, t, t, t, 5, log, count, t, 0, 1, 0)

    arr = np.full((1,) * dims, 7, dtype=np.int32)
    out = np.full((2, 2), -9, dtype=np.int32)
    log = np.zeros((helpers.LOG_FIELDS, 8), dtype=np.int64)
    count = np.zeros(helpers.COUNTERS, dtype=np.int64)
    k[1, 2](arr, out, log, count)
    # thread 0: load 7, atomic returns the old 7 and leaves 12; thread 1: 0 and 0, nothing written
    assert out.tolist() == [[7, 7], [0, 0]]
    assert arr.reshape(-1).tolist() == [12]


def test_a_3d_grids_window_logs_whole_blocks_in_x_then_y_then_z_order(helpers) -> None:  # type: ignore[no-untyped-def]
    @cuda.jit
    def k(out, first, blocks):  # type: ignore[no-untyped-def]
        b, t = cuda.blockIdx, cuda.threadIdx
        out[b.z, b.y, b.x, t.z, t.y, t.x] = helpers.tv_thread_id(first, blocks)

    # grid (2, 3, 2) = 12 blocks, block (2, 1, 2) = 4 threads. Block (x, y, z) is number
    # x + 2 (y + 3 z); thread (x, y, z) of a block is x + 2 (y + 1 z).
    out = np.full((2, 3, 2, 2, 1, 2), -9, dtype=np.int64)
    k[(2, 3, 2), (2, 1, 2)](out, 5, 7)  # blocks 5 .. 11 logged
    assert out[0, 2, 1, 1, 0, 1] == 5 * 4 + 3  # block (1, 2, 0) = 1 + 4 = 5, the first; thread 1 + 2 = 3
    assert out[0, 2, 0, 0, 0, 0] == -1  # block (0, 2, 0) = 4, before the window
    assert out[1, 2, 1, 1, 0, 1] == 11 * 4 + 3  # block (1, 2, 1) = 1 + 2 (2 + 3) = 11, the last
    assert out[1, 0, 0, 0, 0, 1] == 6 * 4 + 1  # block (0, 0, 1) = 2 × 3 = 6
    logged = out[out != -1]
    assert sorted(logged.tolist()) == list(range(20, 48))  # 7 blocks × 4 threads, 5 × 4 onwards
    assert (out != -9).all()

    out[:] = -9
    k[(2, 3, 2), (2, 1, 2)](out, 5, 6)  # blocks 5 .. 10: block 11 is one past the window
    assert out[1, 2, 1, 1, 0, 1] == -1
    assert sorted(out[out != -1].tolist()) == list(range(20, 44))
