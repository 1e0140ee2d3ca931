"""What named threads record, worked out by hand (never by simtviz's own oracle).

Three small launches, each run on the CUDA simulator: 1-D; 2-D with unequal x and y; 3-D with
every dimension of grid and block different. For each, a few threads are named by their
cuda.grid(3) coordinates and every checked field they record is written out below, with the
arithmetic in a comment so that a reader can redo it.
"""

from __future__ import annotations

import numpy as np
import pytest

from simtviz.backends.sim import SimBackend
from simtviz.core import schema
from simtviz.core.launch import LaunchConfig
from simtviz.core.oracle import verify
from simtviz.core.recording import Recording
from simtviz.core.window import DEFAULT_BUDGET_THREADS, Window, choose_window

# 1-D: grid 3, block 40 (two warps per block, the second one partial).
ONE_D = LaunchConfig.of((3, 1, 1), (40, 1, 1))
# 2-D: grid (2, 3), block (8, 6): extent 16 × 18; x and y differ everywhere.
TWO_D = LaunchConfig.of((2, 3, 1), (8, 6, 1))
# 3-D: grid (2, 3, 4), block (5, 4, 3): extent 10 × 12 × 12 = 1,440 threads, 60 per block.
THREE_D = LaunchConfig.of((2, 3, 4), (5, 4, 3))

# (launch, row, {field: value}) — row is x + y * width + z * width * height of the whole launch.
HANDWORKED = [
    # x = 85: block 85 // 40 = 2, thread 85 - 80 = 5; lane 5 of warp 0.
    (
        ONE_D,
        85,
        dict(
            threadIdx=(5, 0, 0),
            blockIdx=(2, 0, 0),
            grid1=85,
            grid2=(85, 0),
            grid3=(85, 0, 0),
            laneid=5,
            warp=0,
        ),
    ),
    # x = 75: block 1, thread 35: warp 35 // 32 = 1, lane 35 - 32 = 3.
    (
        ONE_D,
        75,
        dict(
            threadIdx=(35, 0, 0),
            blockIdx=(1, 0, 0),
            grid1=75,
            grid2=(75, 0),
            grid3=(75, 0, 0),
            laneid=3,
            warp=1,
        ),
    ),
    # (x, y) = (13, 16): blockIdx (13 // 8, 16 // 6) = (1, 2), threadIdx (13 - 8, 16 - 12) = (5, 4);
    # thread id 5 + 4 × 8 = 37: warp 1, lane 5. cuda.grid(1) is x alone. Row 13 + 16 × 16 = 269.
    (
        TWO_D,
        269,
        dict(
            threadIdx=(5, 4, 0),
            blockIdx=(1, 2, 0),
            grid1=13,
            grid2=(13, 16),
            grid3=(13, 16, 0),
            laneid=5,
            warp=1,
        ),
    ),
    # (x, y) = (2, 7): blockIdx (0, 1), threadIdx (2, 1); thread id 2 + 8 = 10. Row 2 + 7 × 16 = 114.
    (
        TWO_D,
        114,
        dict(
            threadIdx=(2, 1, 0), blockIdx=(0, 1, 0), grid1=2, grid2=(2, 7), grid3=(2, 7, 0), laneid=10, warp=0
        ),
    ),
    # (x, y, z) = (7, 9, 11): blockIdx (7 // 5, 9 // 4, 11 // 3) = (1, 2, 3), threadIdx (2, 1, 2);
    # thread id 2 + 1 × 5 + 2 × 20 = 47: warp 1, lane 15. Row 7 + 9 × 10 + 11 × 120 = 1417.
    (
        THREE_D,
        1417,
        dict(
            threadIdx=(2, 1, 2),
            blockIdx=(1, 2, 3),
            grid1=7,
            grid2=(7, 9),
            grid3=(7, 9, 11),
            laneid=15,
            warp=1,
        ),
    ),
    # (x, y, z) = (4, 3, 5): blockIdx (0, 0, 1), threadIdx (4, 3, 2); thread id 4 + 15 + 40 = 59:
    # warp 1, lane 27. Row 4 + 30 + 600 = 634.
    (
        THREE_D,
        634,
        dict(
            threadIdx=(4, 3, 2), blockIdx=(0, 0, 1), grid1=4, grid2=(4, 3), grid3=(4, 3, 5), laneid=27, warp=1
        ),
    ),
]


@pytest.fixture(scope="module")
def recordings() -> dict[LaunchConfig, Recording]:
    backend = SimBackend()
    return {config: backend.record(config) for config in (ONE_D, TWO_D, THREE_D)}


