"""The user's files at edges the first hand-worked file leaves: a file that grows between two
reads, a platform without ``O_NONBLOCK``/``O_CLOEXEC`` (Windows), and a link's own kind in words.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from simtviz.core.files import FileReadError, atomic_write, read_kind, read_user_file


def test_a_file_that_grows_between_two_reads_is_read_no_further_than_one_byte_past_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A program is still writing the file: 4 bytes when looked at and at the first read, then 26
    # more before the second. Limit 10: the first read asks for 10 + 1 = 11 and gets the 4 there
    # are; the second asks for the 11 - 4 = 7 still needed to tell "over the limit", so 11 bytes
    # are taken in all (never the whole 30) and the message says 11.
    path = tmp_path / "growing.py"
    path.write_bytes(b"abcd")
    real_read = os.read
    taken: list[int] = []

    def read_then_grow(fd: int, n: int) -> bytes:
        chunk = real_read(fd, n)
        if not taken:
            with open(path, "ab") as fh:
                fh.write(b"E" * 26)
        taken.append(len(chunk))
        return chunk

    monkeypatch.setattr(os, "read", read_then_grow)
    with pytest.raises(FileReadError) as info:
        read_user_file(path, 10)
    assert taken == [4, 7]
    assert str(info.value) == (
        f"cannot read {path}: it is 11 bytes, more than the 10 bytes simtviz reads for this kind of file"
    )


def test_without_o_nonblock_and_o_cloexec_a_file_is_still_read_and_dev_null_still_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Windows' os module has neither flag; they must fall back to "no flag" (0), never to a
    # bit of their own (bit 1 is O_WRONLY: the file would be opened for writing and not read).
    monkeypatch.delattr(os, "O_NONBLOCK")
    monkeypatch.delattr(os, "O_CLOEXEC")
    path = tmp_path / "kernel.py"
    path.write_bytes(b"x = 1\n")
    os.chmod(path, 0o444)  # read-only, as a handed-out file may be
    assert read_user_file(path, 100) == b"x = 1\n"
    # A character device is written through; only a pipe needs O_NONBLOCK.
    assert atomic_write("/dev/null", lambda fh: fh.write(b"thrown away")) == Path("/dev/null")


def test_a_link_itself_is_said_to_be_not_a_regular_file(tmp_path: Path) -> None:
    # read_kind names what a path is; a link's own mode (lstat) is none of the kinds it names.
    link = tmp_path / "link.py"
    link.symlink_to(tmp_path / "elsewhere.py")
    mode = os.lstat(link).st_mode
    assert stat.S_ISLNK(mode)
    assert read_kind(mode) == "not a regular file"
