"""The GPU's fused verifier (kernels/verify.py) and ``verify_on_device``, run on the CUDA simulator.

No GPU here: the same kernel runs on numba's simulator, fed records written out by hand and then
corrupted one field at a time; a NumPy stand-in plays CuPy for ``verify_on_device``.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from simtviz.backends.record.gpu import verify_on_device
from simtviz.core.launch import LaunchConfig
from simtviz.core.window import Window
from simtviz.kernels.verify import BAD_ROWS, COUNTERS, FIRST_BAD_ROW, VERIFY_FIELDS, verify_records


class HostArray(np.ndarray):
    """A NumPy array with CuPy's ``.get()``, also on its elements (``record[row].get()``)."""

    def get(self) -> np.ndarray:
        return np.asarray(self)

    def __getitem__(self, key):  # type: ignore[no-untyped-def]
        item = super().__getitem__(key)
        return item if isinstance(item, np.ndarray) else np.asarray(item).view(HostArray)


FAKE_CP = SimpleNamespace(asarray=lambda a: np.array(a).view(HostArray))

# Grid (2, 1, 1) × block (2, 1, 3): 4 × 1 × 3 threads. Thread id in block = x % 2 + 2 z, so the
# lanes run 0–5 and every warp is 0. Rows are x fastest: row = x + 4 z.
CONFIG = LaunchConfig.of((2, 1, 1), (2, 1, 3))
ROWS = [(x, 0, z) for z in range(3) for x in range(4)]


