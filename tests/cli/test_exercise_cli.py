"""``simtviz exercise list|show|check`` as docs/CONTRACT.md describes it (the checks run in a child
process on the simulator, as a student's would)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from exercise_solutions import REFERENCE, WRONG
from simtviz.cli import run


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = run(["exercise", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def last_json(out: str) -> Any:
    return json.loads(out.strip().splitlines()[-1])


def test_list_json_names_every_exercise_with_its_signature(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = call(capsys, "list", "--json")
    items = last_json(out)
    assert code == 0 and len(items) >= 12
    by_id = {i["id"]: i for i in items}
    assert by_id["tile-sync"]["signature"] == "blur(a, out)"
    assert by_id["tile-sync"]["launches"][0]["block"] == [128, 1, 1]
    assert "race_free" in by_id["tile-sync"]["checks"]


def test_show_prints_the_statement_and_hints_on_request(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = call(capsys, "show", "grid-stride")
    assert code == 0 and "scale(a, out, factor)" in out and "Hint 1" not in out
    code, out, _ = call(capsys, "show", "grid-stride", "--hints", "1")
    assert "Hint 1: One element per thread" in out and "Hint 2" not in out
    code, out, _ = call(capsys, "show", "grid-stride", "--starter")
    assert out.startswith("from numba import cuda") and "def scale(a, out, factor):" in out


def test_unknown_exercise_and_unreadable_file_are_usage_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = call(capsys, "show", "no-such")
    assert code == 2 and "no exercise 'no-such'" in err
    code, _, err = call(capsys, "check", "tile-sync", str(tmp_path / "missing.py"), "--backend", "sim")
    assert code == 2 and "cannot read" in err


def test_check_reference_passes_with_contract_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "add.py"
    path.write_text(REFERENCE["vecadd-guard"])
    code, out, _ = call(capsys, "check", "vecadd-guard", str(path), "--backend", "sim", "--json")
    s = last_json(out)
    assert code == 0
    assert {"exercise", "backend", "passed", "checks"} <= set(s)
    assert (s["exercise"], s["backend"], s["passed"]) == ("vecadd-guard", "sim", True)
    assert [c["name"] for c in s["checks"]] == ["output", "in_bounds", "written_once", "coalesced"]
    assert all(set(c) == {"name", "passed", "detail"} for c in s["checks"])


def test_check_tile_sync_without_barrier_exits_1_naming_both_lines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = WRONG["tile-sync"]["race_free"]
    path = tmp_path / "blur.py"
    path.write_text(source)
    code, out, _ = call(capsys, "check", "tile-sync", str(path), "--backend", "sim")
    lines = source.splitlines()
    store = 1 + next(k for k, t in enumerate(lines) if "tile[t] = a[i]" in t)
    load = 1 + next(k for k, t in enumerate(lines) if "out[i] = (tile" in t)
    assert code == 1
    race = next(line for line in out.splitlines() if line.startswith("FAIL race_free"))
    assert f"lines {store} and {load}" in race
    assert "Missing barrier" in out and "checks passed." in out


def test_a_refused_kernel_is_exit_2_with_its_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "add.py"
    path.write_text(REFERENCE["vecadd-guard"].replace("c[i] = a[i] + b[i]", "c[i:] = a[i]"))
    code, _, err = call(capsys, "check", "vecadd-guard", str(path), "--backend", "sim")
    assert code == 2 and "line 8" in err


def test_a_kernel_with_other_parameters_is_exit_2_in_the_exercises_words(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "add.py"
    path.write_text("from numba import cuda\n\n\n@cuda.jit\ndef add(x, y):\n    pass\n")
    code, _, err = call(capsys, "check", "vecadd-guard", str(path), "--backend", "sim")
    assert code == 2 and "line 5: the exercise's kernel is add(a, b, c); yours is add(x, y)" in err


@pytest.mark.parametrize("backend", ["sim", "emu"])
def test_a_kernel_a_gpu_would_not_compile_is_refused_before_grading(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, backend: str
) -> None:
    # random.random() runs as plain Python on the simulator and the emulator; numba-cuda refuses
    # it for a GPU, so the grade must not pass (or even run): exit 2 naming line 9.
    path = tmp_path / "add.py"
    source = REFERENCE["vecadd-guard"].replace("from numba import", "import random\nfrom numba import")
    path.write_text(source.replace("c[i] = a[i] + b[i]", "c[i] = a[i] + b[i] * random.random()"))
    code, out, err = call(capsys, "check", "vecadd-guard", str(path), "--backend", backend)
    assert code == 2, (out, err)
    assert "add.py, line 9: a GPU would not compile this kernel" in err and "random.random" in err
    assert "PASS" not in out and "Traceback" not in err