@pytest.mark.parametrize(("config", "row", "expected"), HANDWORKED)
def test_named_threads_record_the_handworked_values(recordings, config, row, expected) -> None:
    thread = recordings[config].thread_at(row)
    for name, value in expected.items():
        assert thread[name] == value, name


@pytest.mark.parametrize("config", [ONE_D, TWO_D, THREE_D])
def test_the_simulator_reports_every_thread_verified(recordings, config) -> None:
    rec = recordings[config]
    assert rec.verification.ok
    assert rec.verification.matched == config.total_threads
    # The simulator cannot read the SM or the clock: both stay -1 in every row.
    assert (rec.fields["smid"] == -1).all() and (rec.fields["t_ns"] == -1).all()


def test_a_window_with_an_origin_records_those_threads_from_row_0() -> None:
    # The window starts at (3, 4, 5) and is 4 × 3 × 2: row 0 is thread (3, 4, 5), the last row
    # (23) is thread (3 + 3, 4 + 2, 5 + 1) = (6, 6, 6).
    window = Window((3, 4, 5), (4, 3, 2))
    rec = SimBackend().record(THREE_D, window)
    assert rec.threads == 24 and rec.verification.ok
    first, last = rec.thread_at(0), rec.thread_at(23)
    # (3, 4, 5): blockIdx (0, 1, 1), threadIdx (3, 0, 2).
    assert first["grid3"] == (3, 4, 5)
    assert first["blockIdx"] == (0, 1, 1) and first["threadIdx"] == (3, 0, 2)
    # (6, 6, 6): blockIdx (1, 1, 2), threadIdx (1, 2, 0); thread id 1 + 10 = 11.
    assert last["grid3"] == (6, 6, 6) and last["grid1"] == 6
    assert last["blockIdx"] == (1, 1, 2) and last["threadIdx"] == (1, 2, 0)
    assert last["warp"] == 0 and last["laneid"] == 11
    # Row 5 is x 3 + 1, y 4 + 1 (rows are x fastest: 5 = 1 + 1 × 4), z 5.
    assert rec.thread_at(5)["grid3"] == (4, 5, 5)


# --- the record before and after the kernel -----------------------------------------------------


def test_unwritten_rows_hold_minus_one_and_count_as_mismatches() -> None:
    fields = schema.allocate(6)
    for name, (shape, _type) in schema.RECORD_FIELDS.items():
        assert fields[name].shape == (6, *shape)
        assert (fields[name] == -1).all(), name
    # Nothing written: no thread matches — not even thread 0, whose true values are all 0.
    config = LaunchConfig.of((1, 1, 1), (6, 1, 1))
    result = verify(fields, config, Window.full(config))
    assert (result.matched, result.total) == (0, 6)
    assert result.first_mismatch is not None and result.first_mismatch.row == 0


def _good_3d_fields() -> dict[str, np.ndarray]:
    # The 2 × 1 × 2 launch of block (1, 1, 2): rows are (x, y, z) = (0,0,0), (1,0,0), (0,0,1), (1,0,1).
    return {
        "threadIdx": np.array([[0, 0, 0], [0, 0, 0], [0, 0, 1], [0, 0, 1]], dtype=np.int32),
        "blockIdx": np.array([[0, 0, 0], [1, 0, 0], [0, 0, 0], [1, 0, 0]], dtype=np.int32),
        "grid1": np.array([0, 1, 0, 1], dtype=np.int64),
        "grid2": np.array([[0, 0], [1, 0], [0, 0], [1, 0]], dtype=np.int64),
        "grid3": np.array([[0, 0, 0], [1, 0, 0], [0, 0, 1], [1, 0, 1]], dtype=np.int64),
        # Thread id in the block is threadIdx.z (x and y are 0): lanes 0, 0, 1, 1.
        "laneid": np.array([0, 0, 1, 1], dtype=np.int32),
        "warp": np.zeros(4, dtype=np.int32),
        "smid": np.full(4, -1, dtype=np.int32),
        "t_ns": np.full(4, -1, dtype=np.int64),
    }


SMALL_3D = LaunchConfig.of((2, 1, 1), (1, 1, 2))


def test_handwritten_good_record_verifies() -> None:
    result = verify(_good_3d_fields(), SMALL_3D, Window.full(SMALL_3D))
    assert result.ok and result.matched == 4


