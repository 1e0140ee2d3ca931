"""``simtviz schedule`` on the simulator with an --out nobody can write: which refusal comes first.

docs/CONTRACT.md: schedule is GPU only, exit 5 on the simulator. That answer does not depend on
the file asked for, so a bad --out (exit 2 on a GPU) must not hide it: the backend is checked
before the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from simtviz.cli import run


def test_the_simulator_is_refused_before_an_out_file_in_a_missing_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "missing" / "dir" / "x.npz"
    args = ["--grid", "4", "--block", "32", "--backend", "sim", "--out", str(target)]
    assert run(["schedule", *args]) == 5  # not available on this backend, not 2 (a usage error)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "no SMs and no GPU clock" in captured.err
    assert "missing" not in captured.err  # the folder is not what was wrong
    assert not (tmp_path / "missing").exists()  # and nothing was made for it
