"""Exercises on the simulator: every reference solution passes every check, and for each check a
wrong solution fails exactly that one (a race may also spoil the output, whatever the simulator's
thread order gives: only race_free is asserted for those). Graded in this process through the
same batch runner the child process uses (``trace.batch.run_sim``)."""

from __future__ import annotations

import ast
import dataclasses
from functools import cache

import pytest

from exercise_solutions import REFERENCE, WRONG
from simtviz.core.exercise.catalog import exercise, exercises
from simtviz.core.exercise.model import CHECKS, Report
from simtviz.core.trace.rewrite import rewrite_kernel

pytestmark = pytest.mark.usefixtures("needs_sim")

REQUIRED = {
    "vecadd-guard": "add(a, b, c)",
    "matadd-2d": "matadd(A, B, C)",
    "grid-stride": "scale(a, out, factor)",
    "histogram-atomic": "hist(data, bins)",
    "tile-sync": "blur(a, out)",
    "transpose-coalesced": "transpose(A, B)",
}


@pytest.fixture(scope="module")
def needs_sim(backend_kind: str) -> None:
    if backend_kind != "sim":
        pytest.skip("grades in this process on the simulator")


@cache
def graded(exercise_id: str, source: str) -> Report:
    from simtviz.backends.exercise import ExerciseRequest, grade
    from simtviz.backends.trace.batch import run_sim

    ex = exercise(exercise_id)
    if exercise_id == "transpose-coalesced":  # 1,024 threads a block: one case keeps the suite fast
        ex = dataclasses.replace(ex, cases=ex.cases[:1])
    return grade(ExerciseRequest(exercise_id, source, "student.py"), "sim", run_sim, ex)


def failing(report: Report) -> list[str]:
    return [c.name for c in report.checks if not c.passed]


def test_the_catalog_has_the_contracts_exercises_and_twelve_in_all() -> None:
    found = {e.id: e for e in exercises()}
    assert len(found) >= 12 and len(found) == len(exercises())
    for exercise_id, signature in REQUIRED.items():
        assert found[exercise_id].signature == signature
    for e in exercises():
        assert set(e.checks) <= set(CHECKS) and e.checks and e.hints and e.statement and e.picture
        assert len(e.cases) >= 2, e.id
        assert set(REFERENCE) == set(found) and set(WRONG[e.id]) == set(e.checks), e.id


def test_launches_follow_the_contract() -> None:
    # 1-D: ceil(N / block) blocks, some N not a multiple of the block; grid-stride: a fixed grid
    n = 300  # vecadd-guard's second case: 300 / 128 → 3 blocks, 84 threads past the end
    case = exercise("vecadd-guard").cases[1]
    assert (case.grid, case.block, case.args["c"]) == ((3, 1, 1), (128, 1, 1), f"float32[{n}]")
    stride = exercise("grid-stride").cases
    assert {c.grid for c in stride} == {(2, 1, 1)} and all(c.threads * 4 < 1000 for c in stride[:1])
    # matadd 20 × 24: x over 24 columns → 2 blocks, y over 20 rows → 2 blocks, of 16 × 16
    assert exercise("matadd-2d").cases[0].grid == (2, 2, 1)
    # transpose A (32, 64): x over 64 columns → 2 blocks, y over 32 rows → 1; blocks of 32 × 32
    t = exercise("transpose-coalesced").cases[0]
    assert (t.grid, t.block) == ((2, 1, 1), (32, 32, 1))
    assert {c.block for c in exercise("tile-sync").cases} == {(128, 1, 1)}
    assert any(c.threads != 300 for c in exercise("tile-sync").cases)


@pytest.mark.parametrize("exercise_id", sorted(REFERENCE))
def test_every_starter_is_traceable_with_the_right_kernel(exercise_id: str) -> None:
    e = exercise(exercise_id)
    tree = ast.parse(e.starter)
    (kernel,) = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert kernel.name == e.kernel and tuple(a.arg for a in kernel.args.args) == e.params
    rewrite_kernel(e.starter, e.kernel)  # nothing the tracer refuses


@pytest.mark.parametrize("exercise_id", sorted(REFERENCE))
def test_the_reference_passes_every_check(exercise_id: str) -> None:
    report = graded(exercise_id, REFERENCE[exercise_id])
    assert failing(report) == [], [c.detail for c in report.checks]
    assert report.passed and report.explanations == []
    assert [c.name for c in report.checks] == list(exercise(exercise_id).checks)


# One wrong solution per check on the simulator; tests/emu/test_exercises_emu.py grades all 46 on
# the emulator (same verdicts, the same line and thread), and tests/emu/test_emu_differential.py
# pins the emulator's traces to this simulator's. Chosen for small launches (64-thread vecadd and
# grid-stride, 128-thread tile-sync), or because an explanation test below grades the same source
# anyway (saxpy, block-sum, histogram-atomic; the transpose's 1,024-thread blocks only there).
SIM_WRONG = {
    ("vecadd-guard", "output"),
    ("vecadd-guard", "in_bounds"),
    ("vecadd-guard", "coalesced"),
    ("grid-stride", "written_once"),
    ("tile-sync", "race_free"),
    ("transpose-coalesced", "conflict_free"),
    ("saxpy", "in_bounds"),
    ("block-sum", "race_free"),
    ("histogram-atomic", "race_free"),
}
WRONG_CASES = [(e, check) for e in sorted(WRONG) for check in sorted(WRONG[e]) if (e, check) in SIM_WRONG]


