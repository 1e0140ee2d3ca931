"""Reading an .npz someone handed us, checked from its headers before anything is decompressed.

A record or schedule file may come from anyone. ``np.load`` allocates what a member's .npy header
claims before reading a byte of it, so a 3 MB zip whose header claims 12 GB made the app ask for
12 GB. Here the file's kind is checked first (a pipe or a device is refused without opening it),
then every member's .npy header (shape, dtype) is read, a few hundred bytes each, and compared
with the size the zip says it holds and with the caller's total cap; only then are arrays read,
never unpickled. Every failure is a ``RecordFileError`` in words.
"""

from __future__ import annotations

import math
import os
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from simtviz.core.errors import RecordFileError
from simtviz.core.files import format_bytes, read_kind

NPY_MAGIC = b"\x93NUMPY"
MAX_HEADER = 10_000  # bytes of an .npy header; numpy's own default limit


@dataclass(frozen=True)
class Member:
    name: str  # the key (``laneid`` for ``laneid.npy``)
    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    fortran: bool

    @property
    def nbytes(self) -> int:  # Python integers: a claimed shape of 2^62 does not overflow
        return math.prod(self.shape) * self.dtype.itemsize


class CheckedNpz:
    """The members of an .npz and their headers; ``array(key)`` reads one (never pickled)."""

    def __init__(self, path: str | Path, max_bytes: int, what: str = "record") -> None:
        self.path = Path(path)
        self.zip = _open_zip(self.path)
        try:
            self.members, sizes = _headers(self.path, self.zip)
            total = sum(m.nbytes for m in self.members.values())
            if total > max_bytes:
                big = max(self.members.values(), key=lambda m: m.nbytes)
                raise RecordFileError(
                    f"{self.path} holds {format_bytes(total)} of arrays ({big.name} alone "
                    f"{format_bytes(big.nbytes)}), more than the {format_bytes(max_bytes)} "
                    f"simtviz opens as a {what}"
                )
            for key, member in self.members.items():
                _check_claim(self.path, member, sizes[key])
        except BaseException:
            self.zip.close()
            raise

    @property
    def files(self) -> list[str]:
        return list(self.members)

    def __contains__(self, key: str) -> bool:
        return key in self.members

    def array(self, key: str) -> np.ndarray:
        member = self.members[key]
        try:
            with self.zip.open(f"{key}.npy") as fh:
                array = np.lib.format.read_array(fh, allow_pickle=False)
        except RecordFileError:
            raise
        except MemoryError as exc:
            raise RecordFileError(f"{self.path}: {key} does not fit in memory") from exc
        except Exception as exc:  # zlib, EOF, a CRC, numpy's own checks: all mean damaged
            raise RecordFileError(f"{self.path} is damaged: {key}: {exc}") from exc
        if array.shape != member.shape:
            raise RecordFileError(f"{self.path} is damaged: {key}: shape {array.shape} read")
        return array

    def close(self) -> None:
        self.zip.close()

    def __enter__(self) -> CheckedNpz:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _open_zip(path: Path) -> zipfile.ZipFile:
    try:
        st = os.stat(path)
    except OSError as exc:
        raise RecordFileError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if not stat.S_ISREG(st.st_mode):  # a pipe would block the open forever; a device never ends
        raise RecordFileError(f"cannot read {path}: it is {read_kind(st.st_mode)}")
    try:
        with open(path, "rb") as fh:
            head = fh.read(len(NPY_MAGIC))
        if head == NPY_MAGIC:
            raise RecordFileError(f"{path} holds a single array (.npy), not a simtviz record (.npz)")
        return zipfile.ZipFile(path)
    except RecordFileError:
        raise
    except OSError as exc:
        if isinstance(exc, zipfile.BadZipFile):
            raise RecordFileError(f"{path} is not a NumPy .npz archive") from exc
        raise RecordFileError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except Exception as exc:  # BadZipFile, ValueError, EOFError, NotImplementedError (compression)
        raise RecordFileError(f"{path} is not a NumPy .npz archive") from exc


def _headers(path: Path, zf: zipfile.ZipFile) -> tuple[dict[str, Member], dict[str, int]]:
    """Each member's header, and the bytes the zip says it holds uncompressed."""
    members: dict[str, Member] = {}
    sizes: dict[str, int] = {}
    for info in zf.infolist():
        if not info.filename.endswith(".npy"):
            continue  # np.savez writes only .npy members; anything else is not ours to read
        key = info.filename[: -len(".npy")]
        try:
            with zf.open(info) as fh:
                member = _header(key, fh)
        except RecordFileError:
            raise
        except Exception as exc:
            raise RecordFileError(f"{path} is damaged: {key}: {exc}") from exc
        if member.dtype.hasobject:
            raise RecordFileError(f"{path}: {key} holds Python objects, which simtviz never loads")
        members[key] = member
        sizes[key] = info.file_size
    return members, sizes


def _check_claim(path: Path, member: Member, file_size: int) -> None:
    """The zip's own size for a member bounds what it can hold: a header claiming more is a lie
    (a zip bomb's or a damaged file's), found before a byte of its data is decompressed."""
    if member.nbytes > file_size:
        raise RecordFileError(
            f"{path} is damaged: {member.name}: its header claims {format_bytes(member.nbytes)} "
            f"({' × '.join(f'{d:,}' for d in member.shape) or 'one'} of {member.dtype}) but the "
            f"archive holds {format_bytes(file_size)} for it"
        )


def _header(key: str, fh: IO[bytes]) -> Member:
    version = np.lib.format.read_magic(fh)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh, max_header_size=MAX_HEADER)
    elif version in ((2, 0), (3, 0)):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh, max_header_size=MAX_HEADER)
    else:
        raise ValueError(f".npy version {version} is not one numpy writes")
    if any(not isinstance(d, int) or d < 0 for d in shape):
        raise ValueError(f"shape {shape} is not a shape")
    return Member(key, tuple(shape), np.dtype(dtype), bool(fortran))
