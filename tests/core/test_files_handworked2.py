"""The user's files at their edges, with hand-worked sizes and the words a user reads.

Reading (a kernel file, a record): a file of exactly the limit is read whole and one byte more
is refused; a file past the 1 MB read chunk comes back whole; a file that grows while it is
opened is refused, never cut short; a pipe, a device, a socket and a folder are each named.
Writing (an export): the sizes a message shows, a pipe whose reader is slower than the export,
a write that fails for a reason other than a full disk (not called "full"), a file that fits the
free space exactly, a read-only disk, a disk device and a socket in the way.

Device nodes and read-only disks are made inside a private mount namespace (``private_fs``).
"""

from __future__ import annotations

import errno
import fcntl
import os
import socket
import stat
import struct
import termios
import threading
import time
from pathlib import Path

import pytest

from private_fs import run_private
from simtviz.core import files
from simtviz.core.files import (
    ExportError,
    FileReadError,
    atomic_write,
    check_writable,
    current_umask,
    format_bytes,
    read_user_file,
    read_user_text,
)

# --- sizes in words ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "words"),
    [
        (512, "512 bytes"),
        (999, "999 bytes"),  # the last size in bytes
        (1_000, "1.0 KB"),  # 1,000 / 1,000 = 1.0: decimal units, as file managers show them
        (9_999, "10.0 KB"),  # 9.999 < 10: one decimal, rounded up to 10.0
        (10_000, "10 KB"),  # 10,000 / 1,000 = 10: from 10 on, no decimal
        (999_499, "999 KB"),  # 999.499 KB still < 1,000 KB
        (1_000_000, "1.0 MB"),  # 1,000 KB is said as 1.0 MB
        (3_700_000, "3.7 MB"),
        (1_000_000_000, "1.0 GB"),
        (2_500_000_000_000_000, "2,500 TB"),  # past TB there is no larger unit: 2.5e15 / 1e12
    ],
)
def test_sizes_in_words(n: int, words: str) -> None:
    assert format_bytes(n) == words


# --- reading: sizes at the limit ---------------------------------------------------------------


def test_a_file_of_exactly_the_limit_is_read_whole_and_one_byte_more_is_refused(tmp_path: Path) -> None:
    exact = tmp_path / "exact.py"
    exact.write_bytes(b"0123456789")  # 10 bytes, the limit
    assert read_user_file(exact, 10) == b"0123456789"
    over = tmp_path / "over.py"
    over.write_bytes(b"0123456789A")  # 11 bytes
    with pytest.raises(FileReadError) as info:
        read_user_file(over, 10)
    assert str(info.value) == (
        f"cannot read {over}: it is 11 bytes, more than the 10 bytes simtviz reads for this kind of file"
    )


def test_a_file_longer_than_one_read_chunk_comes_back_whole(tmp_path: Path) -> None:
    # 1,500,000 bytes: the first read takes 2^20 = 1,048,576, the second the other 451,424.
    data = bytes(range(250)) * 6_000
    path = tmp_path / "kernel.py"
    path.write_bytes(data)
    got = read_user_file(path, 2_000_000)
    assert len(got) == 1_500_000 and got == data


def test_a_file_that_grows_while_it_is_opened_is_refused_not_cut_short(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Exactly the limit, 2^20 = 1,048,576 bytes, when looked at; one byte more once it is open
    # (a program still writing it). The first read takes 2^20 bytes: all the limit allows;
    # the next finds the extra byte, so the file is refused rather than handed back truncated.
    limit = 1 << 20
    path = tmp_path / "growing.py"
    path.write_bytes(b"x" * limit)
    real_fstat = os.fstat
    grown: list[bool] = []

    def fstat_then_grow(fd: int) -> os.stat_result:
        st = real_fstat(fd)
        if not grown:
            grown.append(True)
            with open(path, "ab") as fh:
                fh.write(b"!")
        return st

    monkeypatch.setattr(os, "fstat", fstat_then_grow)
    with pytest.raises(FileReadError, match=r"it is 1\.0 MB, more than the 1\.0 MB simtviz reads"):
        read_user_file(path, limit)
    assert grown == [True]


def test_text_is_utf8_and_a_byte_order_mark_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_bytes(b"\xef\xbb\xbf# caf\xc3\xa9\n")  # BOM, then "# café" (é = C3 A9)
    assert read_user_text(path) == "# café\n"


# --- reading: what is not a regular file is named ----------------------------------------------


def test_a_pipe_is_refused_before_anything_waits_on_it(tmp_path: Path) -> None:
    fifo = tmp_path / "k.py"
    os.mkfifo(fifo)
    with pytest.raises(FileReadError) as info:
        read_user_file(fifo, 1_000)
    assert str(info.value) == f"cannot read {fifo}: it is a pipe (FIFO)"


def test_a_link_to_a_device_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "k.py"
    link.symlink_to("/dev/zero")  # endless zeros: refused by its kind, before a byte is read
    with pytest.raises(FileReadError) as info:
        read_user_file(link, 1_000)
    assert str(info.value) == f"cannot read {link}: it is a device, not a file"


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileReadError) as info:
        read_user_file(tmp_path, 1_000)
    assert str(info.value) == f"cannot read {tmp_path}: it is a folder"


def test_a_socket_is_refused_both_to_read_and_to_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a relative name: socket paths are limited to 107 bytes
    with socket.socket(socket.AF_UNIX) as server:
        server.bind("out.npz")
        path = tmp_path / "out.npz"
        with pytest.raises(FileReadError) as read_info:
            read_user_file(path, 1_000)
        assert str(read_info.value) == f"cannot read {path}: it is a socket"
        with pytest.raises(ExportError, match="it is a socket"):
            check_writable(path)
        with pytest.raises(ExportError, match="it is a socket"):
            atomic_write(path, lambda fh: fh.write(b"x"))
        assert stat.S_ISSOCK(os.stat(path).st_mode)