def test_the_simulator_grades_a_wrong_solution_of_every_kind() -> None:
    assert {check for _, check in WRONG_CASES} == set(CHECKS)
    assert len(WRONG_CASES) == len(SIM_WRONG)  # each one a real wrong solution of the catalogue


@pytest.mark.parametrize(("exercise_id", "check"), WRONG_CASES)
def test_each_wrong_solution_fails_exactly_its_check(exercise_id: str, check: str) -> None:
    report = graded(exercise_id, WRONG[exercise_id][check])
    failed = failing(report)
    if check == "race_free":
        assert "race_free" in failed and set(failed) <= {"race_free", "output"}
    else:
        assert failed == [check], [c.detail for c in report.checks]
    detail = report.check(check).detail
    assert "line " in detail and "thread " in detail, detail  # the line and one thread


def _line(source: str, marker: str) -> int:
    (n,) = [k for k, text in enumerate(source.splitlines(), 1) if marker in text]
    return n


def test_tile_sync_without_its_barrier_names_both_lines() -> None:
    source = WRONG["tile-sync"]["race_free"]
    detail = graded("tile-sync", source).check("race_free").detail
    store, load = _line(source, "tile[t] = a[i]"), _line(source, "out[i] = (tile")
    assert f"lines {store} and {load}" in detail
    assert f"Add cuda.syncthreads() after line {store}, before line {load}" in detail


def explanation(exercise_id: str, source: str, start: str) -> str:
    found = [s for s in graded(exercise_id, source).explanations if s.startswith(start)]
    assert found, graded(exercise_id, source).explanations
    return found[0]


def test_explain_guard_missing_and_off_by_one() -> None:
    # vecadd N = 100 on 2 blocks of 64: thread 100 is the first past the end (blockIdx 1, 36)
    text = explanation("vecadd-guard", WRONG["vecadd-guard"]["in_bounds"], "Guard missing")
    assert "line 8: thread 100 (blockIdx 1, threadIdx 36) loads a[100]" in text
    text = explanation("saxpy", WRONG["saxpy"]["in_bounds"], "Guard off by one")
    assert "x[100]" in text and "i < x.size, not i <= x.size" in text


def test_explain_x_and_y_swapped() -> None:
    swapped = REFERENCE["matadd-2d"].replace("C[y, x] = A[y, x] + B[y, x]", "C[x, y] = A[x, y] + B[x, y]")
    swapped = swapped.replace(
        "if y < C.shape[0] and x < C.shape[1]:", "if x < C.shape[0] and y < C.shape[1]:"
    )
    text = explanation("matadd-2d", swapped, "x and y swapped")
    # threads 0 and 1 (x = 0 and 1) touch rows 0 and 1 of column 0: 24 floats = 96 bytes apart
    assert "thread 0 (blockIdx (0, 0), threadIdx (0, 0)) and thread 1, touch" in text
    assert "A[0, 0] and A[1, 0], a row apart" in text and "A[y, x]" in text


def test_explain_grid_too_small_and_stride_without_gridsize() -> None:
    one_each = REFERENCE["grid-stride"].replace(
        "for i in range(start, out.size, cuda.gridsize(1)):", "for i in range(start, start + 1):"
    )
    # 2 blocks of 32 = 64 threads for 1,000 elements: out[64] is the first never stored
    text = explanation("grid-stride", one_each, "Grid too small")
    assert "64 threads for 1,000 elements" in text and "out[64]" in text
    text = explanation("grid-stride", WRONG["grid-stride"]["written_once"], "Stride loop without gridsize")
    assert (
        "thread 0 (blockIdx 0, threadIdx 0) and thread 32 (blockIdx 1, threadIdx 0) both store out[32]"
        in text
    )


def test_explain_race_without_atomics_missing_barrier_and_padding() -> None:
    assert "cuda.atomic.add(bins" in explanation(
        "histogram-atomic", WRONG["histogram-atomic"]["race_free"], "Race without atomics"
    )
    text = explanation("block-sum", WRONG["block-sum"]["race_free"], "Missing barrier")
    assert "inside the loop" in text
    text = explanation(
        "transpose-coalesced", WRONG["transpose-coalesced"]["conflict_free"], "Padded tile forgotten"
    )
    # a (32, 32) float32 tile: tile[0, 0] and tile[1, 0] are 32 words apart, both bank 0
    assert "tile[0, 0] and tile[1, 0], 32 words apart, both in bank 0" in text and "(32, 33)" in text


def test_a_kernel_the_tracer_refuses_is_an_error_not_a_verdict() -> None:
    from simtviz.core.trace.source import TraceUnsupported

    bad = REFERENCE["vecadd-guard"].replace("c[i] = a[i] + b[i]", "c[i:] = a[i]")
    with pytest.raises(TraceUnsupported):
        graded("vecadd-guard", bad)
