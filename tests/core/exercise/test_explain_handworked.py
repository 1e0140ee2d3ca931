""" "Explain my bug" from traced runs written by hand (no kernel runs): each rule's sentence with
its numbers, and the runs just beside each rule that must not get it (x exactly at the rows, an
index of 0, the 1,001st out-of-bounds attempt, a loop run once, a grid exactly the size, 5 sectors
where 6 are scattered, a conflict-free float64 tile, a 1-D shared array). The expected sentences
are worked out in the comments."""

from __future__ import annotations

from hand_traces import Row, exercise_of, sites_of, traced
from simtviz.core.exercise.explain import explain
from simtviz.core.exercise.model import Case
from simtviz.core.trace.analysis import SHARED, ArrayInfo
from simtviz.core.trace.model import TraceResult

F32 = "float32"
EX = exercise_of([Case((1, 1, 1), (1, 1, 1), {})], ("output",), outputs=("out",))


def said(run: TraceResult) -> list[str]:
    return explain(EX, [RuntimeError("another case failed"), run])


# --- out of bounds ---------------------------------------------------------------------------


def test_x_and_y_swapped_names_the_threads_x_and_y_on_a_grid_of_unequal_sides() -> None:
    # grid (4, 3) of blocks (4, 3): 12 threads a block. Thread 78: block 78 // 12 = 6, inner 6;
    # blockIdx (6 % 4, (6 // 4) % 3) = (2, 1), threadIdx (6 % 4, (6 // 4) % 3) = (2, 1);
    # x = 2 * 4 + 2 = 10, y = 1 * 3 + 1 = 4. It loads A[x, y] = A[10, 4]; A is (10, 16): x = 10
    # is exactly the number of rows (and under the 16 columns)
    arrays = (ArrayInfo("A", (10, 16), F32),)
    sites = sites_of(arrays, (7, "A", "load"))
    run = traced((4, 3, 1), (4, 3, 1), arrays, sites, [Row(78, 0, (10, 4), oob=True)])
    assert said(run) == [
        "x and y swapped: line 7: thread 78 (blockIdx (2, 1), threadIdx (2, 1)) has x = 10, y = 4 and "
        "loads A[10, 4], but A has shape (10, 16) (rows, columns): write A[y, x]."
    ]


def test_a_2d_index_past_the_columns_with_a_zero_is_a_missing_guard() -> None:
    # 1-D launch of 4 threads: thread 3 has x = 3, y = 0 and stores A[0, 3] (A is (1, 3)): the
    # index is [y, x], not swapped, and 0 is not below zero
    arrays = (ArrayInfo("A", (1, 3), F32),)
    sites = sites_of(arrays, (7, "A", "store"))
    rows = [Row(t, 0, (0, t)) for t in range(3)] + [Row(3, 0, (0, 3), oob=True)]
    run = traced((1, 1, 1), (4, 1, 1), arrays, sites, rows)
    assert said(run) == [
        "Guard missing: line 7: thread 3 (blockIdx 0, threadIdx 3) stores A[0, 3], outside A's shape "
        "(1, 3): guard both y < A.shape[0] and x < A.shape[1]."
    ]


def test_an_index_below_zero() -> None:
    arrays = (ArrayInfo("a", (4,), F32),)
    sites = sites_of(arrays, (6, "a", "load"))
    run = traced((1, 1, 1), (4, 1, 1), arrays, sites, [Row(0, 0, (-1,), oob=True)])
    assert said(run) == [
        "Index below zero: line 6: thread 0 (blockIdx 0, threadIdx 0) loads a[-1]: check the index is "
        "0 or more before using it (a GPU would touch memory before the array)."
    ]


def test_one_past_the_end_of_its_array_is_off_by_one_whatever_other_arrays_do() -> None:
    # thread 4 loads a[4] (a has 4 elements: one past a[3]); thread 7 stores b[7] (b has 6):
    # only a's attempts decide a's sentence
    arrays = (ArrayInfo("a", (4,), F32), ArrayInfo("b", (6,), F32))
    sites = sites_of(arrays, (6, "a", "load"), (8, "b", "store"))
    run = traced((1, 1, 1), (8, 1, 1), arrays, sites, [Row(4, 0, (4,), oob=True), Row(7, 1, (7,), oob=True)])
    assert said(run) == [
        "Guard off by one: line 6: thread 4 (blockIdx 0, threadIdx 4) loads a[4], one past the last "
        "element a[3]: the guard must be i < a.size, not i <= a.size."
    ]


