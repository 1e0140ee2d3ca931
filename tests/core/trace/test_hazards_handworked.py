"""Hazards from hand-made logs and hand-made findings, no kernel run: which pairs are found, the
example threads named, the thread coordinates and every sentence of advice. Each expected value is
worked out in the comments."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from simtviz.core.trace.analysis import ArrayInfo
from simtviz.core.trace.hazards import (
    RAW,
    WAR,
    WAW,
    Hazard,
    HazardExample,
    _example,
    find_hazards,
    hazard_words,
    loop_carried,
    thread_words,
)
from simtviz.core.trace.rewrite import Site

LOAD, STORE, ATOMIC = 0, 1, 2


def log_of(rows: list[tuple[int, ...]]) -> np.ndarray:
    """Rows (thread, site, kind, array, i0, i1[, i2]), epoch 0, in bounds, as the tracer logs them
    (fields thread, site, flags = oob | kind << 1 | array << 3, offset, i0, i1, i2, epoch)."""
    log = np.zeros((8, len(rows)), dtype=np.int64)
    for n, (thread, site, kind, array, i0, i1, *i2) in enumerate(rows):
        log[:, n] = [thread, site, (kind << 1) | (array << 3), 0, i0, i1, i2[0] if i2 else 0, 0]
    return log


def sites_of(*specs: tuple[int, str, str]) -> list[Site]:
    return [Site(n, line, 4, array, kind, 1) for n, (line, array, kind) in enumerate(specs)]


def pairs(found: list[Hazard]) -> list[tuple[str, str, int, int, int]]:
    return [(h.array, h.kind, h.line_first, h.line_second, h.count) for h in found]


A8 = [ArrayInfo("A", (8,), "float32")]


def test_an_empty_log_has_no_hazards() -> None:
    assert (
        find_hazards(np, np.zeros((8, 0), dtype=np.int64), sites_of((5, "A", "store")), A8, [8, 1, 1]) == []
    )


def test_one_store_and_another_threads_load_is_a_hazard() -> None:
    # thread 0 stores A[0] at line 5, thread 1 loads it at line 6, same epoch: read-after-write;
    # the array has exactly one store, which is enough
    sites = sites_of((5, "A", "store"), (6, "A", "load"))
    log = log_of([(0, 0, STORE, 0, 0, 0), (1, 1, LOAD, 0, 0, 0)])
    found = find_hazards(np, log, sites, A8, [8, 1, 1])
    assert pairs(found) == [("A", RAW, 5, 6, 1)]
    assert found[0].example.as_json() == {
        "index": [0],
        "block": 0,
        "threads": [0, 1],
        "writer": 0,
        "reader": 1,
    }


def test_a_2d_element_is_named_by_its_row_and_column() -> None:
    # A is 2 x 3; thread 0 stores A[0, 1] (line 5), thread 1 loads A[0, 1] (line 6), thread 2
    # loads A[1, 0] (line 6): one colliding element, A[0, 1] (row-major flat 0 * 3 + 1 = 1)
    arrays = [ArrayInfo("A", (2, 3), "float32")]
    sites = sites_of((5, "A", "store"), (6, "A", "load"))
    log = log_of([(0, 0, STORE, 0, 0, 1), (1, 1, LOAD, 0, 0, 1), (2, 1, LOAD, 0, 1, 0)])
    found = find_hazards(np, log, sites, arrays, [4, 1, 1])
    assert pairs(found) == [("A", RAW, 5, 6, 1)]
    assert found[0].example.as_json()["index"] == [0, 1]


def test_a_3d_element_is_named_by_its_three_indices() -> None:
    # A is 2 x 2 x 3; thread 0 stores A[1, 0, 2] (line 5), thread 1 loads it (line 6)
    arrays = [ArrayInfo("A", (2, 2, 3), "float32")]
    sites = sites_of((5, "A", "store"), (6, "A", "load"))
    log = log_of([(0, 0, STORE, 0, 1, 0, 2), (1, 1, LOAD, 0, 1, 0, 2), (2, 1, LOAD, 0, 0, 1, 1)])
    found = find_hazards(np, log, sites, arrays, [4, 1, 1])
    assert pairs(found) == [("A", RAW, 5, 6, 1)]
    assert found[0].example.as_json()["index"] == [1, 0, 2]


def test_a_thread_reading_back_its_own_store_is_no_hazard() -> None:
    # element A[0]: thread 0 stores it (line 5) and loads it back (line 6); thread 1 loads it
    # (line 7). Only 5 -> 7 pairs two threads; 5 -> 6 is one thread, 6 -> 7 two loads.
    sites = sites_of((5, "A", "store"), (6, "A", "load"), (7, "A", "load"))
    log = log_of([(0, 0, STORE, 0, 0, 0), (0, 1, LOAD, 0, 0, 0), (1, 2, LOAD, 0, 0, 0)])
    assert pairs(find_hazards(np, log, sites, A8, [8, 1, 1])) == [("A", RAW, 5, 7, 1)]


def test_one_store_read_by_two_threads_on_its_own_line_is_not_an_update() -> None:
    # line 5 loads then stores A[0] (`A[0] = A[0] * 2`-like) but only thread 0 stores while
    # threads 0 and 1 load: not "all threads updating together", so no atomic advice
    sites = sites_of((5, "A", "load"), (5, "A", "store"))
    log = log_of([(0, 0, LOAD, 0, 0, 0), (1, 0, LOAD, 0, 0, 0), (0, 1, STORE, 0, 0, 0)])
    found = find_hazards(np, log, sites, A8, [8, 1, 1])
    assert pairs(found) == [("A", WAR, 5, 5, 1)]
    assert found[0].update is False
    assert "cuda.atomic.add" not in hazard_words(found[0], [1, 1, 1], [8, 1, 1])


# --- the example's two threads (entries a and b with their smallest and largest thread) ---

INFO = ArrayInfo("A", (8,), "float32")
FLAT, BLK = np.array([3, 3]), np.array([0, 0])


def example(a: tuple[int, int], b: tuple[int, int], hazard: str = RAW) -> dict[str, Any]:
    t_min, t_max = np.array([a[0], b[0]]), np.array([a[1], b[1]])
    return _example(0, 1, hazard, t_min, t_max, FLAT, BLK, INFO).as_json()


def test_the_example_threads_differ_whatever_the_entries_ranges() -> None:
    # a's smallest 0, b's smallest 1: those two
    assert example((0, 0), (1, 3))["threads"] == [0, 1]
    # both smallest 2: a's 2 and b's largest 4
    assert example((2, 5), (2, 4))["threads"] == [2, 4]
    # b is thread 2 alone, a runs 2..5: a's largest 5 and b's 2
    assert example((2, 5), (2, 2))["threads"] == [5, 2]


def test_the_example_names_writer_and_reader_by_kind() -> None:
    # threads [0, 1]: read-after-write, the first writes; write-after-read, the second writes
    assert example((0, 0), (1, 1), RAW) == {
        "index": [3],
        "block": 0,
        "threads": [0, 1],
        "writer": 0,
        "reader": 1,
    }
    assert example((0, 0), (1, 1), WAR) == {
        "index": [3],
        "block": 0,
        "threads": [0, 1],
        "writer": 1,
        "reader": 0,
    }
    ex = example((0, 0), (1, 1), WAW)
    assert (ex["writer"], ex["reader"], ex["other_writer"]) == (0, None, 1)


# --- thread coordinates as the student reads them ---


def test_a_thread_of_a_3d_launch_in_coordinates() -> None:
    # grid (4, 3, 2), block (4, 3, 2): 24 threads a block. Thread 525 = 21 * 24 + 21.
    # block 21 = 1 + 2 * 4 + 1 * (4 * 3): blockIdx (1, 2, 1); inner 21 likewise threadIdx (1, 2, 1)
    assert thread_words(525, [4, 3, 2], [4, 3, 2]) == "thread 525 (blockIdx (1, 2, 1), threadIdx (1, 2, 1))"
    # grid (3, 2, 1), block (5, 4, 1): 20 a block. Thread 97 = 4 * 20 + 17; block 4 = 1 + 1 * 3;
    # inner 17 = 2 + 3 * 5: blockIdx (1, 1), threadIdx (2, 3); 2-D, no z shown
    assert thread_words(97, [3, 2, 1], [5, 4, 1]) == "thread 97 (blockIdx (1, 1), threadIdx (2, 3))"


def test_a_1d_launch_shows_plain_numbers() -> None:
    # block 8: thread 13 = 1 * 8 + 5
    assert thread_words(13, [2, 1, 1], [8, 1, 1]) == "thread 13 (blockIdx 1, threadIdx 5)"
    assert thread_words(1_234, [200, 1, 1], [8, 1, 1]) == "thread 1,234 (blockIdx 154, threadIdx 2)"


def test_a_z_of_two_in_grid_or_block_alone_makes_three_coordinates() -> None:
    # grid (1, 1, 2), block 4: thread 5 = block 1 (z = 1), inner 1
    assert thread_words(5, [1, 1, 2], [4, 1, 1]) == "thread 5 (blockIdx (0, 0, 1), threadIdx (1, 0, 0))"
    # grid 1, block (2, 1, 2): thread 3 = x 1, z 1
    assert thread_words(3, [1, 1, 1], [2, 1, 2]) == "thread 3 (blockIdx (0, 0, 0), threadIdx (1, 0, 1))"


def test_a_y_of_two_in_grid_or_block_alone_makes_two_coordinates() -> None:
    assert thread_words(5, [1, 2, 1], [4, 1, 1]) == "thread 5 (blockIdx (0, 1), threadIdx (1, 0))"
    assert thread_words(3, [1, 1, 1], [2, 2, 1]) == "thread 3 (blockIdx (0, 0), threadIdx (1, 1))"


# --- the sentence and its advice ---


def hazard(
    kind: str, a: int, b: int, count: int = 1, accesses: Sequence[str] = (), update: bool = False
) -> Hazard:
    """A[3]: thread 0 then thread 1 (thread 0 writes; thread 1 reads, or writes second)."""
    reader, other = (None, 1) if kind == WAW else (1, None)
    example = HazardExample((3,), 0, (0, 1), writer=0, reader=reader, other_writer=other)
    return Hazard("A", kind, a, b, count, "global", tuple(accesses), update, example)


def words(h: Hazard) -> str:
    return hazard_words(h, [1, 1, 1], [8, 1, 1])


def test_the_sentence_names_lines_count_and_verbs() -> None:
    text = words(hazard(RAW, 7, 10, count=1))
    # no accesses given: read-after-write is a store then a load
    assert text.startswith("Race (read-after-write) on A, lines 7 and 10, 1 element: ")
    assert "thread 0 (blockIdx 0, threadIdx 0) stores A[3] at line 7 and" in text
    assert "thread 1 (blockIdx 0, threadIdx 1) loads it at line 10" in text
    assert words(hazard(RAW, 7, 7, count=2)).startswith("Race (read-after-write) on A, line 7, 2 elements: ")
    # the recorded accesses win over the kind's default
    text = words(hazard(WAW, 4, 9, accesses=["atomic", "store"]))
    assert "adds into A[3] at line 4 and" in text and "stores it at line 9" in text


def test_each_kind_of_pair_gets_its_own_advice() -> None:
    # one line, every thread loading and storing: an update, use an atomic
    assert words(hazard(WAR, 6, 6, update=True)).endswith(
        " Use cuda.atomic.add for the update at line 6: a load then a store is not one step."
    )
    # one line, two stores
    assert words(hazard(WAW, 6, 6)).endswith(
        " Only one thread should store each element, or combine the values with cuda.atomic.add."
    )
    # one line, a load and a store, not an update: a loop's passes
    assert words(hazard(RAW, 6, 6)).endswith(
        " Add cuda.syncthreads() inside the loop after line 6, so that each pass ends before the next."
    )
    # two lines, even when marked an update or two stores: a barrier between them, or one store
    assert words(hazard(RAW, 6, 9, update=True)).endswith(
        " Add cuda.syncthreads() after line 6, before line 9."
    )
    assert words(hazard(WAW, 6, 9, accesses=["store", "store"])).endswith(
        " Only one thread should store each element: remove one store, or order them with a barrier."
    )
    assert words(hazard(WAW, 6, 9, accesses=["atomic", "store"])).endswith(
        " Add cuda.syncthreads() after line 6, before line 9."
    )


# --- a barrier written between the lines: the pair comes from two passes of a loop ---


def test_a_barrier_between_the_lines_flips_a_read_after_write() -> None:
    h = hazard(RAW, 7, 10, accesses=["store", "load"])
    [flipped] = [f.as_json() for f in loop_carried([h], barrier_lines=[8])]
    # the next pass's store at line 7 comes after this pass's load at line 10: write-after-read,
    # 10 then 7; threads reversed [1, 0], so thread 0 (the store's) still writes
    assert (flipped["kind"], flipped["line_first"], flipped["line_second"]) == (WAR, 10, 7)
    assert flipped["accesses"] == ["load", "store"] and flipped["loop_carried"] is True
    ex = flipped["example"]
    assert (ex["threads"], ex["writer"], ex["reader"]) == ([1, 0], 0, 1)


def test_a_barrier_between_the_lines_flips_a_write_after_read() -> None:
    [flipped] = [f.as_json() for f in loop_carried([hazard(WAR, 7, 10, ["load", "store"])], [9])]
    # WAR threads [0, 1]: writer 1. Flipped to RAW 10 -> 7 with threads [1, 0]: writer 1, reader 0
    assert (flipped["kind"], flipped["line_first"], flipped["line_second"]) == (RAW, 10, 7)
    ex = flipped["example"]
    assert (ex["threads"], ex["writer"], ex["reader"]) == ([1, 0], 1, 0)


def test_a_barrier_between_two_stores_keeps_write_after_write() -> None:
    [flipped] = [f.as_json() for f in loop_carried([hazard(WAW, 7, 10, ["store", "store"])], [8])]
    ex = flipped["example"]
    assert (flipped["kind"], flipped["line_first"], flipped["line_second"]) == (WAW, 10, 7)
    assert (ex["threads"], ex["writer"], ex["other_writer"], ex["reader"]) == ([1, 0], 1, 0, None)


def test_a_barrier_on_either_line_or_outside_is_not_between() -> None:
    h = hazard(RAW, 7, 10)
    for barriers in ([7], [10], [3, 12], []):
        assert loop_carried([h], barrier_lines=barriers) == [h]
    same = hazard(RAW, 7, 7)
    assert loop_carried([same], barrier_lines=[7]) == [same]
