"""The GPU's fused verifier (kernels/verify.py) on numba's simulator, its counters read in the
layout its docstring gives, with an array sized by hand: one counter per checked field
(threadIdx, blockIdx, grid1, grid2, grid3, laneid, warp), then the number of wrong rows, then the
lowest wrong row (set to the row count first): 7 + 2 = 9 slots."""

from __future__ import annotations

import numpy as np
from numba import cuda  # noqa: F401  (the simulator's kernels run in this process)

from simtviz.kernels.verify import verify_records

# Launch grid (3, 5) × block (48, 2); window x 46..49 (across the block edge 48), y 3..4.
# Rows x fastest: (46, 3) (47, 3) (48, 3) (49, 3) (46, 4) (47, 4) (48, 4) (49, 4).
WINDOW = np.array([46, 3, 0, 4, 2, 1], dtype=np.int64)
BLOCK = np.array([48, 2, 1], dtype=np.int64)
XY = [(46, 3), (47, 3), (48, 3), (49, 3), (46, 4), (47, 4), (48, 4), (49, 4)]


def good_record() -> list[np.ndarray]:
    # threadIdx (x % 48, y % 2), blockIdx (x // 48, y // 2)
    thread = [(46, 1), (47, 1), (0, 1), (1, 1), (46, 0), (47, 0), (0, 0), (1, 0)]
    block = [(0, 1), (0, 1), (1, 1), (1, 1), (0, 2), (0, 2), (1, 2), (1, 2)]
    # linear id in the block tx + 48 ty: 94 95 48 49 46 47 0 1; lane % 32, warp // 32
    lanes = [30, 31, 16, 17, 14, 15, 0, 1]
    warps = [2, 2, 1, 1, 1, 1, 0, 0]
    return [
        np.array([[tx, ty, 0] for tx, ty in thread], dtype=np.int32),
        np.array([[bx, by, 0] for bx, by in block], dtype=np.int32),
        np.array([x for x, _ in XY], dtype=np.int64),  # cuda.grid(1) is x
        np.array(XY, dtype=np.int64),
        np.array([[x, y, 0] for x, y in XY], dtype=np.int64),
        np.array(lanes, dtype=np.int32),
        np.array(warps, dtype=np.int32),
    ]


def counters(fields: list[np.ndarray]) -> list[int]:
    bad = np.array([0, 0, 0, 0, 0, 0, 0, 0, 8], dtype=np.int64)  # lowest wrong row starts at n = 8
    verify_records[2, 4](*fields, WINDOW, BLOCK, 8, bad)
    return bad.tolist()


def test_a_good_record_leaves_every_counter_as_it_was() -> None:
    assert counters(good_record()) == [0, 0, 0, 0, 0, 0, 0, 0, 8]


def test_two_wrong_rows_are_counted_after_the_fields_and_the_lowest_is_last() -> None:
    fields = good_record()
    fields[5][2] = 0  # (48, 3): lane 16, written as if lanes restarted at the block's edge
    fields[6][5] = 0  # (47, 4): warp 1 (linear 47), written 0
    fields[6][7] = 1  # (49, 4): warp 0 (linear 1), written 1
    # laneid 1 row, warp 2 rows; wrong rows 2, 5, 7: three, the lowest 2.
    assert counters(fields) == [0, 0, 0, 0, 0, 1, 2, 3, 2]