def test_off_by_one_is_read_from_the_first_1000_attempts() -> None:
    # thread 4 tries a[4] 1,000 times, then a[5] once: the first 1,000 decide (off by one);
    # with a[5] among them it would be a missing guard
    arrays = (ArrayInfo("a", (4,), F32),)
    sites = sites_of(arrays, (6, "a", "load"))
    rows = [Row(4, 0, (4,), oob=True)] * 1000 + [Row(4, 0, (5,), oob=True)]
    assert said(traced((1, 1, 1), (8, 1, 1), arrays, sites, rows))[0].startswith("Guard off by one: line 6:")
    rows = [Row(4, 0, (4,), oob=True)] * 999 + [Row(4, 0, (5,), oob=True)]
    assert said(traced((1, 1, 1), (8, 1, 1), arrays, sites, rows))[0].startswith("Guard missing: line 6:")


def test_a_missing_guard_says_why_for_a_parameter_and_for_a_shared_array() -> None:
    # threads 4-7 of one block of 8 touch elements 4-7 of a 4-element array: past the end, and
    # not only by one
    for space, kind, why in (
        ("global", "load", "the last block has threads past the end"),
        (SHARED, "store", "the block has more threads than it has elements"),
    ):
        arrays = (ArrayInfo("a", (4,), F32, space),)
        sites = sites_of(arrays, (6, "a", kind))
        run = traced((1, 1, 1), (8, 1, 1), arrays, sites, [Row(t, 0, (t,), oob=t >= 4) for t in range(8)])
        verb = kind + "s"
        assert said(run) == [
            f"Guard missing: line 6: thread 4 (blockIdx 0, threadIdx 4) {verb} a[4], but a has 4 elements "
            f"({why}): check the index against a.size before the access."
        ]


# --- which elements are stored -----------------------------------------------------------------

OUT8 = ArrayInfo("out", (8,), F32)


def test_a_stride_loop_by_the_block_names_the_line_of_the_first_store() -> None:
    # grid 2 × block 4; each thread j of each block runs i = j, j + 4 (a step of blockDim.x), and
    # per pass stores out[i] at line 8, then again at line 9 (out[i] *= 2); thread 4 skips its
    # first pass, so out[0] has one writer. out[1] is the first element stored by two threads:
    # thread 1 (block 0) and thread 5 (block 1, threadIdx 1): same threadIdx, two blocks, and
    # thread 1 ran line 8 twice: a loop. The first store of out[1] is at line 8.
    arrays = (OUT8,)
    sites = sites_of(arrays, (8, "out", "store"), (9, "out", "store"))
    rows = [
        Row(t, s, (t % 4 + 4 * k,)) for k in range(2) for t in range(8) for s in (0, 1) if (t, k) != (4, 0)
    ]
    assert said(traced((2, 1, 1), (4, 1, 1), arrays, sites, rows)) == [
        "Stride loop without gridsize: line 8: thread 1 (blockIdx 0, threadIdx 1) and thread 5 "
        "(blockIdx 1, threadIdx 1) both store out[1]: every block walks the same elements; step by "
        "cuda.gridsize(1) (all the grid's threads), not cuda.blockDim.x."
    ]


def test_two_blocks_storing_one_element_without_a_loop_is_not_a_stride_loop() -> None:
    # thread t stores out[t] once at line 8, and thread 4 (block 1, threadIdx 0) also stores
    # out[0] (line 8, twice for it: out[0], then out[4]). out[0]'s first thread, 0, ran line 8
    # once: no loop. Every thread loads a[t] and a[t + 1] (line 7). Nothing is left unstored,
    # nothing is out of bounds, no block has a race: nothing to say.
    arrays = (ArrayInfo("a", (9,), F32), OUT8)
    sites = sites_of(arrays, (7, "a", "load"), (7, "a", "load"), (8, "out", "store"))
    rows = [Row(t, s, (t + s,)) for t in range(8) for s in (0, 1)]
    rows += [Row(t, 2, (t,)) for t in range(4)] + [Row(4, 2, (0,))] + [Row(t, 2, (t,)) for t in range(4, 8)]
    assert said(traced((2, 1, 1), (4, 1, 1), arrays, sites, rows)) == []
    # two blocks, different threadIdx (thread 1 and thread 6 = block 1, threadIdx 2) storing
    # out[1] once each: not a stride loop either
    rows = [Row(t, 2, (t,)) for t in range(8)] + [Row(6, 2, (1,))]
    assert said(traced((2, 1, 1), (4, 1, 1), arrays, sites, rows)) == []


