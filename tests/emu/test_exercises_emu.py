"""The exercises graded on the CPU emulator give the same verdicts as on numba's simulator.

Every reference passes and every wrong solution fails exactly its check, naming a line and a
thread (tests/core/exercise/test_exercises.py grades one wrong solution of each kind on the
simulator). The one legitimate difference: a racing solution's ``output`` check. The simulator
runs threads one after another, so a race may leave the right numbers; the emulator runs a warp's
threads in lockstep, so racing stores lose updates as on a GPU. ``race_free`` fails on both,
because hazards are read from the trace, not the output.
"""

from __future__ import annotations

from functools import cache

import pytest

from exercise_solutions import REFERENCE, WRONG
from simtviz.core.exercise.catalog import exercise


@cache
def graded_on_emu(exercise_id: str, source: str):
    from simtviz.backends.exercise import ExerciseRequest, grade
    from simtviz.backends.trace.batch import run_emu

    ex = exercise(exercise_id)
    report = grade(ExerciseRequest(exercise_id, source, "student.py"), "emu", run_emu, ex)
    assert report.backend == "emu"
    return report


def failing(report) -> list[str]:
    return [c.name for c in report.checks if not c.passed]


@pytest.mark.parametrize("exercise_id", sorted(REFERENCE))
def test_the_reference_passes_on_the_emulator(exercise_id: str) -> None:
    report = graded_on_emu(exercise_id, REFERENCE[exercise_id])
    assert failing(report) == [], [c.detail for c in report.checks]


@pytest.mark.parametrize(("exercise_id", "check"), [(e, c) for e in sorted(WRONG) for c in sorted(WRONG[e])])
def test_each_wrong_solution_fails_exactly_its_check_on_the_emulator(exercise_id: str, check: str) -> None:
    report = graded_on_emu(exercise_id, WRONG[exercise_id][check])
    failed = failing(report)
    if check == "race_free":
        assert "race_free" in failed and set(failed) <= {"race_free", "output"}
    else:
        assert failed == [check], [c.detail for c in report.checks]
    detail = report.check(check).detail
    assert "line " in detail and "thread " in detail, detail  # the line and one thread


def test_the_racing_histogram_loses_counts_on_the_emulator() -> None:
    # On a GPU (and here) threads of a warp that add 1 to the same bin in one step keep one
    # store: the output check fails, where the simulator's one-thread-at-a-time order may pass.
    failed = failing(graded_on_emu("histogram-atomic", WRONG["histogram-atomic"]["race_free"]))
    assert set(failed) == {"output", "race_free"}


def test_the_transpose_grades_every_case_on_the_emulator() -> None:
    # The simulator's test grades only the first case (1,024-thread blocks are slow there).
    assert len(exercise("transpose-coalesced").cases) >= 2
    assert graded_on_emu("transpose-coalesced", REFERENCE["transpose-coalesced"]).passed
