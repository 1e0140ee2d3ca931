"""The traced run's model without running a kernel: the window's checks at each edge, the
budget's note, the summary's keys, the student's check expression."""

from __future__ import annotations

import numpy as np
import pytest

from simtviz.core.trace.analysis import LOG_FIELDS, Analysis
from simtviz.core.trace.args import ArgSpecError
from simtviz.core.trace.model import (
    DEFAULT_BUDGET,
    DEFAULT_TIME_LIMIT_S,
    SIM_BUDGET,
    BlockWindow,
    TraceRequest,
    TraceResult,
    evaluate_check,
    window_for,
    window_problem,
)

GRID = (3, 5, 1)  # 15 blocks, 0–14


def test_the_defaults_are_the_documented_ones() -> None:
    # 2^21 accesses × 56 bytes ≈ 117 MB; the simulator's 2^20; 10 s before a traced kernel stops
    assert (DEFAULT_BUDGET, SIM_BUDGET, DEFAULT_TIME_LIMIT_S) == (2_097_152, 1_048_576, 10.0)


@pytest.mark.parametrize(
    ("window", "problem"),
    [
        (None, None),
        (BlockWindow(0, 15), None),  # the whole launch
        (BlockWindow(14, 1), None),  # the last block alone
        (BlockWindow(-1, 2), "the window's first block is -1: blocks are numbered from 0"),
        (BlockWindow(15, 1), "the window starts at block 15, but the launch has 15 blocks (0–14)"),
        (BlockWindow(3, 0), "the window has 0 blocks: it needs at least 1"),
        (BlockWindow(10, 6), "the window takes blocks 10–15, but the launch has 15 blocks (0–14)"),
    ],
)
def test_window_problems_at_each_edge(window: BlockWindow | None, problem: str | None) -> None:
    assert window_problem(window, GRID) == problem


def test_a_window_on_a_one_block_launch_says_block_not_blocks() -> None:
    assert window_problem(BlockWindow(1, 1), (1, 1, 1)) == (
        "the window starts at block 1, but the launch has 1 block (0–0)"
    )
    assert (
        window_problem(BlockWindow(0, 1), (0, 1, 1))
        == "the window starts at block 0, but the launch has no blocks"
    )


def test_a_request_checks_and_cuts_its_window() -> None:
    r = TraceRequest("", GRID, (48, 2, 1), {}, window=BlockWindow(7, 4))
    assert r.threads == 15 * 96  # 1,440
    assert r.logged_blocks() == BlockWindow(7, 4) and r.cut_window() == BlockWindow(7, 4)
    r.check_window()  # fits: no error
    whole = TraceRequest("", GRID, (48, 2, 1), {}, window=BlockWindow(0, 15))
    assert whole.cut_window() is None  # a window of the whole launch is none
    assert TraceRequest("", GRID, (48, 2, 1), {}).logged_blocks() == BlockWindow(0, 15)
    assert TraceRequest("", GRID, (48, 2, 1), {}, window=BlockWindow(1, 14)).cut_window() == BlockWindow(
        1, 14
    )
    with pytest.raises(ArgSpecError, match="takes blocks 12–15"):
        TraceRequest("", GRID, (48, 2, 1), {}, window=BlockWindow(12, 4)).check_window()


def test_window_for_counts_to_the_last_block_when_no_count_is_given() -> None:
    assert window_for(GRID, 5, None) == BlockWindow(5, 10)  # 15 − 5 = 10 blocks: 5–14
    assert window_for(GRID, 0, 15) is None and window_for(GRID, 0, None) is None
    assert window_for(GRID, 1, 14) == BlockWindow(1, 14)


def result(
    accesses: int, logged: int, window: BlockWindow | None = None, made: int | None = None
) -> TraceResult:
    a = Analysis(accesses, logged, 0, [], {}, [])
    log = np.zeros((LOG_FIELDS, 0), dtype=np.int64)
    return TraceResult(
        "sim", "k", GRID, (48, 2, 1), (), (), a, log, {}, {}, window=window, window_accesses=made
    )


def test_the_budget_note_says_what_the_log_leaves_out() -> None:
    assert result(100, 100).budget_note() is None
    assert result(100, 60).budget_note() == (
        "logged 60 of 100 accesses: the first ones in the order the threads made them; "
        "raise the budget to see all"
    )
    # window 7–10 (4 × 96 = 384 threads), 300 accesses made by them, all logged
    note = result(1000, 300, BlockWindow(7, 4), 300).budget_note()
    assert note is not None and note.startswith(
        "logged 300 of 1,000 accesses: threads in window: blocks 7–10 of 15 (384 threads), "
        "blockIdx (1, 2, 0) to (1, 3, 0); they made 300 of them; the counts"
    )
    # the budget kept 250 of the window's 300
    note = result(1000, 250, BlockWindow(7, 4), 300).budget_note()
    assert note is not None and "they made 300 of them; the budget kept the first 250 in the order" in note