def test_a_grid_too_small_counts_the_elements_never_stored() -> None:
    # 4 threads for 8 elements: out[0..3] stored (thread 0 also adds into out[0] at line 9),
    # out[4..7] never: 4 of them, from out[4]
    arrays = (OUT8,)
    sites = sites_of(arrays, (8, "out", "store"), (9, "out", "atomic"))
    rows = [Row(t, 0, (t,)) for t in range(4)] + [Row(0, 1, (0,))]
    assert said(traced((1, 1, 1), (4, 1, 1), arrays, sites, rows)) == [
        "Grid too small: 4 threads for 8 elements of out, and 4 of them, from out[4], are never "
        "stored: loop with for i in range(cuda.grid(1), n, cuda.gridsize(1)) so each thread takes several."
    ]


def test_a_grid_exactly_the_size_with_an_element_unstored_is_not_too_small() -> None:
    # 4 threads, 4 elements, thread 3 stores nothing: a missing store, not a small grid
    arrays = (ArrayInfo("out", (4,), F32),)
    sites = sites_of(arrays, (8, "out", "store"))
    assert said(traced((1, 1, 1), (4, 1, 1), arrays, sites, [Row(t, 0, (t,)) for t in range(3)])) == []


# --- races ------------------------------------------------------------------------------------

A4 = (ArrayInfo("A", (4,), F32),)


def test_two_threads_storing_one_element_on_two_lines() -> None:
    # thread 0 stores A[0] at line 5, thread 1 stores A[0] at line 6, no barrier between
    sites = sites_of(A4, (5, "A", "store"), (6, "A", "store"))
    run = traced((1, 1, 1), (4, 1, 1), A4, sites, [Row(0, 0, (0,)), Row(1, 1, (0,))])
    assert said(run) == [
        "Two threads store one element: line 5: thread 0 (blockIdx 0, threadIdx 0) stores A[0] and at "
        "line 6 thread 1 (blockIdx 0, threadIdx 1) stores it again: let only one thread store each element."
    ]


def test_a_load_and_store_by_two_threads_on_one_line_is_a_lost_update() -> None:
    # A[0] += 1 at line 5 by threads 0 and 1: each loads A[0], then each stores it
    sites = sites_of(A4, (5, "A", "load"), (5, "A", "store"))
    rows = [Row(0, 0, (0,)), Row(1, 0, (0,)), Row(0, 1, (0,)), Row(1, 1, (0,))]
    assert said(traced((1, 1, 1), (4, 1, 1), A4, sites, rows)) == [
        "Race without atomics: line 5: thread 0 (blockIdx 0, threadIdx 0) and thread 1 (blockIdx 0, "
        "threadIdx 1) both update A[0] (a load, then a store: one of the two updates is lost): use "
        "cuda.atomic.add(A, index, value) there."
    ]


def test_two_threads_storing_one_element_on_one_line_is_no_update() -> None:
    # A[0] = 1.0 at line 5 by threads 0 and 1: two stores, no load
    sites = sites_of(A4, (5, "A", "store"))
    assert said(traced((1, 1, 1), (4, 1, 1), A4, sites, [Row(0, 0, (0,)), Row(1, 0, (0,))])) == [
        "Two threads store one element: line 5: thread 0 (blockIdx 0, threadIdx 0) stores A[0] and at "
        "line 5 thread 1 (blockIdx 0, threadIdx 1) stores it again: let only one thread store each element."
    ]


def test_a_load_then_another_threads_store_is_a_missing_barrier_in_that_order() -> None:
    # thread 0 loads A[1] at line 5, thread 1 stores A[1] at line 6: load first, then store
    sites = sites_of(A4, (5, "A", "load"), (6, "A", "store"))
    run = traced((1, 1, 1), (4, 1, 1), A4, sites, [Row(0, 0, (1,)), Row(1, 1, (1,))])
    assert said(run) == [
        "Missing barrier: line 5: thread 0 (blockIdx 0, threadIdx 0) loads A[1] and at line 6 thread 1 "
        "(blockIdx 0, threadIdx 1) stores it, with no cuda.syncthreads() between: add "
        "cuda.syncthreads() after line 5, before line 6."
    ]


# --- x and y swapped (scattered rows) ---------------------------------------------------------


def _rows_apart(lanes: int, index: list[tuple[int, int]]) -> TraceResult:
    """Lane t stores v[t] (line 7, one sector) and loads A[index[t]] (line 6); A is (12, 8)
    float32: a row is 32 bytes, one sector, so lanes on different rows use one sector each."""
    arrays = (ArrayInfo("v", (lanes,), F32), ArrayInfo("A", (12, 8), F32))
    sites = sites_of(arrays, (6, "A", "load"), (7, "v", "store"))
    rows = [Row(t, 0, index[t]) for t in range(lanes)] + [Row(t, 1, (t,)) for t in range(lanes)]
    return traced((1, 1, 1), (lanes, 1, 1), arrays, sites, rows)


