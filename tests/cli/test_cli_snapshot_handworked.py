"""simtviz snapshot end to end on the simulator: the PNG and its lines (a few seconds: Qt renders)."""

from __future__ import annotations

from pathlib import Path

import pytest

from simtviz.cli import run


def test_snapshot_saves_a_png_and_says_where(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "map.png"
    assert run(["snapshot", "--grid", "2", "--block", "4", "--color", "warp", "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # grid 2 × block 4 = 8 threads, every one recorded and checked
    assert capsys.readouterr().out.splitlines() == [
        "record_threads[2, 4](...): recording all 8 threads",
        "8 of 8 threads match",
        f"saved {out}",
    ]
