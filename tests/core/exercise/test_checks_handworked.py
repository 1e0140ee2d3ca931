"""The exercise checks' verdicts from traced runs written by hand (no kernel runs): each verdict's
words, the element, thread and line it names, and each boundary (a run that failed, an element
never stored or stored by three threads, sectors exactly at the allowance, two lanes of a bank
conflict, the neighbouring lanes picked across warps and blocks). Expected values worked out in
the comments."""

from __future__ import annotations

import numpy as np

from hand_traces import Row, exercise_of, sites_of, traced
from simtviz.core.exercise.checks import (
    case_words,
    check_coalesced,
    check_conflict_free,
    check_output,
    check_race_free,
    check_written_once,
    neighbours,
    run_checks,
)
from simtviz.core.exercise.model import Case
from simtviz.core.trace.analysis import F_THREAD, SHARED, ArrayInfo
from simtviz.core.trace.model import TraceResult

F32 = "float32"


def test_case_words_name_the_arrays_and_drop_trailing_ones() -> None:
    # scalars (no "[") are left out; (3, 1, 1) -> 3; (2, 3, 1) -> 2×3; (1, 1, 1) -> 1; a 1 in the
    # middle stays: (2, 1, 4) -> 2×1×4
    one = Case((3, 1, 1), (4, 1, 1), {"a": "float32[10]:random", "n": "int32:10", "out": "float32[10]"})
    assert case_words(0, one) == "case 1 (a float32[10], out float32[10]; grid 3, block 4)"
    two = Case((2, 3, 1), (16, 16, 1), {"A": "float32[20,24]:random"})
    assert case_words(1, two) == "case 2 (A float32[20,24]; grid 2×3, block 16×16)"
    three = Case((1, 1, 1), (2, 1, 4), {"A": "float32[8]"})
    assert case_words(2, three) == "case 3 (A float32[8]; grid 1, block 2×1×4)"


A4 = ArrayInfo("a", (4,), F32)
OUT4 = ArrayInfo("out", (4,), F32)
CASE_2x2 = Case((2, 1, 1), (2, 1, 1), {"a": "float32[4]:random", "out": "float32[4]"})
DOUBLE = {"expect": lambda x: {"out": x["a"] * 2}}
A_1234 = np.array([1, 2, 3, 4], dtype=np.float32)


