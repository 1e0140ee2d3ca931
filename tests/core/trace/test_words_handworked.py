"""A traced run's words on hand-made findings: thread coordinates, a 3-D shape, the lines the
editor is sent to, and a simulated thread's failure. Expected text worked out in the comments."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from simtviz.core.trace.analysis import Analysis
from simtviz.core.trace.stats import ArrayStats, LineStats
from simtviz.core.trace.words import look_at, shape_words, simulated_failure_words, thread_words


def test_thread_coordinates_in_each_number_of_dimensions() -> None:
    # block 8, thread 13 = block 1, thread 5
    assert thread_words(13, [2, 1, 1], [8, 1, 1]) == "blockIdx.x=1, threadIdx.x=5"
    # grid (2, 1, 2), block 4: thread 13 = block 3, thread 1; block 3 = x 1 + z 1 * (2 * 1)
    assert thread_words(13, [2, 1, 2], [4, 1, 1]) == "blockIdx=(1, 0, 1), threadIdx=(1, 0, 0)"
    # block (2, 1, 2): thread 3 = x 1, z 1 (3 = 1 + 1 * 2)
    assert thread_words(3, [1, 1, 1], [2, 1, 2]) == "blockIdx=(0, 0, 0), threadIdx=(1, 0, 1)"
    # a y of 2 in the grid or the block alone: two coordinates
    assert thread_words(5, [1, 2, 1], [4, 1, 1]) == "blockIdx=(0, 1), threadIdx=(1, 0)"
    assert thread_words(3, [1, 1, 1], [2, 2, 1]) == "blockIdx=(0, 0), threadIdx=(1, 1)"


def test_a_3d_shape_is_said_as_a_tuple() -> None:
    assert shape_words("A", [2, 3, 4]) == "A has shape (2, 3, 4)"


def row(
    line: int, array: str, kind: str, requests: int = 0, sectors: float = 0.0, eff: float = 1.0
) -> LineStats:
    return LineStats(line, array, kind, 0, requests, 0, sectors_per_request=sectors, efficiency=eff)


def analysis(s: dict[str, Any]) -> Analysis:
    """An analysis with these arrays (their dtype and multiple writers) and per-line rows."""
    arrays = {
        name: ArrayStats((), a["dtype"], 0, 0, 0, untouched=0, multi_writer=a.get("multi_writer", 0))
        for name, a in s["arrays"].items()
    }
    return Analysis(accesses=0, logged=0, oob_total=0, oob=[], arrays=arrays, lines=s["lines"])


def test_a_race_points_at_the_arrays_stores_only() -> None:
    s = {
        "arrays": {"A": {"multi_writer": 3, "dtype": "float32"}, "B": {"dtype": "float32"}},
        "lines": [row(7, "A", "load"), row(8, "A", "store"), row(9, "B", "store")],
    }
    assert look_at(analysis(s)) == [(8, "A: elements stored by more than one thread")]


def test_scattered_accesses_from_either_too_many_sectors_or_too_little_use() -> None:
    # float32: ideal 4 sectors (32 threads x 4 bytes / 32-byte sectors); flagged above 4 + 0.5
    # or below 50 % of the fetched bytes used
    s = {
        "arrays": {"A": {"dtype": "float32"}},
        "lines": [
            row(7, "A", "load", requests=2, sectors=4.5, eff=0.5),  # exactly at both limits: fine
            row(8, "A", "load", requests=2, sectors=8.0, eff=1.0),  # too many sectors only
            row(9, "A", "load", requests=2, sectors=4.0, eff=0.25),  # too little used only
        ],
    }
    assert look_at(analysis(s)) == [(8, "A: scattered accesses"), (9, "A: scattered accesses")]


def test_a_simulated_failure_is_said_with_its_line() -> None:
    assert simulated_failure_words(ValueError("bad value"), 12) == "line 12: ValueError: bad value"
    assert simulated_failure_words(ValueError("bad value"), None) == "ValueError: bad value"


def test_a_float_index_names_only_the_float_arrays() -> None:
    specs = [
        SimpleNamespace(name="data", shape=(1000,), dtype="float32"),
        SimpleNamespace(name="scale", shape=None, dtype="float32"),  # a float scalar: no index
        SimpleNamespace(name="bins", shape=(8,), dtype="int32"),
    ]
    exc = IndexError("only integers, slices are valid indices")
    text = simulated_failure_words(exc, 14, specs)
    assert text.startswith(
        "line 14: an array index must be an integer, and this one is a float (data is float): "
    )


def test_an_index_error_of_another_kind_is_said_as_it_is() -> None:
    exc = IndexError("index 9 is out of bounds for axis 0 with size 8")
    assert (
        simulated_failure_words(exc, 3)
        == "line 3: IndexError: index 9 is out of bounds for axis 0 with size 8"
    )
