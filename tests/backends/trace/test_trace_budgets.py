"""Limits checked before the student's kernel runs (issue 24, items 9 and 10): the total bytes of
the traced arrays, the size of the kernel's text, and the pre-check kept off large texts so the
app never parses megabytes on its GUI thread (the child does, inside the time limit)."""

from __future__ import annotations

import time

import pytest

from simtviz.backends.sim import sim_info
from simtviz.backends.trace import TRACE
from simtviz.core.errors import TimeLimitReached, describe
from simtviz.core.trace.args import ARRAY_BUDGET_BYTES, ArgSpecError, parse_args
from simtviz.core.trace.model import TraceRequest

KERNEL = """from numba import cuda


@cuda.jit
def k(A, B, C):
    i = cuda.grid(1)
    if i < C.shape[0]:
        C[i] = A[i] + B[i]
"""


def test_three_float64_gib_arrays_are_refused_before_anything_is_built() -> None:
    started = time.monotonic()
    with pytest.raises(ArgSpecError) as info:
        # 3 × 2^30 elements × 8 bytes = 3 × 8.6 GB = 25.8 GB > the 2.1 GB budget (2^31 bytes)
        parse_args({n: "float64[1073741824]:random" for n in "ABC"})
    assert time.monotonic() - started < 0.5
    text = str(info.value)
    assert "26 GB" in text and "2.1 GB" in text
    assert "A 8.6 GB" in text and "make" in text.lower()
    assert ARRAY_BUDGET_BYTES == 1 << 31


def test_arrays_just_under_the_budget_are_accepted() -> None:
    # 2 × 2^27 float64 = 2 × 1.07 GB = 2^31 bytes: exactly the budget
    specs = parse_args({"A": "float64[134217728]", "B": "float64[134217728]"})
    assert len(specs) == 2


def test_a_kernel_text_over_1_mb_is_refused_by_the_check() -> None:
    request = TraceRequest(KERNEL + "#" * 1_100_000, (1, 1, 1), (32, 1, 1), {n: "float32[32]" for n in "ABC"})
    with pytest.raises(ArgSpecError, match=r"1\.1 MB.*1\.0 MB"):
        TRACE.check(request, sim_info())


def test_a_large_text_is_left_to_the_child_not_parsed_here(monkeypatch: pytest.MonkeyPatch) -> None:
    import simtviz.backends.trace as trace

    calls: list[int] = []
    monkeypatch.setattr(trace, "precheck", lambda r: calls.append(len(r.source)))
    big = TraceRequest(KERNEL + "#" * 200_000, (1, 1, 1), (32, 1, 1), {n: "float32[32]" for n in "ABC"})
    TRACE.check(big, sim_info())
    small = TraceRequest(KERNEL, (1, 1, 1), (32, 1, 1), {n: "float32[32]" for n in "ABC"})
    TRACE.check(small, sim_info())
    assert calls == [len(KERNEL)]  # only the small text was parsed in this process


def test_a_stop_while_building_arrays_does_not_blame_the_kernel() -> None:
    exc = TimeLimitReached(10.0, "the kernel 'k'", "arrays")
    assert str(exc).startswith("building the arrays (the kernel had not started) was still going after 10 s")
    assert "kernel 'k'" not in str(exc)
    assert "smaller" in describe(exc).todo and "loop" not in describe(exc).todo
    plain = TimeLimitReached(10.0, "the kernel 'k'", "kernel")
    assert str(plain).startswith("the kernel 'k' was still running after 10 s")
