"""On a real GPU: every exercise's reference passes, each wrong solution fails exactly its check
(a race may spoil the output too), and the hazards equal the simulator's.

Run as its own process: ``SIMTVIZ_BACKEND=gpu python -m pytest -m gpu tests/gpu/test_exercises_gpu.py``.
The gradings run in this process (``trace.batch.run_gpu``, the runner the child uses); the
command line is checked once through its own child process on both backends.
"""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from exercise_solutions import REFERENCE, WRONG
from simtviz.core.exercise.model import Report

pytestmark = pytest.mark.gpu


@cache
def graded(exercise_id: str, source: str) -> Report:
    from simtviz.backends.exercise import ExerciseRequest, grade
    from simtviz.backends.trace.batch import run_gpu

    return grade(ExerciseRequest(exercise_id, source, "student.py"), "gpu", run_gpu)


def failing(report: Report) -> list[str]:
    return [c.name for c in report.checks if not c.passed]


@pytest.mark.parametrize("exercise_id", sorted(REFERENCE))
def test_the_reference_passes_on_the_gpu(exercise_id: str) -> None:
    report = graded(exercise_id, REFERENCE[exercise_id])
    assert report.backend.startswith("gpu:")
    assert failing(report) == [], [c.detail for c in report.checks]


@pytest.mark.parametrize(("exercise_id", "check"), [(e, c) for e in sorted(WRONG) for c in sorted(WRONG[e])])
def test_each_wrong_solution_fails_exactly_its_check_on_the_gpu(exercise_id: str, check: str) -> None:
    failed = failing(graded(exercise_id, WRONG[exercise_id][check]))
    if check == "race_free":
        assert "race_free" in failed and set(failed) <= {"race_free", "output"}
    else:
        assert failed == [check]


def test_tile_sync_hazard_on_the_gpu_names_the_simulators_lines_and_count() -> None:
    source = WRONG["tile-sync"]["race_free"]
    report = graded("tile-sync", source)
    # lines 11 (tile[t] = a[i]) and 17 (out[i] = (tile…): the first case's 3 blocks × 128
    # elements stored at line 11 and read by a neighbour, + the block's right halo read: 301
    assert "lines 11 and 17, 301 elements" in report.check("race_free").detail


def test_cli_check_on_the_gpu(tmp_path: Path) -> None:
    import subprocess

    path = tmp_path / "blur.py"
    path.write_text(WRONG["tile-sync"]["race_free"])
    for backend in ("gpu", "sim"):
        done = subprocess.run(
            [sys.executable, "-m", "simtviz", "exercise", "check", "tile-sync", str(path), "--json",
             "--backend", backend], capture_output=True, text=True, check=False,
        )  # fmt: skip
        s = json.loads(done.stdout.strip().splitlines()[-1])
        assert done.returncode == 1 and s["passed"] is False
        race = next(c for c in s["checks"] if c["name"] == "race_free")
        assert race["passed"] is False and "lines 11 and 17" in race["detail"]