def good_record() -> dict[str, np.ndarray]:
    return {
        "threadIdx": np.array([[x % 2, 0, z] for x, _, z in ROWS], dtype=np.int32),
        "blockIdx": np.array([[x // 2, 0, 0] for x, _, _ in ROWS], dtype=np.int32),
        "grid1": np.array([x for x, _, _ in ROWS], dtype=np.int64),
        "grid2": np.array([[x, 0] for x, _, _ in ROWS], dtype=np.int64),
        "grid3": np.array(ROWS, dtype=np.int64),
        "laneid": np.array([x % 2 + 2 * z for x, _, z in ROWS], dtype=np.int32),
        "warp": np.zeros(12, dtype=np.int32),
    }


def test_the_handwritten_record_is_what_the_lanes_say() -> None:
    # Spot checks of the table above: row 7 is (3, 0, 1): threadIdx (1, 0, 1), lane 1 + 2 = 3.
    r = good_record()
    assert r["grid3"][7].tolist() == [3, 0, 1] and r["laneid"][7] == 3
    assert r["threadIdx"][7].tolist() == [1, 0, 1] and r["blockIdx"][7].tolist() == [1, 0, 0]


def run_kernel(fields: dict[str, np.ndarray], window: Window, config: LaunchConfig = CONFIG) -> list[int]:
    bad = np.zeros(COUNTERS, dtype=np.int64)
    bad[FIRST_BAD_ROW] = window.threads
    verify_records[2, 8](
        *(fields[name] for name in VERIFY_FIELDS),
        np.array([*window.origin, *window.size], dtype=np.int64),
        np.array(config.block.as_tuple(), dtype=np.int64),
        window.threads,
        bad,
    )
    return bad.tolist()


def test_a_good_record_has_no_bad_rows() -> None:
    counts = run_kernel(good_record(), Window.full(CONFIG))
    assert counts[:BAD_ROWS] == [0] * len(VERIFY_FIELDS)
    assert counts[BAD_ROWS] == 0 and counts[FIRST_BAD_ROW] == 12


CORRUPTIONS = [
    ("threadIdx", 5, [1, 0, 0]),  # z of (1, 0, 1) lost
    ("blockIdx", 10, [0, 0, 0]),  # (2, 0, 2) is in block 1
    ("grid1", 11, 2),
    ("grid2", 6, [2, 1]),
    ("grid3", 10, [2, 0, 1]),  # z 2 written as 1
    ("laneid", 4, 2 + 16),  # (0, 0, 1) has lane 2; 18 is wrong
    ("laneid", 8, 4 + 32),
    ("warp", 3, 1),
]


@pytest.mark.parametrize(("field", "row", "value"), CORRUPTIONS)
def test_the_kernel_counts_one_corrupted_field(field, row, value) -> None:
    fields = good_record()
    fields[field][row] = value
    counts = run_kernel(fields, Window.full(CONFIG))
    expected = [1 if name == field else 0 for name in VERIFY_FIELDS]
    assert counts[:BAD_ROWS] == expected
    assert counts[BAD_ROWS] == 1 and counts[FIRST_BAD_ROW] == row


def test_the_kernel_counts_rows_and_finds_the_lowest() -> None:
    fields = good_record()
    fields["warp"][9] = 3
    fields["grid3"][9] = [0, 0, 0]
    fields["grid1"][4] = -1
    counts = run_kernel(fields, Window.full(CONFIG))
    assert counts[BAD_ROWS] == 2 and counts[FIRST_BAD_ROW] == 4


def test_the_kernel_checks_a_window_by_its_origin() -> None:
    # Window at x 1, z 1, 2 × 1 × 2: rows are (1,0,1), (2,0,1), (1,0,2), (2,0,2) of the table.
    window = Window((1, 0, 1), (2, 1, 2))
    full = good_record()
    rows = [5, 6, 9, 10]
    fields = {name: np.ascontiguousarray(full[name][rows]) for name in VERIFY_FIELDS}
    assert run_kernel(fields, window)[BAD_ROWS] == 0
    # The same rows read as if the window started at the origin: every row is off.
    assert run_kernel(fields, Window((0, 0, 0), (2, 1, 2)))[BAD_ROWS] == 4


def device_fields(fields: dict[str, np.ndarray]) -> dict[str, HostArray]:
    return {name: value.view(HostArray) for name, value in fields.items()}


def test_verify_on_device_reports_all_matched_for_a_good_record() -> None:
    result = verify_on_device(FAKE_CP, device_fields(good_record()), CONFIG, Window.full(CONFIG), 1)
    assert result.ok and (result.matched, result.total) == (12, 12)
    assert result.first_mismatch is None
    assert result.summary() == "12 of 12 threads match"


def test_verify_on_device_reports_a_corrupted_record() -> None:
    fields = good_record()
    fields["laneid"][8] = 16  # (0, 0, 2): lane 0 + 4 = 4
    fields["grid3"][11] = [3, 0, 0]
    result = verify_on_device(FAKE_CP, device_fields(fields), CONFIG, Window.full(CONFIG), 1)
    assert not result.ok and (result.matched, result.total) == (10, 12)
    assert result.mismatched_by_field["laneid"] == 1 and result.mismatched_by_field["grid3"] == 1
    assert result.mismatched_by_field["warp"] == 0
    first = result.first_mismatch
    assert first is not None
    assert (first.row, first.field, first.recorded, first.expected) == (8, "laneid", (16,), (4,))
    assert "10 of 12 threads match — MISMATCH in grid3 (1), laneid (1)" in result.summary()


def test_verify_on_device_of_an_empty_window() -> None:
    empty = {name: np.zeros((0, *good_record()[name].shape[1:]), dtype=good_record()[name].dtype)
             for name in VERIFY_FIELDS}  # fmt: skip
    result = verify_on_device(FAKE_CP, device_fields(empty), CONFIG, Window((0, 0, 0), (0, 1, 1)), 1)
    assert (result.matched, result.total) == (0, 0)


def test_lanes_past_16_of_a_48_thread_block() -> None:
    # One block (8, 2, 3): the row is the thread id (x + 8 y + 16 z), lane = row % 32 (0–31, then
    # 0–15), warp = row // 32. A verifier that took lanes mod 16 would call rows 16–31 wrong.
    config = LaunchConfig.of((1, 1, 1), (8, 2, 3))
    rows = np.arange(48)
    fields = {
        "threadIdx": np.stack([rows % 8, rows // 8 % 2, rows // 16], axis=1).astype(np.int32),
        "blockIdx": np.zeros((48, 3), dtype=np.int32),
        "grid1": rows % 8,
        "grid2": np.stack([rows % 8, rows // 8 % 2], axis=1),
        "grid3": np.stack([rows % 8, rows // 8 % 2, rows // 16], axis=1),
        "laneid": np.array([*range(32), *range(16)], dtype=np.int32),
        "warp": np.array([0] * 32 + [1] * 16, dtype=np.int32),
    }
    assert run_kernel(fields, Window.full(config), config)[BAD_ROWS] == 0
    assert verify_on_device(FAKE_CP, device_fields(fields), config, Window.full(config), 1).ok
    fields["laneid"][20] = 4  # 20 % 16
    counts = run_kernel(fields, Window.full(config), config)
    assert counts[BAD_ROWS] == 1 and counts[FIRST_BAD_ROW] == 20


def test_a_2d_window_is_checked_by_its_row_origin() -> None:
    # Grid (2, 2) × block (2, 2): 4 × 4 threads. The window at x 1, y 2, 2 × 2 holds the threads
    # (1, 2), (2, 2), (1, 3), (2, 3), x fastest. For (x, y): threadIdx (x % 2, y % 2), blockIdx
    # (x // 2, y // 2) — y 2 and 3 are block row 1 — and lane x % 2 + 2 (y % 2).
    config = LaunchConfig.of((2, 2, 1), (2, 2, 1))
    rows = [(1, 2), (2, 2), (1, 3), (2, 3)]
    fields = {
        "threadIdx": np.array([[x % 2, y % 2, 0] for x, y in rows], dtype=np.int32),
        "blockIdx": np.array([[x // 2, y // 2, 0] for x, y in rows], dtype=np.int32),
        "grid1": np.array([x for x, _ in rows], dtype=np.int64),
        "grid2": np.array(rows, dtype=np.int64),
        "grid3": np.array([[x, y, 0] for x, y in rows], dtype=np.int64),
        "laneid": np.array([1, 0, 3, 2], dtype=np.int32),
        "warp": np.zeros(4, dtype=np.int32),
    }
    counts = run_kernel(fields, Window((1, 2, 0), (2, 2, 1)), config)
    assert counts[:BAD_ROWS] == [0] * len(VERIFY_FIELDS) and counts[BAD_ROWS] == 0
    # Read as if the window started at row 0: y would be 0, 0, 1, 1 — block row 0, every
    # grid2/grid3 y wrong; threadIdx (same parity) and lanes still right.
    counts = run_kernel(fields, Window((1, 0, 0), (2, 2, 1)), config)
    by_field = dict(zip(VERIFY_FIELDS, counts[:BAD_ROWS], strict=True))
    assert by_field == {
        "threadIdx": 0, "blockIdx": 4, "grid1": 0, "grid2": 4, "grid3": 4, "laneid": 0, "warp": 0,
    }  # fmt: skip
    assert counts[BAD_ROWS] == 4 and counts[FIRST_BAD_ROW] == 0
