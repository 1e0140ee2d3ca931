"""Record files at their edges, worked by hand: a member that holds no rows at all, the longest
backend name a record keeps, and members past the zip format's 32-bit size limit."""

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

# Launch grid (3, 5) × block (48, 2); a window x 46..49 (across the block edge 48), y 3..4: 8 rows.
CONFIG = LaunchConfig.of((3, 5, 1), (48, 2, 1))
WINDOW = Window((46, 3, 0), (4, 2, 1))


def record(backend: str = "sim") -> Recording:
    fields = allocate(8)
    fields["grid3"][:] = [[46 + r % 4, 3 + r // 4, 0] for r in range(8)]  # x fastest, then y
    return Recording(CONFIG, WINDOW, fields, backend)


def test_a_member_with_no_rows_is_named_with_zero_rows(tmp_path: Path) -> None:
    path = record().save_npz(tmp_path / "r.npz")
    with np.load(path) as data:
        arrays = dict(data)
    arrays["laneid"] = np.array(7, dtype=np.int32)  # a scalar: no rows at all
    np.savez(tmp_path / "scalar.npz", **arrays)
    # The window holds 4 × 2 × 1 = 8 threads; a 0-d member has 0 rows, not 1.
    with pytest.raises(RecordFileError, match=r"is damaged: laneid: 0 rows for 8 threads$"):
        load_npz(tmp_path / "scalar.npz")


def test_a_backend_name_of_64_characters_is_kept_and_65_is_refused(tmp_path: Path) -> None:
    # A name is stored as UTF-32: 64 characters × 4 bytes = 256 bytes, the most a record keeps.
    name = "gpu-" + "h" * 60
    back = load_npz(record(name).save_npz(tmp_path / "64.npz"))
    assert back.backend == name and len(name) == 64
    # 65 characters = 260 bytes.
    with pytest.raises(RecordFileError, match=r"backend: <U65 \(\) is not a short name"):
        load_npz(record(name + "x").save_npz(tmp_path / "65.npz"))


def test_members_past_the_zip_32_bit_limit_are_written_as_zip64(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A record of 90 million threads has a grid3 of 90e6 × 3 × 8 bytes = 2.16 GB, past the 2 GiB a
    # plain zip member may hold. Here the limit is lowered to 100 bytes instead: grid3's 8 × 3 × 8
    # = 192 bytes (and threadIdx's 8 × 3 × 4 = 96 + its .npy header) are past it.
    monkeypatch.setattr(zipfile, "ZIP64_LIMIT", 100)
    path = record().save_npz(tmp_path / "big.npz")
    with np.load(path) as data:
        assert data["grid3"][:, 0].tolist() == [46, 47, 48, 49, 46, 47, 48, 49]
        assert data["grid3"][:, 1].tolist() == [3, 3, 3, 3, 4, 4, 4, 4]
        assert data["blockDim"].tolist() == [48, 2, 1] and data["window_origin"].tolist() == [46, 3, 0]
