"""simtviz snapshot without one of its three required options: argparse's usage error (exit 2,
the option named), before anything is recorded."""

from __future__ import annotations

from pathlib import Path

import pytest

import simtviz.cli.snapshot as snapshot
from simtviz.cli import run


@pytest.mark.parametrize(
    ("missing", "argv"),
    [
        ("--grid", ["--block", "48,2", "--out", "OUT"]),
        ("--block", ["--grid", "3,5", "--out", "OUT"]),
        ("--out", ["--grid", "3,5", "--block", "48,2"]),
    ],
)
def test_snapshot_names_the_missing_option_and_records_nothing(
    missing: str,
    argv: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    launched: list = []
    monkeypatch.setattr(snapshot, "record_for_snapshot", lambda *a: launched.append(a))
    out = tmp_path / "map.png"
    assert run(["snapshot", *(str(out) if a == "OUT" else a for a in argv)]) == 2
    err = capsys.readouterr().err
    # argparse: "the following arguments are required: --grid"
    assert "required" in err and missing in err.rsplit("required", 1)[1]
    assert launched == [] and not out.exists()
