"""Writing files so that a failure never leaves a half-written one behind, nor replaces a device.

A regular file (or a new path) is written to a temporary file beside it and renamed over it.
Anything else is never renamed over: a character device (``/dev/null``) or a pipe (a FIFO, or
``/dev/stdout`` piped into another program) is written through, as ``cat > PATH`` would; a
folder, a disk device or a socket is refused, saying what it is.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any


class ExportError(OSError):
    """The file could not be written; nothing was left at the destination."""


def format_bytes(n: int) -> str:
    """``3.7 MB``, ``64 KB``, ``512 bytes`` (decimal units, as file managers show them)."""
    if n < 1000:
        return f"{n:,} bytes"
    for unit, scale in (("KB", 1e3), ("MB", 1e6), ("GB", 1e9), ("TB", 1e12)):
        if n < scale * 1000 or unit == "TB":
            value = n / scale
            return f"{value:.1f} {unit}" if value < 10 else f"{value:,.0f} {unit}"
    raise AssertionError("unreachable")


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words, when it must not be written to; None when it may."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISBLK(mode):
        return "a disk device (writing it would overwrite the disk)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return None


def _free_bytes(folder: Path) -> int | None:
    try:
        st = os.statvfs(folder)
    except (OSError, AttributeError):
        return None
    return st.f_bavail * st.f_frsize


def _no_space(target: Path, folder: Path, needed: int | None, written: int | None) -> ExportError:
    free = _free_bytes(folder)
    parts = [f"cannot write {target}: No space left on device — the disk holding {folder} is full"]
    facts = []
    if needed is not None:
        facts.append(f"the file needs about {format_bytes(needed)}")
    elif written:
        facts.append(f"{format_bytes(written)} were written before it filled")
    if free is not None:
        facts.append(f"{format_bytes(free)} {'is' if free == 1 else 'are'} free")
    text = parts[0] + (f" ({', '.join(facts)})" if facts else "")
    return ExportError(text + "; free some space or choose another disk")


def check_writable(path: str | Path) -> Path:
    """Raise ``ExportError`` now if ``path`` cannot be written (before an expensive run)."""
    target = Path(path).expanduser()
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise ExportError(f"cannot write {target}: {exc.strerror or exc}") from exc
    if st is not None:
        kind = _kind(st.st_mode)
        if kind:
            raise ExportError(f"cannot write {target}: it is {kind}")
        if not stat.S_ISREG(st.st_mode):
            if not os.access(target, os.W_OK):
                raise ExportError(f"cannot write {target}: permission denied")
            return target
    folder = _folder_of(target)
    if not folder.is_dir():
        raise ExportError(f"cannot write {target}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ExportError(f"cannot write {target}: the folder {folder} is not writable")
    return target


def _folder_of(target: Path) -> Path:
    # A symlink to a regular file is written where it points: the link itself stays.
    real = Path(os.path.realpath(target)) if target.is_symlink() else target
    return real.parent if str(real.parent) else Path(".")


def _write_through(target: Path, st: os.stat_result, write: Callable[[IO[Any]], object], mode: str) -> Path:
    """Write into a character device or a pipe as it is; it is never replaced."""
    flags = os.O_WRONLY  # os.open's descriptors are close-on-exec already (PEP 446)
    pipe = stat.S_ISFIFO(st.st_mode)  # O_NONBLOCK is read for a pipe only: Windows has neither
    if pipe:
        flags |= os.O_NONBLOCK  # opening a pipe nobody reads would wait forever
    try:
        fd = os.open(target, flags)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise ExportError(f"cannot write {target}: it is a pipe and no program is reading it") from exc
        raise ExportError(f"cannot write {target}: {exc.strerror or exc}") from exc
    if pipe:
        os.set_blocking(fd, True)
    what = "pipe" if pipe else "device"
    try:
        with os.fdopen(fd, mode) as fh:
            write(fh)
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise ExportError(f"cannot write {target}: the {what} refused the data (it is full)") from exc
        raise ExportError(
            f"cannot write {target}: the {what} refused the data ({exc.strerror or exc})"
        ) from exc
    return target


def atomic_write(
    path: str | Path,
    write: Callable[[IO[Any]], object],
    mode: str = "wb",
    size_hint: int | None = None,
) -> Path:
    """Write through ``write(fh)`` into a temporary file beside ``path``, then rename it over.

    ``size_hint`` (bytes the file will take, when known) is reserved before writing, so that a
    full disk is found before the work and said with the sizes. On any failure the temporary file
    is removed and ``ExportError`` names the path and why. A character device or a pipe at
    ``path`` is written through instead; a folder, disk device or socket is refused.
    """
    target = Path(path).expanduser()
    try:
        st: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise ExportError(f"cannot write {target}: {exc.strerror or exc}") from exc
    if st is not None and not stat.S_ISREG(st.st_mode):
        kind = _kind(st.st_mode)
        if kind:
            raise ExportError(f"cannot write {target}: it is {kind}")
        return _write_through(target, st, write, mode)
    # Over a regular file: rename beside where it really is, so a symlink keeps pointing at it.
    real = Path(os.path.realpath(target)) if target.is_symlink() else target
    directory = _folder_of(target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".part", dir=directory)
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise _no_space(target, directory, size_hint, None) from exc
        raise ExportError(f"cannot write {target}: {exc.strerror or exc}") from exc
    written = None
    try:
        if size_hint and hasattr(os, "posix_fallocate"):
            try:
                os.posix_fallocate(fd, 0, size_hint)
            except OSError as exc:
                if exc.errno == errno.ENOSPC:
                    raise
                # EINVAL / EOPNOTSUPP: this file system cannot reserve; find out while writing.
        with os.fdopen(fd, mode) as fh:
            write(fh)
            fh.flush()
            written = fh.tell()
            if size_hint:
                os.ftruncate(fh.fileno(), written)  # give back what was reserved and not used
            os.fchmod(fh.fileno(), 0o666 & ~current_umask())  # mkstemp's 0600 would hide it from others
            os.fsync(fh.fileno())
        os.replace(tmp, real)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            written = written or os.stat(tmp).st_size
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            if exc.errno == errno.ENOSPC or exc.errno == errno.EDQUOT:
                raise _no_space(target, directory, size_hint, written) from exc
            raise ExportError(f"cannot write {target}: {exc.strerror or exc}") from exc
        raise
    return target


def current_umask() -> int:
    """The process's umask, read without changing it where Linux allows (/proc), since setting
    it to read it back races with other threads creating files."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