@pytest.mark.parametrize(
    ("field", "row", "value"),
    [
        ("grid3", 3, (1, 0, 0)),  # z of the last thread lost
        ("grid2", 1, (1, 1)),
        ("grid1", 2, 7),
        ("threadIdx", 2, (0, 0, 0)),
        ("blockIdx", 3, (1, 0, 1)),
        ("laneid", 3, 0),
        ("warp", 0, 1),
    ],
)
def test_one_wrong_value_in_any_checked_field_fails_verification(field, row, value) -> None:
    fields = _good_3d_fields()
    fields[field][row] = value
    result = verify(fields, SMALL_3D, Window.full(SMALL_3D))
    assert not result.ok
    assert (result.matched, result.total) == (3, 4)
    assert result.mismatched_by_field[field] == 1
    assert sum(result.mismatched_by_field.values()) == 1
    assert result.first_mismatch is not None
    assert (result.first_mismatch.row, result.first_mismatch.field) == (row, field)
    assert result.first_mismatch.recorded == tuple(np.atleast_1d(value))
    assert "3 of 4 threads match — MISMATCH in " + f"{field} (1)" in result.summary()


# --- choose_window, worked by hand ---------------------------------------------------------------


def test_a_launch_within_the_budget_is_recorded_whole() -> None:
    assert choose_window(TWO_D, budget_threads=288) == Window((0, 0, 0), (16, 18, 1))
    # One thread over the budget (288 threads): a window.
    assert choose_window(TWO_D, budget_threads=287) != Window.full(TWO_D)


def test_choose_window_1d_keeps_whole_blocks_and_moves_to_the_origin() -> None:
    config = LaunchConfig.of((10, 1, 1), (32, 1, 1))  # 320 threads
    # Budget 96: 3 blocks of 32. Origin x 100 lies in block 3, which starts at 96.
    assert choose_window(config, 96, (100, 0, 0)) == Window((96, 0, 0), (96, 1, 1))
    # Origin past the end: the last 3 blocks (320 - 96 = 224).
    assert choose_window(config, 96, (300, 0, 0)) == Window((224, 0, 0), (96, 1, 1))
    assert choose_window(config, 96) == Window((0, 0, 0), (96, 1, 1))


def test_choose_window_2d_is_square_and_keeps_the_origin_inside() -> None:
    config = LaunchConfig.of((8, 8, 1), (8, 8, 1))  # 64 × 64
    # Budget 256: 16 × 16. Origin x 50 would pass the end (64): moved back to 64 - 16 = 48.
    assert choose_window(config, 256, (50, 10, 0)) == Window((48, 10, 0), (16, 16, 1))
    assert choose_window(config, 256, (5, 60, 0)) == Window((5, 48, 0), (16, 16, 1))


def test_choose_window_3d_honours_the_z_origin() -> None:
    config = LaunchConfig.of((1, 1, 16), (4, 4, 4))  # 4 × 4 × 64
    # Budget 64: the whole 4 × 4 plane, 64 // 16 = 4 planes, starting at z 5.
    assert choose_window(config, 64, (0, 0, 5)) == Window((0, 0, 5), (4, 4, 4))
    # z 62 would pass the end: the last 4 planes start at 60.
    assert choose_window(config, 64, (0, 0, 62)) == Window((0, 0, 60), (4, 4, 4))
    # A launch that fits but is asked from an origin is a window too.
    small = LaunchConfig.of((1, 1, 2), (2, 2, 2))  # 2 × 2 × 4 = 16 threads
    assert choose_window(small, 16, (0, 0, 1)) == Window((0, 0, 0), (2, 2, 4))
    assert choose_window(small, 8, (0, 0, 1)) == Window((0, 0, 1), (2, 2, 2))


# --- what a recorded thread costs, and the files' columns ---------------------------------------


def test_a_recorded_thread_costs_92_bytes() -> None:
    # threadIdx, blockIdx: 3 × int32 each (24); grid1 8; grid2 16; grid3 24; laneid, warp,
    # smid: int32 (12); t_ns 8. 24 + 8 + 16 + 24 + 12 + 8 = 92.
    assert schema.BYTES_PER_THREAD == 92
    assert schema.record_nbytes(1 << 24) == 1_543_503_872  # the default budget: ≈ 1.4 GiB
    assert [f.itemsize for f in schema.RECORD_SCHEMA] == [12, 12, 8, 16, 24, 4, 4, 4, 8]


