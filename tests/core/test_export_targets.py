"""Exports never replace what is not a regular file; a full disk is said with its sizes (11.1, 11.2).

Device nodes and full file systems are made inside a private mount namespace (``private_fs``):
never the real /dev.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from private_fs import SRC, run_private
from sample_recording import make_recording
from simtviz.core.files import ExportError, atomic_write, check_writable

# Runs the command line inside the namespace; reports exit status, stderr and what the target is then.
CLI_ON_DEVICES = """
import subprocess, stat
os.mknod(MOUNT / "full", 0o666 | stat.S_IFCHR, os.makedev(1, 7))
os.mknod(MOUNT / "null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
results = {}
for name, args in (
    ("record-full", ["record", "--grid", "4", "--block", "32", "--out", str(MOUNT / "full")]),
    ("record-null", ["record", "--grid", "4", "--block", "32", "--out", str(MOUNT / "null")]),
    ("snapshot-null", ["snapshot", "--grid", "4", "--block", "32", "--out", str(MOUNT / "null")]),
):
    done = subprocess.run([sys.executable, "-m", "simtviz", *args, "--backend", "sim"],
                          capture_output=True, text=True)
    target = MOUNT / name.split("-")[1]
    results[name] = {"rc": done.returncode, "out": done.stdout, "err": done.stderr,
                     "char_device": stat.S_ISCHR(os.stat(target).st_mode)}
results["left"] = sorted(p.name for p in MOUNT.iterdir())
report(results)
"""


def test_cli_exports_to_devices_write_through_and_never_replace_them(tmp_path: Path) -> None:
    r = run_private(CLI_ON_DEVICES, tmp_path / "mnt")
    # /dev/full refuses every byte: said as such, exit 2, and it is still the device.
    full = r["record-full"]
    assert full["rc"] == 2, full
    assert "full: the device refused the data (it is full)" in full["err"]
    assert "saved" not in full["out"] and full["char_device"]
    # /dev/null takes them: the run succeeds and the device stays a device.
    for name in ("record-null", "snapshot-null"):
        assert r[name]["rc"] == 0, r[name]
        assert r[name]["char_device"], f"{name} replaced the device"
    assert r["left"] == ["full", "null"]  # no temporary files beside them


def test_a_pipe_is_written_through_while_a_program_reads_it(tmp_path: Path) -> None:
    fifo = tmp_path / "records.npz"
    os.mkfifo(fifo)
    # The read end is open before the export starts (as a shell's `| program` would be).
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    received: list[bytes] = []

    def read_all() -> None:
        chunks: list[bytes] = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                time.sleep(0.005)
                continue
            if chunk:
                chunks.append(chunk)
            elif chunks:  # the writer has closed after writing
                break
            else:
                time.sleep(0.005)  # no writer yet
        received.append(b"".join(chunks))

    reader = threading.Thread(target=read_all)
    reader.start()
    make_recording().save_npz(fifo)
    reader.join(30)
    os.close(fd)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    (tmp_path / "copy.npz").write_bytes(received[0])
    with np.load(tmp_path / "copy.npz") as data:
        assert data["threadIdx"].shape == (64, 3)  # the 2 x 2 blocks of 4 x 4 threads


def test_a_pipe_nobody_reads_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "nobody.npz"
    os.mkfifo(fifo)
    with pytest.raises(ExportError, match="it is a pipe and no program is reading it"):
        make_recording().save_npz(fifo)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_folder_is_refused_in_words(tmp_path: Path) -> None:
    (tmp_path / "maps").mkdir()
    with pytest.raises(ExportError, match="it is a folder"):
        atomic_write(tmp_path / "maps", lambda fh: fh.write(b"x"))
    with pytest.raises(ExportError, match="it is a folder"):
        check_writable(tmp_path / "maps")


def test_a_symlink_to_a_file_is_kept_and_its_file_replaced(tmp_path: Path) -> None:
    (tmp_path / "real.bin").write_bytes(b"old")
    (tmp_path / "link.bin").symlink_to("real.bin")
    atomic_write(tmp_path / "link.bin", lambda fh: fh.write(b"new"))
    assert (tmp_path / "link.bin").is_symlink()
    assert (tmp_path / "real.bin").read_bytes() == b"new"


def test_unwritable_out_is_found_before_the_launch(tmp_path: Path) -> None:
    # A launch that would take hours on the simulator is not started: the missing folder is said first.
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "simtviz",
            "record",
            "--grid",
            "65535,65535",
            "--block",
            "1024",
            "--force",
            "--backend",
            "sim",
            "--out",
            str(tmp_path / "missing" / "r.npz"),
        ],
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")])),
        },
        timeout=60,
    )
    assert done.returncode == 2
    assert f"the folder {tmp_path / 'missing'} does not exist" in done.stderr


# --- a full temporary folder / disk (issue 11.2) -----------------------------------------------
FULL_DISK = """
from simtviz.core.files import ExportError, atomic_write
from tests_helpers_recording import make_recording
called = []
result = {}
try:
    atomic_write(MOUNT / "big.npz", lambda fh: called.append(1), size_hint=3_700_000)
except ExportError as exc:
    result["reserved"] = str(exc)
result["work_done"] = bool(called)
big = make_recording(threads_hint=1)
try:
    # 40,000 threads of records compress to more than 16 KB: the disk fills while writing.
    big.save_csv(MOUNT / "r.csv")
except ExportError as exc:
    result["midway"] = str(exc)
result["left"] = sorted(p.name for p in MOUNT.iterdir())
report(result)
"""


def test_a_full_disk_is_said_with_the_sizes_and_leaves_nothing(tmp_path: Path) -> None:
    helper = tmp_path / "helpers"
    helper.mkdir()
    (helper / "tests_helpers_recording.py").write_text(
        "from simtviz.core.launch import LaunchConfig\n"
        "from simtviz.core.oracle import expected_field\n"
        "from simtviz.core.recording import Recording\n"
        "from simtviz.core.schema import RECORD_FIELDS\n"
        "from simtviz.core.window import Window\n"
        "import numpy as np\n"
        "def make_recording(threads_hint=0):\n"
        "    config = LaunchConfig.of((40, 10), (100, 1))\n"
        "    window = Window.full(config)\n"
        "    names = [n for n in RECORD_FIELDS if n not in ('smid', 't_ns')]\n"
        "    fields = {n: expected_field(n, config, window) for n in names}\n"
        "    fields['smid'] = np.full(window.threads, -1, np.int32)\n"
        "    fields['t_ns'] = np.full(window.threads, -1, np.int64)\n"
        "    return Recording(config, window, fields, 'sim')\n"
    )
    r = run_private(FULL_DISK, tmp_path / "mnt", size="16k", env={"PYTHONPATH": f"{SRC}:{helper}"})
    assert "the disk holding" in r["reserved"] and "is full" in r["reserved"]
    assert "the file needs about 3.7 MB" in r["reserved"] and "16 KB are free" in r["reserved"]
    assert not r["work_done"], "the work ran although the space was known to be missing"
    assert "is full" in r["midway"] and "were written before it filled" in r["midway"]
    assert r["left"] == []
