"""An exercise's launches as the handout and ``simtviz exercise show`` print them, and their sizes,
worked out by hand."""

from __future__ import annotations

from simtviz.core.exercise.model import Case


def test_a_case_counts_the_threads_of_every_block_of_the_grid() -> None:
    # grid 2 × 3 = 6 blocks of 4 × 5 = 20 threads: 120 (not 6 + 20 = 26)
    assert Case((2, 3, 1), (4, 5, 1), {}).threads == 120
    assert Case((3, 1, 1), (128, 1, 1), {}).threads == 384


def test_a_case_in_words_drops_trailing_ones_and_the_init() -> None:
    # (3, 1, 1) -> 3; (16, 16, 1) -> (16, 16); (1, 1, 1) -> 1; (2, 3, 4) keeps all three;
    # a scalar "int32:10" shows its type only
    one = Case((3, 1, 1), (128, 1, 1), {"a": "float32[300]:random", "n": "int32:10", "out": "float32[300]"})
    assert one.words() == "grid 3, block 128, a=float32[300], n=int32, out=float32[300]"
    two = Case((2, 2, 1), (16, 16, 1), {"A": "float32[20,24]:random"})
    assert two.words() == "grid (2, 2), block (16, 16), A=float32[20,24]"
    three = Case((1, 1, 1), (2, 3, 4), {"A": "float32[2,3,4]"})
    assert three.words() == "grid 1, block (2, 3, 4), A=float32[2,3,4]"