def _copy_run(stored: list[Row], out: np.ndarray, block: int = 2) -> TraceResult:
    """Threads 0-3 load a[t] at line 6; ``stored`` rows store out at line 7 (site 1) or 8 (site 2)."""
    arrays = (A4, OUT4)
    sites = sites_of(arrays, (6, "a", "load"), (7, "out", "store"), (8, "out", "store"))
    rows = [Row(t, 0, (t,)) for t in range(4)] + stored
    grid = (4 // block, 1, 1)
    return traced(grid, (block, 1, 1), arrays, sites, rows, {"a": A_1234}, {"out": out})


def test_a_failed_case_fails_every_check_with_the_kernels_error() -> None:
    # case 2 raised: each of the exercise's checks fails, saying which case and what it raised
    good = _copy_run([Row(t, 1, (t,)) for t in range(4)], A_1234 * 2)
    ex = exercise_of([CASE_2x2, CASE_2x2], ("output", "written_once"), **DOUBLE)
    verdicts = run_checks(ex, [good, RuntimeError("boom")])
    detail = "case 2 (a float32[4], out float32[4]; grid 2, block 2): the kernel failed: boom"
    assert [(v.name, v.passed, v.detail) for v in verdicts] == [
        ("output", False, detail),
        ("written_once", False, detail),
    ]


def test_both_cases_right_pass_output_and_written_once() -> None:
    good = _copy_run([Row(t, 1, (t,)) for t in range(4)], A_1234 * 2)
    ex = exercise_of([CASE_2x2, CASE_2x2], ("output", "written_once"), **DOUBLE)
    assert [(v.name, v.passed, v.detail) for v in run_checks(ex, [good, good])] == [
        ("output", True, "every output element equals the reference in all 2 cases."),
        ("written_once", True, "every output element is stored by exactly one thread."),
    ]


def test_a_wrong_element_names_the_thread_that_stored_it_last() -> None:
    # expected out = 2 * a = [2, 4, 6, 8]; out[2] holds 9. It was stored by thread 2 (line 7),
    # then by thread 3 (line 8), the last: thread 3 is blockIdx 3 // 2 = 1, threadIdx 3 % 2 = 1
    stored = [Row(0, 1, (0,)), Row(1, 1, (1,)), Row(2, 1, (2,)), Row(3, 2, (2,))]
    run = _copy_run(stored, np.array([2, 4, 9, 8], dtype=np.float32))
    verdict = check_output(exercise_of([CASE_2x2], ("output",), **DOUBLE), [run], [CASE_2x2])
    assert not verdict.passed
    assert verdict.detail == (
        "case 1 (a float32[4], out float32[4]; grid 2, block 2): out[2] is 9, expected 6 "
        "(1 of 4 elements wrong); thread 3 (blockIdx 1, threadIdx 1) stored it last, at line 8."
    )


def test_an_element_nobody_stored_names_the_last_element_stored_in_two_dimensions() -> None:
    # out is (2, 3), the second array (id 1); expected out = 0..5 row by row. Threads 0-4 store
    # out[t // 3, t % 3] at line 8: out[0, 0] ... out[1, 1]; thread 5 tries out[2, 0], outside.
    # out[1, 2] keeps 0 (expected 5). The last element stored in row-major order is out[1, 1]
    # (flat 4), by thread 4 = blockIdx 4 // 3 = 1, threadIdx 4 % 3 = 1; the attempt at out[2, 0]
    # stored nothing and is not it.
    out23 = ArrayInfo("out", (2, 3), F32)
    arrays = (A4, out23)
    sites = sites_of(arrays, (7, "a", "load"), (8, "out", "store"))
    rows = [Row(t, 0, (t,)) for t in range(4)]
    rows += [Row(t, 1, (t // 3, t % 3)) for t in range(5)] + [Row(5, 1, (2, 0), oob=True)]
    got = np.array([[0, 1, 2], [3, 4, 0]], dtype=np.float32)
    run = traced((2, 1, 1), (3, 1, 1), arrays, sites, rows, {"a": A_1234}, {"out": got})
    case = Case((2, 1, 1), (3, 1, 1), {"a": "float32[4]:random", "out": "float32[2,3]"})
    ex = exercise_of(
        [case], ("output",), expect=lambda x: {"out": np.arange(6, dtype=np.float32).reshape(2, 3)}
    )
    assert check_output(ex, [run], [case]).detail == (
        "case 1 (a float32[4], out float32[2,3]; grid 2, block 3): out[1, 2] is 0, expected 5 "
        "(1 of 6 elements wrong); no thread stored it; the last element stored is out[1, 1], by "
        "thread 4 (blockIdx 1, threadIdx 1) at line 8."
    )


def test_a_wrong_element_of_a_matrix_names_its_row_and_column_and_its_thread() -> None:
    # out is (2, 3); threads 0-5 store out[t // 3, t % 3] at line 8; thread 5 = blockIdx 1,
    # threadIdx 2 stored out[1, 2] = 7 where 0..5 row by row expects 5
    out23 = ArrayInfo("out", (2, 3), F32)
    arrays = (A4, out23)
    sites = sites_of(arrays, (7, "a", "load"), (8, "out", "store"))
    rows = [Row(t, 0, (t,)) for t in range(4)] + [Row(t, 1, (t // 3, t % 3)) for t in range(6)]
    got = np.array([[0, 1, 2], [3, 4, 7]], dtype=np.float32)
    run = traced((2, 1, 1), (3, 1, 1), arrays, sites, rows, {"a": A_1234}, {"out": got})
    case = Case((2, 1, 1), (3, 1, 1), {"a": "float32[4]:random", "out": "float32[2,3]"})
    ex = exercise_of(
        [case], ("output",), expect=lambda x: {"out": np.arange(6, dtype=np.float32).reshape(2, 3)}
    )
    assert check_output(ex, [run], [case]).detail == (
        "case 1 (a float32[4], out float32[2,3]; grid 2, block 3): out[1, 2] is 7, expected 5 "
        "(1 of 6 elements wrong); thread 5 (blockIdx 1, threadIdx 2) stored it last, at line 8."
    )


def test_a_kernel_that_stores_nothing_says_so_in_output_and_written_once() -> None:
    # only loads of a: out stays 0 everywhere (expected 2, 4, 6, 8): 4 of 4 wrong, none stored
    run = _copy_run([], np.zeros(4, dtype=np.float32))
    ex = exercise_of([CASE_2x2], ("output", "written_once"), **DOUBLE)
    head = "case 1 (a float32[4], out float32[4]; grid 2, block 2): "
    assert [(v.passed, v.detail) for v in run_checks(ex, [run])] == [
        (False, head + "out[0] is 0, expected 2 (4 of 4 elements wrong); no thread stored it; "
         "no line of the kernel stores into out."),
        (False, head + "no thread stores out[0] (4 of 4 elements never stored); no line of the kernel "
         "stores into out."),
    ]  # fmt: skip


def test_elements_never_stored_name_the_first_and_the_last_stored() -> None:
    # threads 0 and 1 store out[0], out[1]; out[2] and out[3] are never stored: the first of them
    # is named, 2 of 4 counted, and the last element stored is out[1], by thread 1 = blockIdx
    # 1 // 2 = 0, threadIdx 1 % 2 = 1, at line 7
    run = _copy_run([Row(0, 1, (0,)), Row(1, 1, (1,))], A_1234 * 2)
    verdict = check_written_once(exercise_of([CASE_2x2], ("written_once",)), [run], [CASE_2x2])
    assert not verdict.passed
    assert verdict.detail == (
        "case 1 (a float32[4], out float32[4]; grid 2, block 2): no thread stores out[2] (2 of 4 "
        "elements never stored); the last element stored is out[1], by thread 1 (blockIdx 0, "
        "threadIdx 1) at line 7."
    )


def test_an_element_stored_by_three_threads_names_the_first_two_in_log_order() -> None:
    # out[1] is stored by thread 2 (line 8), thread 0 (line 7), thread 1 (line 7) and thread 2
    # again: 3 distinct threads; the first two in log order are named: thread 2 at line 8
    # (blockIdx 2 // 2 = 1, threadIdx 0) and thread 0 at line 7
    stored = [Row(2, 2, (1,)), Row(0, 1, (1,)), Row(1, 1, (1,)), Row(2, 2, (1,))]
    stored += [Row(0, 1, (0,)), Row(2, 1, (2,)), Row(3, 1, (3,))]
    run = _copy_run(stored, A_1234 * 2)
    verdict = check_written_once(exercise_of([CASE_2x2], ("written_once",)), [run], [CASE_2x2])
    assert not verdict.passed
    assert verdict.detail == (
        "case 1 (a float32[4], out float32[4]; grid 2, block 2): out[1] is stored by 3 threads: "
        "thread 2 (blockIdx 1, threadIdx 0) at line 8 and thread 0 (blockIdx 0, threadIdx 0) at line 7."
    )


def test_an_element_stored_by_two_threads_is_not_written_once() -> None:
    # threads 0 and 1 both store out[0] at line 7 (thread 1 instead of out[1]); out[1] is stored
    # by nobody, but the double store is named first
    stored = [Row(0, 1, (0,)), Row(1, 1, (0,)), Row(2, 1, (2,)), Row(3, 1, (3,))]
    verdict = check_written_once(
        exercise_of([CASE_2x2], ("written_once",)), [_copy_run(stored, A_1234)], [CASE_2x2]
    )
    assert (verdict.passed, verdict.detail) == (
        False,
        "case 1 (a float32[4], out float32[4]; grid 2, block 2): out[0] is stored by 2 threads: "
        "thread 0 (blockIdx 0, threadIdx 0) at line 7 and thread 1 (blockIdx 0, threadIdx 1) at line 7.",
    )


def test_integer_outputs_are_compared_exactly() -> None:
    # bins = [2, 0, 1] expected; [2, 0, 1] passes, [2, 1, 1] fails at bins[1]
    arrays = (ArrayInfo("bins", (3,), "int32"),)
    sites = sites_of(arrays, (8, "bins", "atomic"))
    rows = [Row(0, 0, (0,)), Row(1, 0, (0,)), Row(2, 0, (2,))]
    case = Case((1, 1, 1), (3, 1, 1), {"bins": "int32[3]"})
    ex = exercise_of([case], ("output",), outputs=("bins",), expect=lambda x: {"bins": np.array([2, 0, 1])})
    right = traced(
        (1, 1, 1), (3, 1, 1), arrays, sites, rows, {}, {"bins": np.array([2, 0, 1], dtype=np.int32)}
    )
    assert check_output(ex, [right], [case]).passed
    wrong = traced(
        (1, 1, 1), (3, 1, 1), arrays, sites, rows, {}, {"bins": np.array([2, 1, 1], dtype=np.int32)}
    )
    assert check_output(ex, [wrong], [case]).detail == (
        "case 1 (bins int32[3]; grid 1, block 3): bins[1] is 1, expected 0 (1 of 3 elements wrong); "
        "no thread stored it; no line of the kernel stores into bins."
    )


A1024 = ArrayInfo("a", (1024,), F32)
OUT32 = ArrayInfo("out", (32,), F32)
CASE_32 = Case((1, 1, 1), (32, 1, 1), {"a": "float32[1024]:random", "out": "float32[32]"})


def _warp_run(load_index: list[int]) -> TraceResult:
    """One warp: lane t loads a[load_index[t]] at line 6 and stores out[t] at line 7."""
    arrays = (A1024, OUT32)
    sites = sites_of(arrays, (6, "a", "load"), (7, "out", "store"))
    rows = [Row(t, 0, (load_index[t],)) for t in range(32)] + [Row(t, 1, (t,)) for t in range(32)]
    return traced((1, 1, 1), (32, 1, 1), arrays, sites, rows)


def test_a_strided_load_names_its_sectors_and_two_neighbouring_lanes() -> None:
    # lane t loads a[32 t + 1], byte 128 t + 4: sector (128 t + 4) // 32 = 4 t, 32 sectors in
    # one request; the ideal for float32 is 4 bytes * 32 lanes / 32 bytes = 4. Lanes 0 and 1
    # touch a[1] (byte 4) and a[33] (byte 132): 128 bytes apart. The store out[t] takes 4.
    run = _warp_run([32 * t + 1 for t in range(32)])
    verdict = check_coalesced(exercise_of([CASE_32], ("coalesced",)), [run], [CASE_32])
    assert not verdict.passed
    assert verdict.detail == (
        "case 1 (a float32[1024], out float32[32]; grid 1, block 32): line 6 loads a with 32 sectors "
        "per request (ideal 4): neighbouring lanes thread 0 (blockIdx 0, threadIdx 0) and thread 1 "
        "touch a[1] and a[33], 128 bytes apart."
    )


def test_sectors_exactly_at_the_allowance_pass_and_one_tenth_over_fails() -> None:
    # lane t loads a[t + 4]: bytes 16 .. 143, sectors 16 // 32 = 0 .. 143 // 32 = 4: 5 sectors,
    # the ideal 4 plus the slack 1 exactly: coalesced. With a slack of 0.5 the same run fails.
    run = _warp_run([t + 4 for t in range(32)])
    verdict = check_coalesced(exercise_of([CASE_32], ("coalesced",)), [run], [CASE_32])
    assert (
        verdict.passed and verdict.detail == "every global load and store of a warp uses the fewest sectors."
    )
    tight = check_coalesced(exercise_of([CASE_32], ("coalesced",), slack=0.5), [run], [CASE_32])
    assert not tight.passed
    assert tight.detail.startswith(
        "case 1 (a float32[1024], out float32[32]; grid 1, block 32): line 6 loads a with 5 sectors "
        "per request (ideal 4): neighbouring lanes thread 0 (blockIdx 0, threadIdx 0) and thread 1 "
        "touch a[4] and a[5], 4 bytes apart."
    )


def test_two_lanes_in_one_bank_name_the_bank_of_each() -> None:
    # tile is a shared (2, 32) float32 array; lane 0 loads tile[0, 1] (byte 4, word 1, bank 1),
    # lane 1 tile[1, 1] (byte 4 * 33 = 132, word 33, bank 33 % 32 = 1): two words in bank 1, two
    # wavefronts where ceil(2 words / 32) = 1 would do: a 2-way conflict, found with only these
    # two log rows
    arrays = (ArrayInfo("out", (2,), F32), ArrayInfo("tile", (2, 32), F32, SHARED))
    sites = sites_of(arrays, (9, "tile", "load"))
    run = traced((1, 1, 1), (2, 1, 1), arrays, sites, [Row(0, 0, (0, 1)), Row(1, 0, (1, 1))])
    case = Case((1, 1, 1), (2, 1, 1), {"out": "float32[2]"})
    verdict = check_conflict_free(exercise_of([case], ("conflict_free",)), [run], [case])
    assert not verdict.passed
    assert verdict.detail == (
        "case 1 (out float32[2]; grid 1, block 2): line 9 loads the shared array tile with 2 wavefronts "
        "per request (up to a 2-way bank conflict): thread 0 (blockIdx 0, threadIdx 0) and thread 1 "
        "touch tile[0, 1] (bank 1) and tile[1, 1] (bank 1)."
    )


def test_an_access_outside_its_array_names_the_first_attempt_and_counts_all() -> None:
    # threads 0-3 load a[t]; thread 2 (blockIdx 1, threadIdx 0) then tries a[4] and thread 3
    # a[5] at line 6: 2 attempts outside a, whose shape is (4,); the first in log order is named
    attempts = [Row(0, 0, (0,)), Row(2, 0, (4,), oob=True), Row(3, 0, (5,), oob=True)]
    run = _copy_run([Row(t, 1, (t,)) for t in range(4)] + attempts, A_1234 * 2)
    verdict = run_checks(exercise_of([CASE_2x2], ("in_bounds",), **DOUBLE), [run])[0]
    assert (verdict.passed, verdict.detail) == (
        False,
        "case 1 (a float32[4], out float32[4]; grid 2, block 2): line 6: thread 2 (blockIdx 1, "
        "threadIdx 0) loads a[4], but a has shape (4,) (2 out-of-bounds accesses).",
    )
    # thread 2 alone tries a[4]: one attempt, said in the singular
    one = _copy_run([Row(t, 1, (t,)) for t in range(4)] + attempts[:2], A_1234 * 2)
    verdict = run_checks(exercise_of([CASE_2x2], ("in_bounds",), **DOUBLE), [one])[0]
    assert verdict.detail.endswith("but a has shape (4,) (1 out-of-bounds access).")
    inside = _copy_run([Row(t, 1, (t,)) for t in range(4)], A_1234 * 2)
    verdict = run_checks(exercise_of([CASE_2x2], ("in_bounds",), **DOUBLE), [inside])[0]
    assert (verdict.passed, verdict.detail) == (True, "no access outside any array.")


def test_atomics_and_lines_with_nothing_in_bounds_are_not_graded_for_sectors() -> None:
    # lane t adds into a[32 t + 1] (32 sectors a request: scattered, but an atomic) at line 6 and
    # tries out[t + 32] at line 7, outside out (32 elements): no request performed there
    arrays = (A1024, OUT32)
    sites = sites_of(arrays, (6, "a", "atomic"), (7, "out", "store"))
    rows = [Row(t, 0, (32 * t + 1,)) for t in range(32)] + [Row(t, 1, (t + 32,), oob=True) for t in range(32)]
    run = traced((1, 1, 1), (32, 1, 1), arrays, sites, rows)
    assert check_coalesced(exercise_of([CASE_32], ("coalesced",)), [run], [CASE_32]).passed


def test_a_conflict_free_tile_and_a_run_without_races_pass() -> None:
    # lane t of 32 loads tile[0, t]: word t, bank t, one wavefront; no element is touched by two
    # threads, so no race either
    arrays = (ArrayInfo("out", (32,), F32), ArrayInfo("tile", (2, 32), F32, SHARED))
    sites = sites_of(arrays, (9, "tile", "load"))
    run = traced((1, 1, 1), (32, 1, 1), arrays, sites, [Row(t, 0, (0, t)) for t in range(32)])
    case = Case((1, 1, 1), (32, 1, 1), {"out": "float32[32]"})
    verdicts = run_checks(exercise_of([case], ("conflict_free", "race_free")), [run])
    assert [(v.passed, v.detail) for v in verdicts] == [
        (True, "every shared-memory request takes one wavefront per pass."),
        (True, "no two threads of a block touch one element without a barrier between."),
    ]


def _race_run(pairs: int) -> TraceResult:
    # thread 0 stores A[0] (line 5) and thread 1 loads it (line 6), no barrier; with pairs=2 the
    # same again on B at lines 7 and 8
    arrays = (ArrayInfo("A", (4,), F32), ArrayInfo("B", (4,), F32))
    sites = sites_of(arrays, (5, "A", "store"), (6, "A", "load"), (7, "B", "store"), (8, "B", "load"))
    rows = [Row(0, 0, (0,)), Row(1, 1, (0,))] + ([Row(0, 2, (0,)), Row(1, 3, (0,))] if pairs == 2 else [])
    return traced((1, 1, 1), (4, 1, 1), arrays, sites, rows)


CASE_AB = Case((1, 1, 1), (4, 1, 1), {"A": "float32[4]", "B": "float32[4]"})
RACE_A = (
    "case 1 (A float32[4], B float32[4]; grid 1, block 4): Race (read-after-write) on A, lines 5 and 6, "
    "1 element: thread 0 (blockIdx 0, threadIdx 0) stores A[0] at line 5 and thread 1 (blockIdx 0, "
    "threadIdx 1) loads it at line 6, with no cuda.syncthreads() between them, so the result depends on "
    "which runs first. Add cuda.syncthreads() after line 5, before line 6."
)


def test_one_race_is_named_alone_and_two_are_counted() -> None:
    ex = exercise_of([CASE_AB], ("race_free",))
    one = check_race_free(ex, [_race_run(1)], [CASE_AB])
    assert (one.passed, one.detail) == (False, RACE_A)
    two = check_race_free(ex, [_race_run(2)], [CASE_AB])
    assert (two.passed, two.detail) == (False, RACE_A + " (2 pairs of lines in all)")


def test_neighbouring_lanes_are_read_from_the_asked_access_only() -> None:
    # line 6 both loads and stores a: lanes 0 and 1 store a[t] first, lanes 2 and 3 then load
    # a[t]; the neighbours of line 6's load are threads 2 and 3, whatever its store did
    arrays = (ArrayInfo("a", (4,), F32),)
    sites = sites_of(arrays, (6, "a", "load"), (6, "a", "store"))
    rows = [Row(0, 1, (0,)), Row(1, 1, (1,)), Row(2, 0, (2,)), Row(3, 0, (3,))]
    run = traced((1, 1, 1), (4, 1, 1), arrays, sites, rows)
    pair = neighbours(run, 6, "a", "load")
    assert pair is not None and [int(run.log[F_THREAD, row]) for row in pair] == [2, 3]


def _lanes(block: int, grid: int, lanes: list[int]) -> list[int]:
    """The two threads ``neighbours`` picks when ``lanes`` load a[t] at line 6 (None: no pair)."""
    arrays = (ArrayInfo("a", (block * grid,), F32),)
    sites = sites_of(arrays, (6, "a", "load"))
    run = traced((grid, 1, 1), (block, 1, 1), arrays, sites, [Row(t, 0, (t,)) for t in lanes])
    pair = neighbours(run, 6, "a", "load")
    return [] if pair is None else [int(run.log[F_THREAD, row]) for row in pair]


def test_neighbouring_lanes_are_consecutive_threads_of_one_warp_of_one_block() -> None:
    # blocks of 64 (two warps, threads 0-31 and 32-63)
    assert _lanes(64, 1, [0, 2, 3]) == [2, 3]  # 0 has no thread 1 beside it
    assert _lanes(64, 1, [30, 31]) == [30, 31]  # two log rows are enough
    assert _lanes(64, 1, [31, 32, 33]) == [32, 33]  # 31 is warp 0's last lane, 32 warp 1's first
    # blocks of 32, two of them: threads 31 and 32 are lane 31 and lane 0 of different blocks
    assert _lanes(32, 2, [30, 31, 32]) == [30, 31]
    assert _lanes(32, 2, [31, 32, 33]) == [32, 33]
    assert _lanes(32, 2, [31, 32]) == []


def test_neighbouring_lanes_skip_attempts_outside_the_array() -> None:
    # thread 0 tries a[4], outside a (4 elements); threads 1 and 2 load a[1], a[2]: the pair is 1, 2
    arrays = (ArrayInfo("a", (4,), F32),)
    sites = sites_of(arrays, (6, "a", "load"))
    run = traced(
        (1, 1, 1), (4, 1, 1), arrays, sites, [Row(0, 0, (4,), oob=True), Row(1, 0, (1,)), Row(2, 0, (2,))]
    )
    pair = neighbours(run, 6, "a", "load")
    assert pair is not None and [int(run.log[F_THREAD, row]) for row in pair] == [1, 2]
