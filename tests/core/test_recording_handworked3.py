"""A record at more edges, worked by hand: which map cell a thread of a window that does not start
at 0 is drawn in (its first and last threads, one past each end), the row counts a damaged
record file is refused with, and the longest backend name a record file may hold (64
characters)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

from simtviz.core.errors import RecordFileError
from simtviz.core.launch import LaunchConfig
from simtviz.core.recording import Recording, load_npz
from simtviz.core.schema import allocate
from simtviz.core.window import Window

# grid (2, 3, 4) × block (5, 4, 3): the launch's extent is (10, 12, 12) threads.
THREE_D = LaunchConfig.of((2, 3, 4), (5, 4, 3))
# A window from thread (2, 3, 4) of 4 × 5 × 6 threads: x 2–5, y 3–7, z 4–9.
WINDOW = Window((2, 3, 4), (4, 5, 6))


def test_a_window_s_threads_are_drawn_from_its_origin_and_none_outside() -> None:
    rec = Recording(THREE_D, WINDOW, allocate(WINDOW.threads), "sim")
    # (plane, row, column) = (z - 4, y - 3, x - 2)
    assert rec.cell_of((2, 3, 4)) == (0, 0, 0)  # the window's first thread
    assert rec.cell_of((5, 7, 9)) == (5, 4, 3)  # its last: (9 - 4, 7 - 3, 5 - 2)
    assert rec.cell_of((3, 5, 6)) == (2, 2, 1)  # (6 - 4, 5 - 3, 3 - 2)
    # one before the first and one past the last along each axis: not in the window
    for outside in [(1, 3, 4), (2, 2, 4), (2, 3, 3), (6, 7, 9), (5, 8, 9), (5, 7, 10)]:
        assert rec.cell_of(outside) is None, outside


def test_a_1d_window_s_threads_are_drawn_one_row_per_block() -> None:
    # grid 6 × block 4: a window of blocks 2–4 is threads 8–19; thread 13 is block 3 lane 1,
    # the window's second block: row 13 // 4 - 2 = 1, column 13 % 4 = 1.
    config = LaunchConfig.of(6, 4)
    rec = Recording(config, Window((8, 0, 0), (12, 1, 1)), allocate(12), "sim")
    assert rec.cell_of((13, 0, 0)) == (0, 1, 1)
    assert rec.cell_of((8, 0, 0)) == (0, 0, 0)
    assert rec.cell_of((19, 0, 0)) == (0, 2, 3)
    assert rec.cell_of((7, 0, 0)) is None and rec.cell_of((20, 0, 0)) is None


def _write(path: Path, arrays: dict[str, np.ndarray]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for key, value in arrays.items():
            with z.open(f"{key}.npy", "w") as fh:
                np.lib.format.write_array(fh, value, allow_pickle=False)
    return path


def _arrays(threads: int, backend: str = "sim") -> dict[str, np.ndarray]:
    # A launch of 1 block of ``threads`` threads, every field -1 (allocate's fill).
    out = dict(allocate(threads))
    out["gridDim"] = np.array([1, 1, 1], dtype=np.int64)
    out["blockDim"] = np.array([threads, 1, 1], dtype=np.int64)
    out["backend"] = np.array(backend)
    return out


def test_a_field_of_the_wrong_row_count_is_refused_with_both_counts(tmp_path: Path) -> None:
    # 6 threads; threadIdx holds 5 rows of (x, y, z): "5 rows for 6 threads"
    arrays = _arrays(6)
    arrays["threadIdx"] = np.zeros((5, 3), dtype=np.int32)
    with pytest.raises(RecordFileError) as refused:
        load_npz(_write(tmp_path / "short.npz", arrays))
    assert str(refused.value) == f"{tmp_path / 'short.npz'} is damaged: threadIdx: 5 rows for 6 threads"
    # laneid, one number per thread, holds 7: "7 rows for 6 threads"
    arrays = _arrays(6)
    arrays["laneid"] = np.zeros(7, dtype=np.int32)
    with pytest.raises(RecordFileError) as refused:
        load_npz(_write(tmp_path / "long.npz", arrays))
    assert str(refused.value) == f"{tmp_path / 'long.npz'} is damaged: laneid: 7 rows for 6 threads"
    # warp a single number, no rows at all: "0 rows for 6 threads"
    arrays = _arrays(6)
    arrays["warp"] = np.array(0, dtype=np.int32)
    with pytest.raises(RecordFileError) as refused:
        load_npz(_write(tmp_path / "scalar.npz", arrays))
    assert str(refused.value) == f"{tmp_path / 'scalar.npz'} is damaged: warp: 0 rows for 6 threads"


def test_a_backend_name_of_64_characters_opens_and_65_is_refused(tmp_path: Path) -> None:
    # Stored as UTF-32: 64 characters × 4 bytes = 256 bytes, the most a name may take; 65 × 4 = 260.
    name = "gpu " + "x" * 60
    rec = load_npz(_write(tmp_path / "64.npz", _arrays(4, name)))
    assert rec.backend == name and len(name) == 64
    with pytest.raises(RecordFileError, match=r"backend: <U65 \(\) is not a short name"):
        load_npz(_write(tmp_path / "65.npz", _arrays(4, name + "x")))


@pytest.mark.parametrize(
    ("backend", "words"),
    [
        (np.array(7, dtype=np.int64), "backend: int64 () is not a short name"),  # a number, not a name
        (np.array(["sim", "gpu"]), "backend: <U3 (2,) is not a short name"),  # two names
    ],
)
def test_a_backend_that_is_not_one_name_is_refused(tmp_path: Path, backend: np.ndarray, words: str) -> None:
    arrays = _arrays(4)
    arrays["backend"] = backend
    with pytest.raises(RecordFileError) as refused:
        load_npz(_write(tmp_path / "odd.npz", arrays))
    assert str(refused.value).endswith(words)


def test_a_member_past_the_zip_s_2_gib_limit_is_saved_and_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A zip member over 2 GiB needs the zip64 format (a --budget of 90 million threads makes
    # grid3 90e6 × 24 bytes = 2.2 GB). The limit is lowered to 1,000 bytes here so that a record
    # of 64 threads crosses it: grid3 is 64 × 3 × 8 = 1,536 bytes, threadIdx 64 × 3 × 4 = 768.
    monkeypatch.setattr(zipfile, "ZIP64_LIMIT", 1000)
    config = LaunchConfig.of(2, 32)
    path = Recording(config, Window.full(config), allocate(64), "sim").save_npz(tmp_path / "big.npz")
    back = load_npz(path)
    assert back.fields["grid3"].shape == (64, 3) and int(back.fields["grid3"].min()) == -1
    assert back.backend == "sim" and back.window == Window((0, 0, 0), (64, 1, 1))