def test_csv_columns_and_kernel_signatures_follow_the_schema() -> None:
    assert schema.CSV_COLUMNS == (
        "threadIdx.x", "threadIdx.y", "threadIdx.z", "blockIdx.x", "blockIdx.y", "blockIdx.z",
        "grid1", "grid2.x", "grid2.y", "grid3.x", "grid3.y", "grid3.z", "laneid", "warp", "smid", "t_ns",
    )  # fmt: skip
    assert schema.CHECKED_FIELDS == ("threadIdx", "blockIdx", "grid1", "grid2", "grid3", "laneid", "warp")
    assert schema.RECORD_SIGNATURE == (
        "void(int32[:, ::1], int32[:, ::1], int64[::1], int64[:, ::1], int64[:, ::1], int32[::1], "
        "int32[::1], int32[::1], int64[::1], int64[::1], int64[::1])"
    )  # the fields, then the window and the blocks' last end time
    assert schema.VERIFY_SIGNATURE == (
        "void(int32[:, ::1], int32[:, ::1], int64[::1], int64[:, ::1], int64[:, ::1], int32[::1], "
        "int32[::1], int64[::1], int64[::1], int64, int64[::1])"
    )


def test_choose_window_shapes_worked_by_hand() -> None:
    wide = LaunchConfig.of((125, 1, 1), (8, 2, 1))  # 1000 × 2
    # Budget 64: side 8 (8 × 8 ≤ 64 < 16 × 16); y holds only 2 rows, so x widens to 64 // 2 = 32.
    assert choose_window(wide, 64) == Window((0, 0, 0), (32, 2, 1))
    square = LaunchConfig.of((8, 8, 1), (8, 8, 1))  # 64 × 64
    # Budget 255: side 8 (16 × 16 = 256 > 255); y takes 255 // 8 = 31 rows.
    assert choose_window(square, 255) == Window((0, 0, 0), (8, 31, 1))
    assert choose_window(square, 0) == Window((0, 0, 0), (1, 1, 1))  # at least one thread
    # 1-D: never less than one whole block, even over the budget.
    assert choose_window(LaunchConfig.of(200, 1024), 100) == Window((0, 0, 0), (1024, 1, 1))


def test_window_geometry_and_description() -> None:
    window = Window((3, 4, 5), (4, 3, 2))
    assert window.end == (7, 7, 7) and window.threads == 24
    assert window.describe(THREE_D) == "recording 24 of 1,440 threads: window x 3–6, y 4–6, z 5–6"
    assert not window.covers(THREE_D)
    assert Window.full(THREE_D).covers(THREE_D)
    assert Window.full(THREE_D).describe(THREE_D) == "recording all 1,440 threads"
    assert not Window((1, 0, 0), (16, 18, 1)).covers(TWO_D)
    # A 2-D launch names no z; a 1-D one only x.
    assert (
        Window((0, 2, 0), (16, 4, 1)).describe(TWO_D) == "recording 64 of 288 threads: window x 0–15, y 2–5"
    )
    assert Window((40, 0, 0), (40, 1, 1)).describe(ONE_D) == "recording 40 of 120 threads: window x 40–79"


def test_choose_window_edges_worked_by_hand() -> None:
    assert DEFAULT_BUDGET_THREADS == 4_194_304  # 2^22: the app's and `record --budget`'s default (README)
    # 1-D blocks of one thread: budget 10 is 10 blocks.
    assert choose_window(LaunchConfig.of(100, 1), 10) == Window((0, 0, 0), (10, 1, 1))
    # A launch within the budget asked from x 64: the whole launch, so from 0.
    assert choose_window(LaunchConfig.of(4, 32), 1000, (64, 0, 0)) == Window((0, 0, 0), (128, 1, 1))
    # 3-D with one plane over the budget: 16 × 16 of plane 0, one plane (256 // 256 = 1).
    deep = LaunchConfig.of((8, 8, 1), (8, 8, 4))  # 64 × 64 × 4
    assert choose_window(deep, 256) == Window((0, 0, 0), (16, 16, 1))
    # The default origin is (0, 0, 0) in z too.
    assert choose_window(LaunchConfig.of((1, 1, 16), (4, 4, 4)), 64) == Window((0, 0, 0), (4, 4, 4))


def test_describe_names_an_axis_of_extent_two() -> None:
    config = LaunchConfig.of((4, 1, 1), (8, 2, 1))  # 32 × 2
    assert Window((8, 0, 0), (8, 2, 1)).describe(config) == "recording 16 of 64 threads: window x 8–15, y 0–1"
