"""simtviz snapshot reads --color before it launches anything (planted bug E2 of plant-c: the
colour looked up after the launch; every other test still passed).

A teacher who mistypes the colour must hear about the typo at once, with exit status 2, and not
after a launch that may take minutes, nor hear about the launch instead of the typo.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import simtviz.cli.snapshot as snapshot
from simtviz.cli import run


def test_a_colour_typo_is_refused_before_anything_is_recorded(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    launched: list = []
    monkeypatch.setattr(snapshot, "record_for_snapshot", lambda *a: launched.append(a))
    out = tmp_path / "map.png"
    argv = ["snapshot", "--grid", "2", "--block", "4", "--color", "rainbow", "--out", str(out)]
    assert run([*argv, "--backend", "sim"]) == 2
    err = capsys.readouterr().err
    assert "unknown colour field 'rainbow'" in err
    assert launched == []  # nothing recorded for a map that cannot be coloured
    assert not out.exists()


def test_a_colour_typo_wins_over_a_launch_the_device_would_reject(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # 2048 threads per block is over every device's 1024: a launch would exit 3 (rejected). The
    # typo is found first, so the student sees exit 2 and the word they mistyped, no launch text.
    out = tmp_path / "map.png"
    argv = ["snapshot", "--grid", "1", "--block", "2048", "--color", "wrap", "--out", str(out)]
    assert run([*argv, "--backend", "sim"]) == 2
    err = capsys.readouterr().err
    assert "unknown colour field 'wrap'" in err
    assert "2048" not in err and "CUDA_ERROR" not in err
    assert not out.exists()
