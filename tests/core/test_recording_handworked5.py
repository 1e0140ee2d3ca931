"""An export never writes a pickle: a record file holds numbers and one short name, which
``load_npz`` (which never unpickles) can always read back. A column of Python objects is refused
before the file appears, and nothing is left in the folder."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simtviz.core.launch import LaunchConfig
from simtviz.core.recording import Recording
from simtviz.core.schema import allocate
from simtviz.core.window import Window

# One block of 4 threads: 4 rows.
CONFIG = LaunchConfig.of((1, 1, 1), (4, 1, 1))


def test_a_column_of_python_objects_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    fields = allocate(4)
    # A start time not known for row 2 (None): NumPy can only keep such a column as objects.
    fields["t_ns"] = np.array([10, 20, None, 40], dtype=object)
    rec = Recording(CONFIG, Window.full(CONFIG), fields, "sim")
    with pytest.raises(ValueError, match="allow_pickle=False"):
        rec.save_npz(tmp_path / "r.npz")
    assert list(tmp_path.iterdir()) == []  # neither the record nor its temporary file


def test_the_same_record_of_numbers_is_written(tmp_path: Path) -> None:
    fields = allocate(4)
    fields["t_ns"] = np.array([10, 20, 30, 40], dtype=np.int64)
    rec = Recording(CONFIG, Window.full(CONFIG), fields, "sim")
    path = rec.save_npz(tmp_path / "r.npz")
    with np.load(path, allow_pickle=False) as data:
        assert data["t_ns"].tolist() == [10, 20, 30, 40]
    assert [p.name for p in tmp_path.iterdir()] == ["r.npz"]
