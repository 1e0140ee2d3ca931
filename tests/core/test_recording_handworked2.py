"""A record's export and opening at their edges, with hand-worked numbers: the progress an NPZ
export reports after each array, the CSV export's progress after its first 65,536 rows, which
exports reserve their size on the disk first (a full disk said before writing), and the size
cap on opening a record (a record of the default recording budget opens; one byte past the cap
is refused)."""

from __future__ import annotations

import errno
import io
import os
import struct
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from simtviz.core.errors import ExportError, RecordFileError
from simtviz.core.launch import LaunchConfig
from simtviz.core.recording import Recording, load_npz
from simtviz.core.schema import allocate
from simtviz.core.window import Window


def test_npz_export_reports_the_share_of_bytes_written_after_each_array(tmp_path: Path) -> None:
    # 4 threads; the arrays in the order written and their bytes: threadIdx 4 × 3 × 4 = 48,
    # blockIdx 48, grid1 4 × 8 = 32, grid2 4 × 2 × 8 = 64, grid3 4 × 3 × 8 = 96, laneid 4 × 4 = 16,
    # warp 16, smid 16, t_ns 4 × 8 = 32 (the fields: 4 × 92 = 368), then blockDim 3 × 8 = 24,
    # gridDim 24, backend "sim" 3 × 4 = 12, window_origin 24, window_size 24: 476 bytes in all.
    config = LaunchConfig.of(1, 4)
    rec = Recording(config, Window.full(config), allocate(4), "sim")
    seen: list[float] = []
    rec.save_npz(tmp_path / "r.npz", seen.append)
    done = [48, 96, 128, 192, 288, 304, 320, 336, 368, 392, 416, 428, 452, 476]
    assert seen == [d / 476 for d in done]
    assert seen[-1] == 1.0


def test_csv_export_reports_progress_after_each_65536_rows(tmp_path: Path) -> None:
    # 65,537 threads: the first report comes after 65,536 rows (65,536 / 65,537 = 0.99998),
    # the second after the last row; the file holds the header and one line per thread.
    rows = (1 << 16) + 1
    config = LaunchConfig.of(rows, 1)
    rec = Recording(config, Window.full(config), allocate(rows), "sim")
    seen: list[float] = []
    path = rec.save_csv(tmp_path / "r.csv", seen.append)
    assert seen == [65536 / 65537, 1.0]
    with open(path, "rb") as fh:
        assert sum(1 for _ in fh) == 65538