# --- writing -----------------------------------------------------------------------------------


def test_a_new_file_in_a_writable_folder_may_be_written(tmp_path: Path) -> None:
    target = tmp_path / "r.npz"
    assert check_writable(target) == target
    assert atomic_write(target, lambda fh: fh.write(b"abc")) == target
    assert target.read_bytes() == b"abc"


def test_a_missing_folder_is_said_as_such_not_as_a_full_disk(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "r.npz"
    with pytest.raises(ExportError) as info:
        atomic_write(target, lambda fh: fh.write(b"x"))
    assert str(info.value) == f"cannot write {target}: No such file or directory"


@pytest.mark.parametrize(
    ("code", "full"),
    [(errno.ENOSPC, True), (errno.EDQUOT, True), (errno.EIO, False)],  # disk full, over quota, I/O
)
def test_only_a_full_disk_or_quota_is_called_full(tmp_path: Path, code: int, full: bool) -> None:
    target = tmp_path / "map.png"
    target.write_bytes(b"the previous export")

    def fails_after_5_bytes(fh) -> None:  # type: ignore[no-untyped-def]
        fh.write(b"12345")
        fh.flush()
        raise OSError(code, os.strerror(code))

    with pytest.raises(ExportError) as info:
        atomic_write(target, fails_after_5_bytes)
    said = str(info.value)
    if full:
        assert f"the disk holding {tmp_path} is full (5 bytes were written before it filled" in said
    else:
        assert said == f"cannot write {target}: Input/output error"
    assert target.read_bytes() == b"the previous export"
    assert [p.name for p in tmp_path.iterdir()] == ["map.png"]


def test_a_pipe_read_slower_than_the_export_still_gets_every_byte(tmp_path: Path) -> None:
    # 1 MiB through a pipe that holds 64 KiB: the reader starts only once the pipe is full, so the
    # export must wait for it (a program such as gzip reading at its own pace), not give up.
    fifo = tmp_path / "out.npz"
    os.mkfifo(fifo)
    rfd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    capacity = fcntl.fcntl(rfd, fcntl.F_GETPIPE_SZ)
    payload = bytes(range(256)) * 4_096  # 1,048,576 bytes
    received: list[bytes] = []

    def read_once_full() -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            pending = struct.unpack("i", fcntl.ioctl(rfd, termios.FIONREAD, b"\0\0\0\0"))[0]
            if pending >= capacity:
                break
            time.sleep(0.001)
        os.set_blocking(rfd, True)
        chunks = []
        while chunk := os.read(rfd, 1 << 16):
            chunks.append(chunk)
        received.append(b"".join(chunks))

    reader = threading.Thread(target=read_once_full)
    reader.start()
    try:
        assert atomic_write(fifo, lambda fh: fh.write(payload)) == fifo
    finally:
        reader.join(30)
        os.close(rfd)
    assert received == [payload]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_files_keep_the_umask_where_proc_cannot_be_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without /proc (macOS, a sandbox) the umask is read by setting it and setting it back.
    def no_proc(*args: object, **kwargs: object) -> None:
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", "/proc/self/status")

    monkeypatch.setattr(files, "open", no_proc, raising=False)
    old = os.umask(0o027)
    try:
        assert current_umask() == 0o027
        path = atomic_write(tmp_path / "shared.npz", lambda fh: fh.write(b"x"))
        assert os.umask(0o027) == 0o027  # left as it was
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640  # 0o666 without the umask's 0o027


# --- writing on a small disk of its own --------------------------------------------------------

EXACT_FIT = """
from simtviz.core.files import atomic_write
atomic_write(MOUNT / "fits.bin", lambda fh: fh.write(b"x" * 16384), size_hint=16384)
report({"sizes": {p.name: p.stat().st_size for p in MOUNT.iterdir()}})
"""


def test_a_file_the_size_of_the_free_space_is_saved(tmp_path: Path) -> None:
    # A 16 KB disk (16,384 bytes free); the export says it needs 16,384 bytes, reserves them and
    # writes them: it fits exactly.
    r = run_private(EXACT_FIT, tmp_path / "mnt", size="16k")
    assert r["sizes"] == {"fits.bin": 16384}


READ_ONLY = """
import subprocess, stat
from simtviz.core.files import ExportError, check_writable
os.mkfifo(MOUNT / "pipe")
(MOUNT / "old.npz").write_bytes(b"old")
os.mknod(MOUNT / "disk", 0o660 | stat.S_IFBLK, os.makedev(0, 0))
subprocess.run(["mount", "-o", "remount,ro", str(MOUNT)], check=True)
said = {}
for name in ("pipe", "old.npz", "disk"):
    try:
        said[name] = str(check_writable(MOUNT / name))
    except ExportError as exc:
        said[name] = "refused: " + str(exc)
report(said)
"""


def test_a_read_only_disk(tmp_path: Path) -> None:
    mount = tmp_path / "mnt"
    r = run_private(READ_ONLY, mount)
    # A pipe on it still takes data (as `cat > pipe` would): it is not refused.
    assert r["pipe"] == str(mount / "pipe")
    # A file on it cannot be replaced: the folder is said, before any long run.
    assert r["old.npz"] == f"refused: cannot write {mount / 'old.npz'}: the folder {mount} is not writable"
    # A disk device is never written, whatever the disk it sits on.
    assert r["disk"] == (
        f"refused: cannot write {mount / 'disk'}: it is a disk device (writing it would overwrite the disk)"
    )
