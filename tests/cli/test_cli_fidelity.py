"""What a user of the command line notices: colour names as typed, no noise, true defaults."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from repo_paths import SRC
from simtviz.cli import quiet_warnings, run
from simtviz.core.color_names import UnknownColorField, resolve_color_field


@pytest.mark.parametrize(
    ("typed", "field"),
    [
        ("sm", "SM"),
        ("SM", "SM"),
        ("Sm", "SM"),
        ("smid", "SM"),
        ("warp", "warp"),
        ("LANE", "lane"),
        ("block", "block linear id"),
        ("thread", "thread id in block"),
        ("global", "global linear index"),
        ("global_linear_index", "global linear index"),
        ("start", "start order"),
        ("blockidx.x", "blockIdx.x"),
        ("THREADIDX.Y", "threadIdx.y"),
        ("tx", "threadIdx.x"),
        ("start-order", "start order"),
    ],
)
def test_colour_names_are_accepted_in_any_case_and_short(typed: str, field: str) -> None:
    assert resolve_color_field(typed) == field


def test_an_unknown_or_ambiguous_colour_lists_the_choices() -> None:
    with pytest.raises(UnknownColorField, match="choose one of: global linear index"):
        resolve_color_field("rainbow")
    with pytest.raises(UnknownColorField, match="could mean"):
        resolve_color_field("blockidx")  # .x, .y or .z


def test_snapshot_accepts_color_sm_and_prints_no_qt_warning(tmp_path: Path) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SIMTVIZ_BACKEND": "sim"}
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    out = tmp_path / "sm.png"
    proc = subprocess.run(
        [sys.executable, "-m", "simtviz", "snapshot", "--grid", "2", "--block", "32", "--color", "sm",
         "--out", str(out)],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert out.exists()
    assert proc.stderr == ""  # was: "This plugin does not support propagateSizeHints()"


def test_record_help_gives_the_real_budget_default(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        run(["record", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "default 4,194,304" in help_text  # as the README and the app's setting say


def test_numbas_performance_warning_is_not_shown_to_users_but_others_are() -> None:
    class NumbaPerformanceWarning(UserWarning):  # matched by name: numba is not imported here
        pass

    shown: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, *_a, **_k: shown.append(str(message))
        with quiet_warnings():
            warnings.warn("Grid size 1 will likely under-use the GPU", NumbaPerformanceWarning, stacklevel=2)
            warnings.warn("something a user should see", UserWarning, stacklevel=2)
        warnings.warn("outside a command", NumbaPerformanceWarning, stacklevel=2)
    assert shown == ["something a user should see", "outside a command"]