def _disk_full(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A disk that cannot reserve any size: each reservation asked for is noted, then refused."""
    asked: list[int] = []

    def refuse(fd: int, offset: int, length: int) -> None:
        asked.append(length)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "posix_fallocate", refuse)
    return asked


@pytest.mark.skipif(not hasattr(os, "posix_fallocate"), reason="no posix_fallocate")
def test_an_uncompressed_npz_reserves_its_size_and_a_full_disk_is_said_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A window of 2^20 + 1 threads is stored uncompressed; its fields here hold 1 row (92 bytes)
    # and the 5 small arrays 24 + 24 + 12 + 24 + 24 = 108 bytes: 14 arrays, 200 bytes, each
    # given 1,024 bytes of room: 200 + 14 × 1,024 = 14,536 bytes reserved, "about 15 KB".
    asked = _disk_full(monkeypatch)
    config = LaunchConfig.of(1 << 11, 1 << 10)
    rec = Recording(config, Window((0, 0, 0), ((1 << 20) + 1, 1, 1)), allocate(1), "sim")
    with pytest.raises(ExportError, match=r"is full \(the file needs about 15 KB"):
        rec.save_npz(tmp_path / "big.npz")
    assert asked == [14_536]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not hasattr(os, "posix_fallocate"), reason="no posix_fallocate")
def test_a_compressed_npz_reserves_nothing_and_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 4 threads (up to 2^20 are compressed): the size is not known before, so nothing is
    # reserved, and a disk that could not hold the uncompressed arrays still takes the file.
    asked = _disk_full(monkeypatch)
    config = LaunchConfig.of(1, 4)
    rec = Recording(config, Window.full(config), allocate(4), "sim")
    path = rec.save_npz(tmp_path / "small.npz")
    assert asked == [] and path.exists()


# --- the size cap on opening a record ---------------------------------------------------------


def _npy_header(shape: tuple[int, ...], dtype: str) -> bytes:
    fh = io.BytesIO()
    descr = np.lib.format.dtype_to_descr(np.dtype(dtype))
    np.lib.format.write_array_header_1_0(fh, {"descr": descr, "fortran_order": False, "shape": shape})
    return fh.getvalue()


def _npy(array: np.ndarray) -> bytes:
    fh = io.BytesIO()
    np.lib.format.write_array(fh, array, allow_pickle=False)
    return fh.getvalue()


def _claiming_npz(path: Path, claimed: dict[str, tuple[tuple[int, ...], str]], real: dict[str, Any]) -> None:
    """An .npz whose ``claimed`` members hold only their .npy header while the zip's directory
    says each holds its whole array (so the size checks, made from the headers and the
    directory, see a file of that size without it being written); ``real`` members are whole."""
    sizes = {}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, (shape, dtype) in claimed.items():
            header = _npy_header(shape, dtype)
            zf.writestr(f"{name}.npy", header)
            sizes[f"{name}.npy"] = len(header) + int(np.prod(shape)) * np.dtype(dtype).itemsize
        for name, array in real.items():
            zf.writestr(f"{name}.npy", _npy(np.asarray(array)))
    data = bytearray(path.read_bytes())
    end = data.rfind(b"PK\x05\x06")  # end of central directory: entry count, directory offset
    (count,) = struct.unpack_from("<H", data, end + 10)
    (at,) = struct.unpack_from("<I", data, end + 16)
    for _ in range(count):
        assert data[at : at + 4] == b"PK\x01\x02"
        n, m, k = struct.unpack_from("<HHH", data, at + 28)
        name = data[at + 46 : at + 46 + n].decode()
        if name in sizes:
            struct.pack_into("<I", data, at + 24, sizes[name])  # the uncompressed size
        at += 46 + n + m + k
    path.write_bytes(bytes(data))


THREADS = 1 << 22  # the default recording budget: 4,096 blocks of 1,024


def _budget_record(path: Path, extra_bytes: int) -> Path:
    # Every field claims 4,194,304 rows (t_ns as float64, so that opening stops, after the size
    # cap, at the first header check that reads it), and ``extra_bytes`` of an unknown member.
    claimed = {
        "threadIdx": ((THREADS, 3), "int32"),
        "blockIdx": ((THREADS, 3), "int32"),
        "grid1": ((THREADS,), "int64"),
        "grid2": ((THREADS, 2), "int64"),
        "grid3": ((THREADS, 3), "int64"),
        "laneid": ((THREADS,), "int32"),
        "warp": ((THREADS,), "int32"),
        "smid": ((THREADS,), "int32"),
        "t_ns": ((THREADS,), "float64"),
        "extra": ((extra_bytes,), "uint8"),
    }
    real = {"gridDim": np.array([4096, 1, 1]), "blockDim": np.array([1024, 1, 1]), "backend": np.array("sim")}
    _claiming_npz(path, claimed, real)
    return path


def test_a_record_of_the_default_budget_opens_up_to_the_cap_and_one_byte_more_is_refused(
    tmp_path: Path,
) -> None:
    # Fields: 4,194,304 × 92 = 385,875,968 bytes; gridDim 24 + blockDim 24 + backend "sim" 12 =
    # 60 more: 385,876,028. The cap is 385,875,968 + 4,096 = 385,880,064, so 4,036 extra bytes
    # reach it exactly (the size passes and t_ns's type is named) and 4,037 are one too many.
    at_cap = _budget_record(tmp_path / "at_cap.npz", 4_036)
    with pytest.raises(RecordFileError, match=r"is damaged: t_ns: float64 \(4194304,\) where a record"):
        load_npz(at_cap)
    over = _budget_record(tmp_path / "over.npz", 4_037)
    with pytest.raises(RecordFileError, match=r"holds 386 MB of arrays \(grid3 alone 101 MB\), more than"):
        load_npz(over)
