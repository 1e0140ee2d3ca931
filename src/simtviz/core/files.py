"""Writing files so that a failure never leaves a half-written one behind."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any


class ExportError(OSError):
    """The file could not be written; nothing was left at the destination."""


def atomic_write(path: str | Path, write: Callable[[IO[Any]], None], mode: str = "wb") -> Path:
    """Write through ``write(fh)`` into a temporary file beside ``path``, then rename it over.

    On any failure the temporary file is removed and ``ExportError`` names the path and why.
    """
    target = Path(path).expanduser()
    directory = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=directory)
    except OSError as exc:
        raise ExportError(f"cannot write {target}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, mode) as fh:
            write(fh)
            fh.flush()
            os.fchmod(fh.fileno(), 0o666 & ~current_umask())  # mkstemp's 0600 would hide it from others
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
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
