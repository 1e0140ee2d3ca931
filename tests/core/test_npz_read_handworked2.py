"""The checked .npz reader at two more boundaries, on .npy members written byte by byte: a header of
exactly numpy's 10,000-byte limit opens and one byte more is refused when the file is opened; a
header claiming exactly the bytes the archive holds for it is not "more than it holds" (so the
file opens) and its missing data is called damaged when it is read."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from simtviz.core.errors import RecordFileError
from simtviz.core.npz_read import CheckedNpz

DICT = "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }"  # 3 int32: 12 bytes of data


def npy_v1(header_text: str, header_len: int, data: bytes) -> bytes:
    """A version 1.0 .npy: magic (6) + version (2) + little-endian length (2) + the header,
    padded with spaces to ``header_len`` bytes and ended by a newline, then the data."""
    header = header_text + " " * (header_len - len(header_text) - 1) + "\n"
    assert len(header) == header_len
    return b"\x93NUMPY\x01\x00" + header_len.to_bytes(2, "little") + header.encode("latin1") + data


def npz(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for key, data in members.items():
            zf.writestr(f"{key}.npy", data)
    return path


def test_a_header_of_exactly_10000_bytes_opens_and_10001_is_refused_at_open(tmp_path: Path) -> None:
    data = (7).to_bytes(4, "little") + (8).to_bytes(4, "little") + (9).to_bytes(4, "little")
    at_limit = npz(tmp_path / "ok.npz", {"a": npy_v1(DICT, 10_000, data)})
    with CheckedNpz(at_limit, max_bytes=1_000) as checked:
        assert checked.members["a"].shape == (3,)
        assert checked.array("a").tolist() == [7, 8, 9]
    over = npz(tmp_path / "big.npz", {"a": npy_v1(DICT, 10_001, data)})
    # refused while the headers are read, before any array is asked for
    with pytest.raises(RecordFileError, match=r"damaged: a: Header info length \(10001\) is large"):
        CheckedNpz(over, max_bytes=1_000)


def test_a_claim_of_exactly_the_archives_bytes_opens_and_reads_as_damaged(tmp_path: Path) -> None:
    # A 118-byte header: 10 + 118 = 128 bytes in the archive, no data at all. It claims 128 uint8
    # (128 × 1 = 128 bytes): not more than the 128 the archive holds, so the file opens; the
    # 128 bytes of data are not there, which reading the member finds.
    header = "{'descr': '|u1', 'fortran_order': False, 'shape': (128,), }"
    path = npz(tmp_path / "short.npz", {"a": npy_v1(header, 118, b"")})
    with zipfile.ZipFile(path) as zf:
        assert zf.getinfo("a.npy").file_size == 128
    with CheckedNpz(path, max_bytes=1_000) as checked:
        assert checked.members["a"].nbytes == 128
        with pytest.raises(RecordFileError, match=r"short\.npz is damaged: a: "):
            checked.array("a")
    # one element more (129 bytes claimed) is more than the archive holds: refused at open
    path = npz(tmp_path / "lie.npz", {"a": npy_v1(header.replace("128", "129"), 118, b"")})
    with pytest.raises(
        RecordFileError, match=r"claims 129 bytes \(129 of uint8\) but the archive holds 128 bytes"
    ):
        CheckedNpz(path, max_bytes=1_000)
