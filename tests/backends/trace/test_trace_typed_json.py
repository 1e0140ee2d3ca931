"""The check verdict and the out-of-bounds attempts come back from the kernel's child process as
typed values (``CheckOutcome``, ``OutOfBounds``, pickled across), and their JSON is what
``trace --json`` and the .npz have always written: the same keys in the same order, ``failing``
only when the check gave an array of truth values, lists rather than tuples.

vecadd_unguarded as the template launches it on the CPU emulator: 4 blocks × 256 threads = 1,024
threads over 1,000 elements, so threads 1,000–1,023 each load A[i] and B[i] and store C[i] out of
bounds (24 × 3 = 72 attempts, skipped); the 1,000 in-bounds threads store C = A + B exactly.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from simtviz.backends import child_backend
from simtviz.core.trace.analysis import OutOfBounds, oob_details
from simtviz.core.trace.model import CheckOutcome, TraceRequest, TraceResult
from simtviz.core.trace.report import save_npz
from simtviz.core.trace.templates import template


def traced(check: str) -> TraceResult:
    t = template("vecadd_unguarded")
    request = TraceRequest(t.source, t.grid, t.block, t.args, check=check, filename=t.file)
    return child_backend("emu").run("trace", request)


@pytest.mark.parametrize(
    ("check", "outcome", "text"),
    [
        # an array of 1,000 truth values, all true: failing is 0 and present
        (
            "C == A + B",
            CheckOutcome("C == A + B", passed=True, error=None, failing=0),
            '{"expression": "C == A + B", "passed": true, "error": null, "failing": 0}',
        ),
        # one truth value (C = A + B with A, B in [0, 1) is never -1): no failing key
        (
            "np.allclose(C, -1)",
            CheckOutcome("np.allclose(C, -1)", passed=False, error=None, failing=None),
            '{"expression": "np.allclose(C, -1)", "passed": false, "error": null}',
        ),
        # a name the kernel has not: the error in words, not passed, no failing key
        (
            "Z + 1",
            CheckOutcome("Z + 1", passed=False, error="NameError: name 'Z' is not defined", failing=None),
            '{"expression": "Z + 1", "passed": false, "error": "NameError: name \'Z\' is not defined"}',
        ),
    ],
)
def test_the_check_crosses_typed_and_writes_the_same_json(
    check: str, outcome: CheckOutcome, text: str, tmp_path: Path
) -> None:
    r = traced(check)
    assert r.check == outcome
    assert json.dumps(r.summary()["check"]) == text
    assert list(r.summary())[-1] == "check"  # after the timings, as before
    saved = json.loads(str(np.load(save_npz(r, tmp_path / "t.npz"))["summary"]))
    assert json.dumps(saved["check"]) == text


def test_the_out_of_bounds_attempts_cross_typed_and_write_the_same_json() -> None:
    r = traced("C == A + B")
    details = oob_details(r.log, r.sites, r.arrays)
    # 72 attempts (see above); the first in log order is thread 1,000's load of A at line 14
    assert len(details) == 72
    assert details[0] == OutOfBounds(1000, 14, "A", "load", (1000,), (1000,))
    assert json.dumps(details[0].as_json()) == (
        '{"thread": 1000, "line": 14, "array": "A", "kind": "load", "index": [1000], "shape": [1000]}'
    )
    # each of the 24 threads makes one attempt per array: 24 loads of A, 24 of B, 24 stores to C
    kinds = sorted((d.array, d.kind) for d in details)
    assert kinds == [("A", "load")] * 24 + [("B", "load")] * 24 + [("C", "store")] * 24
    assert {d.thread for d in details} == set(range(1000, 1024))