class FileReadError(OSError):
    """A file the user asked to open is not one simtviz reads: its kind, size or text, in words."""


KERNEL_FILE_LIMIT = 1_000_000  # a student's kernel file: 1 MB is far beyond any lesson's


def read_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a file"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def read_user_file(path: str | Path, limit: int) -> bytes:
    """The bytes of the regular file at ``path`` (symlinks followed), refused by kind and size
    BEFORE anything is read: a pipe, a device (``/dev/zero`` through a link), a folder or a file
    over ``limit`` bytes raises ``FileReadError`` at once, so the caller never waits on it."""
    target = Path(path).expanduser()
    try:
        st = os.stat(target)
    except OSError as exc:
        raise FileReadError(f"cannot read {target}: {exc.strerror or exc}") from exc
    if not stat.S_ISREG(st.st_mode):
        raise FileReadError(f"cannot read {target}: it is {read_kind(st.st_mode)}")
    _check_size(target, st.st_size, limit)
    # O_NONBLOCK: should the path turn into a pipe between stat and open, open returns at once.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(target, flags)
    except OSError as exc:
        raise FileReadError(f"cannot read {target}: {exc.strerror or exc}") from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FileReadError(f"cannot read {target}: it is {read_kind(st.st_mode)}")
        _check_size(target, st.st_size, limit)
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        _check_size(target, total, limit)  # it grew while being read
        return b"".join(chunks)
    except OSError as exc:
        if isinstance(exc, FileReadError):
            raise
        raise FileReadError(f"cannot read {target}: {exc.strerror or exc}") from exc
    finally:
        os.close(fd)


def _check_size(target: Path, size: int, limit: int) -> None:
    if size > limit:
        raise FileReadError(
            f"cannot read {target}: it is {format_bytes(size)}, more than the {format_bytes(limit)} "
            "simtviz reads for this kind of file"
        )


def read_user_text(path: str | Path, limit: int = KERNEL_FILE_LIMIT) -> str:
    """``read_user_file`` decoded as UTF-8 (a byte-order mark is dropped); undecodable text is
    refused in words."""
    data = read_user_file(path, limit)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileReadError(
            f"cannot read {Path(path).expanduser()}: it is not UTF-8 text (byte {exc.start:,} is "
            f"0x{data[exc.start]:02x}); save it as UTF-8 and open it again"
        ) from exc
