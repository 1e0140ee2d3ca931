"""Exports never leave a half-written file, and say in words why they failed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sample_recording import make_recording
from simtviz.core.files import ExportError, atomic_write
from simtviz.core.recording import load_npz


def test_npz_and_csv_round_trip(tmp_path: Path) -> None:
    recording = make_recording()
    loaded = load_npz(recording.save_npz(tmp_path / "r.npz"))
    assert loaded.verification.ok and loaded.threads == 64
    np.testing.assert_array_equal(loaded.image("blockIdx.x"), recording.image("blockIdx.x"))
    lines = recording.save_csv(tmp_path / "r.csv").read_text().splitlines()
    assert lines[0].startswith("threadIdx.x,threadIdx.y,threadIdx.z,blockIdx.x")
    assert len(lines) == 65


def test_unwritable_folder_is_an_export_error_and_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="cannot write"):
        make_recording().save_npz(tmp_path / "missing" / "r.npz")
    assert not (tmp_path / "missing").exists()


def test_a_failure_midway_keeps_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "map.png"
    target.write_bytes(b"the previous export")

    def fails_halfway(fh) -> None:  # type: ignore[no-untyped-def]
        fh.write(b"half of a new")
        raise OSError(28, "No space left on device")

    with pytest.raises(ExportError, match="No space left on device"):
        atomic_write(target, fails_halfway)
    assert target.read_bytes() == b"the previous export"
    assert [p.name for p in tmp_path.iterdir()] == ["map.png"]


def test_a_directory_in_the_way(tmp_path: Path) -> None:
    (tmp_path / "r.npz").mkdir()
    with pytest.raises(ExportError):
        make_recording().save_npz(tmp_path / "r.npz")
    assert [p.name for p in tmp_path.iterdir()] == ["r.npz"]


@pytest.mark.parametrize(("umask", "expected"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_written_files_honour_the_umask(tmp_path: Path, umask: int, expected: int) -> None:
    import os
    import stat

    old = os.umask(umask)
    try:
        path = atomic_write(tmp_path / "shared.npz", lambda fh: fh.write(b"x"))
    finally:
        os.umask(old)
    # A course folder's readers see what any other program would have written (not mkstemp's 0600).
    assert stat.S_IMODE(path.stat().st_mode) == expected
