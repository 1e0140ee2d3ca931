"""The catalog's launches as the handout prints them, and each exercise's reference outputs on
inputs small enough to work out by hand (no kernel runs)."""

from __future__ import annotations

import numpy as np
import pytest

from simtviz.core.exercise.catalog import exercise, exercises

# Each case in words (Case.words): 1-D grids are ceil(N / block) blocks unless fixed.
LAUNCHES = {
    # ceil(100 / 64) = 2, ceil(300 / 128) = 3
    "vecadd-guard": [
        "grid 2, block 64, a=float32[100], b=float32[100], c=float32[100]",
        "grid 3, block 128, a=float32[300], b=float32[300], c=float32[300]",
    ],
    # 20 x 24: (ceil(24 / 16), ceil(20 / 16)) = (2, 2); 17 x 16: (1, ceil(17 / 16) = 2)
    "matadd-2d": [
        "grid (2, 2), block (16, 16), A=float32[20,24], B=float32[20,24], C=float32[20,24]",
        "grid (1, 2), block (16, 16), A=float32[17,16], B=float32[17,16], C=float32[17,16]",
    ],
    # a fixed grid of 2 blocks of 32, whatever N
    "grid-stride": [
        "grid 2, block 32, a=float32[1000], out=float32[1000], factor=float32",
        "grid 2, block 32, a=float32[333], out=float32[333], factor=float32",
    ],
    # ceil(200 / 128) = 2, ceil(500 / 128) = 4
    "histogram-atomic": [
        "grid 2, block 128, data=int32[200], bins=int32[100]",
        "grid 4, block 128, data=int32[500], bins=int32[100]",
    ],
    # ceil(300 / 128) = 3, 128 / 128 = 1
    "tile-sync": [
        "grid 3, block 128, a=float32[300], out=float32[300]",
        "grid 1, block 128, a=float32[128], out=float32[128]",
    ],
    # A is rows x cols, grid (cols / 32, rows / 32): 32 x 64 -> (2, 1), 64 x 32 -> (1, 2)
    "transpose-coalesced": [
        "grid 2, block (32, 32), A=float32[32,64], B=float32[64,32]",
        "grid (1, 2), block (32, 32), A=float32[64,32], B=float32[32,64]",
    ],
    "saxpy": [
        "grid 2, block 64, alpha=float32, x=float32[100], y=float32[100], out=float32[100]",
        "grid 3, block 128, alpha=float32, x=float32[300], y=float32[300], out=float32[300]",
    ],
    # ceil(257 / 64) = 5 (4 x 64 = 256)
    "reverse": [
        "grid 2, block 64, a=float32[100], out=float32[100]",
        "grid 5, block 64, a=float32[257], out=float32[257]",
    ],
    # one thread per column: ceil(100 / 64) = 2, ceil(40 / 64) = 1
    "colsum": [
        "grid 2, block 64, A=float32[5,100], sums=float32[100]",
        "grid 1, block 64, A=float32[7,40], sums=float32[40]",
    ],
    # one sum per block: 3 and 1
    "block-sum": [
        "grid 3, block 128, a=float32[300], sums=float32[3]",
        "grid 1, block 128, a=float32[128], sums=float32[1]",
    ],
    "dot-atomic": [
        "grid 1, block 128, a=float32[100], b=float32[100], out=float32[1]",
        "grid 3, block 128, a=float32[300], b=float32[300], out=float32[1]",
    ],
    "histogram-shared": [
        "grid 2, block 128, data=int32[200], bins=int32[100]",
        "grid 4, block 128, data=int32[500], bins=int32[100]",
    ],
}


def test_every_exercise_launches_its_cases_as_written() -> None:
    assert {e.id: [c.words() for c in e.cases] for e in exercises()} == LAUNCHES


def test_the_scalars_are_the_ones_the_statements_use() -> None:
    assert exercise("grid-stride").cases[0].args["factor"] == "float32:3.0"
    assert exercise("saxpy").cases[1].args["alpha"] == "float32:2.5"


def test_1d_guard_exercises_leave_threads_past_the_end_in_a_case() -> None:
    # "N is not a multiple of the block": the last block is only partly inside the arrays
    for exercise_id in ("vecadd-guard", "saxpy", "reverse", "tile-sync", "histogram-atomic", "dot-atomic"):
        cases = exercise(exercise_id).cases
        sizes = [
            (int(next(v for v in c.args.values() if "[" in v).split("[")[1].split("]")[0]), c) for c in cases
        ]
        assert any(n % c.block[0] for n, c in sizes), exercise_id


F = np.float32


def _out(exercise_id: str, **inputs: object) -> dict[str, np.ndarray]:
    return exercise(exercise_id).expect(inputs)


def test_the_references_on_small_inputs() -> None:
    a, b = np.array([1, 2, 3], dtype=F), np.array([4, 5, 6], dtype=F)
    assert _out("vecadd-guard", a=a, b=b)["c"].tolist() == [5, 7, 9]
    assert _out("matadd-2d", A=a.reshape(1, 3), B=b.reshape(1, 3))["C"].tolist() == [[5, 7, 9]]
    assert _out("grid-stride", a=a, factor=3.0)["out"].tolist() == [3, 6, 9]
    # 2.5 * [1, 2, 3] + [4, 5, 6] = [6.5, 10, 13.5]
    assert _out("saxpy", alpha=2.5, x=a, y=b)["out"].tolist() == [6.5, 10, 13.5]
    assert _out("reverse", a=a)["out"].tolist() == [3, 2, 1]
    # 1 * 4 + 2 * 5 + 3 * 6 = 32
    assert _out("dot-atomic", a=a, b=b)["out"].tolist() == [32]
    # columns of [[1, 2, 3], [4, 5, 6]]: 5, 7, 9
    assert _out("colsum", A=np.stack([a, b]))["sums"].tolist() == [5, 7, 9]
    # (0 + 3 + 6) / 3 = 3, (3 + 6 + 9) / 3 = 6, (6 + 9 + 0) / 3 = 5: zeros outside a
    assert _out("tile-sync", a=np.array([3, 6, 9], dtype=F))["out"].tolist() == [3, 6, 5]
    assert _out("transpose-coalesced", A=np.stack([a, b]))["B"].tolist() == [[1, 4], [2, 5], [3, 6]]


def test_block_sums_cover_128_elements_each() -> None:
    # 300 ones: blocks of 128 -> 128, 128, 300 - 256 = 44
    assert _out("block-sum", a=np.ones(300, dtype=F))["sums"].tolist() == [128, 128, 44]


@pytest.mark.parametrize("exercise_id", ["histogram-atomic", "histogram-shared"])
def test_histograms_count_each_value_into_100_bins(exercise_id: str) -> None:
    # 3 twice, 7 once, 0 once, 99 once; the other 95 bins 0
    bins = _out(exercise_id, data=np.array([3, 7, 3, 0, 99], dtype=np.int32))["bins"]
    assert bins.dtype == np.int32 and bins.shape == (100,)
    assert {i: int(v) for i, v in enumerate(bins) if v} == {0: 1, 3: 2, 7: 1, 99: 1}


def test_an_unknown_id_lists_the_ones_there_are() -> None:
    with pytest.raises(KeyError, match="no exercise 'nope' \\(have vecadd-guard, matadd-2d, grid-stride"):
        exercise("nope")