def test_neighbouring_lanes_a_row_apart_are_x_and_y_swapped() -> None:
    # 6 lanes load A[t + 2, 1]: 6 rows, 6 sectors in one request, more than 4 bytes + 1 = 5;
    # lanes 0 and 1 touch A[2, 1] and A[3, 1]: one row apart, same column
    run = _rows_apart(6, [(t + 2, 1) for t in range(6)])
    assert said(run) == [
        "x and y swapped: line 6: neighbouring threads in x, thread 0 (blockIdx 0, threadIdx 0) and "
        "thread 1, touch A[2, 1] and A[3, 1], a row apart (6 sectors per request): x must index the "
        "last axis, A[y, x]."
    ]


def test_five_sectors_or_lanes_two_rows_apart_are_not_called_swapped() -> None:
    # 5 lanes on 5 rows: 5 sectors per request, not more than 4 + 1
    assert said(_rows_apart(5, [(t + 2, 1) for t in range(5)])) == []
    # 6 lanes on every other row, A[2 t, 1]: scattered, but lanes are two rows apart, not one
    assert said(_rows_apart(6, [(2 * t, 1) for t in range(6)])) == []


# --- shared tiles ------------------------------------------------------------------------------


def _tile_run(tile: ArrayInfo, index: list[tuple[int, ...]]) -> TraceResult:
    """Lane t loads tile[index[t]] at line 9 (one block of len(index) threads)."""
    arrays = (ArrayInfo("out", (len(index),), F32), tile)
    sites = sites_of(arrays, (9, tile.name, "load"))
    return traced((1, 1, 1), (len(index), 1, 1), arrays, sites, [Row(t, 0, i) for t, i in enumerate(index)])


def test_a_column_of_an_unpadded_tile_asks_for_one_more_column() -> None:
    # tile (4, 32) float32: lane 0 reads tile[2, 1] (byte 4 * 65 = 260, word 65, bank 65 % 32 = 1),
    # lane 1 tile[3, 1] (byte 4 * 97 = 388, word 97, bank 1): 32 words apart, both in bank 1, a
    # 2-way conflict; one more column, (4, 33), spreads a column over the banks
    run = _tile_run(ArrayInfo("tile", (4, 32), F32, SHARED), [(2, 1), (3, 1)])
    assert said(run) == [
        "Padded tile forgotten: line 9: thread 0 (blockIdx 0, threadIdx 0) and the next lane read "
        "tile[2, 1] and tile[3, 1], 32 words apart, both in bank 1 (a 2-way conflict): declare tile as "
        "(4, 33) so that a column spreads over all 32 banks."
    ]


def test_tiles_without_a_column_conflict_get_no_padding_advice() -> None:
    # a float64 (2, 16) tile read down its columns: lane t reads tile[t % 2, t // 2], words
    # 2 f and 2 f + 1 of element f = 16 (t % 2) + t // 2: lane 0 words 0, 1; lane 1 words 32, 33;
    # lane 2 words 2, 3 ... every bank holds 2 of the 64 words, and 64 words need 2 passes
    # anyway: no conflict, although lanes 0 and 1 are 32 words apart
    f64 = ArrayInfo("tile", (2, 16), "float64", SHARED)
    assert said(_tile_run(f64, [(t % 2, t // 2) for t in range(32)])) == []
    # a 1-D shared array read with a stride of 32 words: a conflict, but no column to pad
    flat = ArrayInfo("tile", (64,), F32, SHARED)
    assert said(_tile_run(flat, [(0,), (32,)])) == []
    # tile (2, 32) read at every other word, lane t at flat 2 t: lanes t and t + 16 share a bank
    # (2-way conflict), but neighbouring lanes are 2 words apart: padding by a column is not it
    stride2 = ArrayInfo("tile", (2, 32), F32, SHARED)
    assert said(_tile_run(stride2, [(2 * t // 32, 2 * t % 32) for t in range(32)])) == []


def test_a_run_with_nothing_wrong_gets_no_sentence() -> None:
    # one thread stores the one element; the failed case before it is skipped
    arrays = (ArrayInfo("out", (1,), F32),)
    sites = sites_of(arrays, (8, "out", "store"))
    assert said(traced((1, 1, 1), (1, 1, 1), arrays, sites, [Row(0, 0, (0,))])) == []