def test_the_summary_has_a_window_key_only_with_a_window() -> None:
    s = result(1000, 300, BlockWindow(7, 4), 300).summary()
    assert s["window"] == {"first_block": 7, "blocks": 4, "threads": 384, "accesses": 300}
    assert s["threads"] == 1440 and s["grid"] == [3, 5, 1] and s["block"] == [48, 2, 1]
    plain = result(10, 10).summary()
    assert "window" not in plain and "check" not in plain
    assert list(plain)[:5] == ["backend", "kernel", "grid", "block", "threads"]


def test_the_students_check_passes_fails_counts_and_refuses() -> None:
    a, b = np.array([1, 2, 3, 4]), np.array([1, 0, 3, 0])
    assert evaluate_check("A == A", {"A": a}).as_json() == {
        "expression": "A == A",
        "passed": True,
        "error": None,
        "failing": 0,
    }
    # 2 of 4 elements differ
    v = evaluate_check("A == B", {"A": a, "B": b})
    assert (v.passed, v.failing, v.error) == (False, 2, None)
    assert evaluate_check("np.allclose(A, A)", {"A": a}).passed is True
    bad = evaluate_check("A.__class__", {"A": a})
    assert bad.passed is False and bad.error == "ValueError: attribute __class__ is not allowed in a check"
    lam = evaluate_check("(lambda: 1)()", {})
    assert lam.error == "ValueError: Lambda is not allowed in a check"
    assert evaluate_check("C == 1", {"A": a}).error.startswith("NameError")


def test_parse_accepts_the_first_block_and_a_count_of_one() -> None:
    assert BlockWindow.parse("0:1") == BlockWindow(0, 1)
    assert BlockWindow.parse("0:4") == BlockWindow(0, 4)
    assert BlockWindow.parse("5:1") == BlockWindow(5, 1)
    for bad in ("-1:1", "0:0"):
        with pytest.raises(ValueError, match="the first block is 0 or more and the count at least 1"):
            BlockWindow.parse(bad)


def test_windows_from_block_0_that_leave_blocks_out_are_kept() -> None:
    assert window_for(GRID, 0, 5) == BlockWindow(0, 5)  # blocks 0–4 of 15
    assert TraceRequest("", GRID, (48, 2, 1), {}, window=BlockWindow(0, 5)).cut_window() == BlockWindow(0, 5)


def test_window_words_name_blockidx_as_soon_as_y_has_two_blocks() -> None:
    from simtviz.core.trace.model import window_words

    # grid (4, 2): linear 5 = 1 + 1·4 → (1, 1, 0); one block of 8 threads
    assert (
        window_words(BlockWindow(5, 1), (4, 2, 1), (8, 1, 1))
        == "block 5 of 8 (8 threads), blockIdx (1, 1, 0)"
    )
    # grid (2, 1, 2): linear 2 → (0, 0, 1); 3 → (1, 0, 1)
    assert window_words(BlockWindow(2, 2), (2, 1, 2), (4, 1, 1)) == (
        "blocks 2–3 of 4 (8 threads), blockIdx (0, 0, 1) to (1, 0, 1)"
    )
    assert window_words(BlockWindow(2, 2), (8, 1, 1), (4, 1, 1)) == "blocks 2–3 of 8 (8 threads)"


def test_a_request_defaults_to_no_force_and_timing_the_kernel() -> None:
    r = TraceRequest("", GRID, (48, 2, 1), {})
    assert (r.force, r.time_kernel, r.budget, r.time_limit_s, r.kernel, r.window) == (
        False, True, 2_097_152, 10.0, None, None,
    )  # fmt: skip


def test_a_compile_error_crosses_from_the_child_with_its_line() -> None:
    import pickle

    from simtviz.core.trace.model import KernelCompileError

    back = pickle.loads(pickle.dumps(KernelCompileError(7, "TypingError: no")))
    assert isinstance(back, KernelCompileError) and (back.line, str(back)) == (7, "TypingError: no")


def test_a_check_that_gives_one_truth_value_has_no_failing_count() -> None:
    v = evaluate_check("np.allclose(A, A)", {"A": np.ones(3)})
    assert v.as_json() == {"expression": "np.allclose(A, A)", "passed": True, "error": None}
