"""The checked .npz reader on files made by hand: the size limit at exactly its value, .npy
headers of versions 2.0 and 3.0, an empty array, and a header claiming a negative shape."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pytest

from simtviz.core.errors import RecordFileError
from simtviz.core.npz_read import CheckedNpz


def npz(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for key, data in members.items():
            zf.writestr(f"{key}.npy", data)
    return path


def npy(array: np.ndarray, version: tuple[int, int] = (1, 0)) -> bytes:
    fh = io.BytesIO()
    np.lib.format.write_array(fh, array, version=version, allow_pickle=False)
    return fh.getvalue()


def test_arrays_of_exactly_the_limit_open_and_one_byte_more_is_refused(tmp_path: Path) -> None:
    path = npz(tmp_path / "a.npz", {"a": npy(np.arange(4, dtype=np.int32))})  # 4 x 4 bytes = 16
    checked = CheckedNpz(path, max_bytes=16)
    assert "a" in checked and "b" not in checked and checked.files == ["a"]
    assert checked.array("a").tolist() == [0, 1, 2, 3]
    with pytest.raises(RecordFileError, match="more than the 15"):
        CheckedNpz(path, max_bytes=15)


@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)])
def test_every_npy_header_version_numpy_writes_is_read(tmp_path: Path, version: tuple[int, int]) -> None:
    path = npz(tmp_path / "v.npz", {"a": npy(np.array([7, 8], dtype=np.int64), version)})
    assert CheckedNpz(path, max_bytes=1_000).array("a").tolist() == [7, 8]


def test_an_empty_array_is_a_shape_like_any_other(tmp_path: Path) -> None:
    path = npz(tmp_path / "e.npz", {"a": npy(np.zeros((0, 3), dtype=np.float32))})
    checked = CheckedNpz(path, max_bytes=1_000)
    assert checked.members["a"].shape == (0, 3)


def test_a_header_claiming_a_negative_dimension_is_damaged(tmp_path: Path) -> None:
    fh = io.BytesIO()
    fh.write(b"\x93NUMPY\x01\x00")
    header = "{'descr': '<i4', 'fortran_order': False, 'shape': (-1,), }"
    header += " " * (64 - 10 - len(header) - 1) + "\n"  # magic 6 + version 2 + length 2, padded to 64
    fh.write(len(header).to_bytes(2, "little") + header.encode("latin1"))
    fh.write(b"\0" * 16)
    path = npz(tmp_path / "n.npz", {"a": fh.getvalue()})
    with pytest.raises(RecordFileError, match=r"damaged: a: shape \(-1,\) is not a shape"):
        CheckedNpz(path, max_bytes=1_000)
