"""More exercise verdicts from traced runs written by hand (no kernel runs): the bank a conflict
names past bank 15, and no check passing cases it was given no run of. Expected values worked out
in the comments."""

from __future__ import annotations

import numpy as np
import pytest

from hand_traces import Row, exercise_of, sites_of, traced
from simtviz.core.exercise.checks import CHECK_FUNCTIONS, check_conflict_free
from simtviz.core.exercise.model import Case
from simtviz.core.trace.analysis import SHARED, ArrayInfo

F32 = "float32"


def test_a_conflict_in_bank_17_names_bank_17() -> None:
    # tile is a shared (2, 32) float32 array (rows of 32 words); lane 0 loads tile[0, 17] (word 17,
    # bank 17), lane 1 tile[1, 17] (word 32 + 17 = 49, bank 49 % 32 = 17): a 2-way conflict in
    # bank 17 of the 32 banks, two wavefronts where one would do
    arrays = (ArrayInfo("out", (2,), F32), ArrayInfo("tile", (2, 32), F32, SHARED))
    sites = sites_of(arrays, (9, "tile", "load"))
    run = traced((1, 1, 1), (2, 1, 1), arrays, sites, [Row(0, 0, (0, 17)), Row(1, 0, (1, 17))])
    case = Case((1, 1, 1), (2, 1, 1), {"out": "float32[2]"})
    verdict = check_conflict_free(exercise_of([case], ("conflict_free",)), [run], [case])
    assert not verdict.passed
    assert verdict.detail == (
        "case 1 (out float32[2]; grid 1, block 2): line 9 loads the shared array tile with 2 wavefronts "
        "per request (up to a 2-way bank conflict): thread 0 (blockIdx 0, threadIdx 0) and thread 1 "
        "touch tile[0, 17] (bank 17) and tile[1, 17] (bank 17)."
    )


A4 = ArrayInfo("a", (4,), F32)
OUT4 = ArrayInfo("out", (4,), F32)
CASE = Case((2, 1, 1), (2, 1, 1), {"a": "float32[4]:random", "out": "float32[4]"})
A_1234 = np.array([1, 2, 3, 4], dtype=np.float32)


def test_no_check_passes_a_case_it_has_no_run_of() -> None:
    # threads 0-3 load a[t] (line 6) and store out[t] = 2 a[t] (line 7), a[t] = t + 1 so out is
    # 2, 4, 6, 8: right, in bounds, each element stored once, two lanes a warp reading 8
    # neighbouring bytes (1 sector; 4 allowed), no shared memory, no element touched by two
    # threads: every check passes both cases given a run of each
    arrays = (A4, OUT4)
    sites = sites_of(arrays, (6, "a", "load"), (7, "out", "store"))
    rows = [Row(t, 0, (t,)) for t in range(4)] + [Row(t, 1, (t,)) for t in range(4)]
    out = np.array([2, 4, 6, 8], dtype=np.float32)
    good = traced((2, 1, 1), (2, 1, 1), arrays, sites, rows, {"a": A_1234}, {"out": out})
    ex = exercise_of([CASE, CASE], tuple(CHECK_FUNCTIONS), expect=lambda x: {"out": x["a"] * 2})
    assert [check(ex, [good, good], ex.cases).passed for check in CHECK_FUNCTIONS.values()] == [True] * 6
    # one run for the two cases: the second case was never checked, so no verdict, not a pass
    for name, check in CHECK_FUNCTIONS.items():
        with pytest.raises(ValueError):
            check(ex, [good], ex.cases)
            pytest.fail(f"{name} judged two cases from one run")
