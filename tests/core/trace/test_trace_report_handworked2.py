"""The Your kernel tab's findings for hand-made logs, more cases: a line whose every access was out
of bounds gets no sectors sentence, each legend comes only with lines of its own memory, and the
"the simulator cannot lose updates" remark goes only where the run was on the simulator and no
passed check says it already."""

from __future__ import annotations

import numpy as np

from simtviz.core.trace.analysis import LOG_FIELDS, ArrayInfo, analyse
from simtviz.core.trace.model import CheckOutcome, TraceResult
from simtviz.core.trace.report import findings
from simtviz.core.trace.rewrite import Site
from simtviz.core.trace.words import (
    EFFICIENCY_LEGEND,
    RACE_ON_SIMULATOR,
    SECTORS_LEGEND,
    WAVEFRONTS_LEGEND,
)

LOAD, STORE = 0, 1
BLOCK = (32, 1, 1)


def traced(
    sites: tuple[Site, ...],
    arrays: tuple[ArrayInfo, ...],
    rows: list[tuple[int, int, int, int, int, bool]],
    backend: str = "sim",
) -> TraceResult:
    """One block of 32 threads; each row is (thread, site, kind, array, index, out of bounds)."""
    log = np.array(
        [
            [t, site, int(oob) | kind << 1 | array << 3, 4 * index, index, 0, 0] + [0] * (LOG_FIELDS - 7)
            for t, site, kind, array, index, oob in rows
        ],
        dtype=np.int64,
    ).T
    a = analyse(log, log.shape[1], sites, arrays, BLOCK)
    return TraceResult(backend, "k", (1, 1, 1), BLOCK, sites, arrays, a, log, {}, {})


def global_only() -> TraceResult:
    # Line 4: threads 0-31 load A[t] (one request, 128 bytes side by side: 4 sectors, all used).
    # Line 9: threads 0-3 store A[32 + t]: past the 32 elements, so none was performed.
    sites = (Site(0, 4, 8, "A", "load", 1), Site(1, 9, 8, "A", "store", 1))
    rows = [(t, 0, LOAD, 0, t, False) for t in range(32)]
    rows += [(t, 1, STORE, 0, 32 + t, True) for t in range(4)]
    return traced(sites, (ArrayInfo("A", (32,), "float32"),), rows)


def test_a_line_whose_accesses_all_fell_outside_gets_no_sectors_sentence() -> None:
    text = findings(global_only())
    assert (
        "4 out-of-bounds accesses (skipped here; a GPU would have touched memory outside the array):" in text
    )
    assert "  line 9: 4 × store of A" in text
    assert [t for t in text if t.startswith("line ")] == [
        "line 4 load A: 4 sectors per request (ideal: 4 for 4-byte elements), 100% of the fetched bytes used"
    ]  # nothing for line 9: it fetched nothing, so "0 sectors per request" would mean nothing


def test_global_lines_alone_bring_the_sectors_legends_and_not_the_wavefronts_one() -> None:
    text = findings(global_only())
    assert SECTORS_LEGEND in text and EFFICIENCY_LEGEND in text
    assert WAVEFRONTS_LEGEND not in text


def test_shared_lines_alone_bring_the_wavefronts_legend_and_not_the_sectors_ones() -> None:
    # Line 7: threads 0-31 store s[t]: words 0-31, one per bank, so 1 wavefront (the least).
    sites = (Site(0, 7, 8, "s", "store", 1, "shared"),)
    rows = [(t, 0, STORE, 0, t, False) for t in range(32)]
    text = findings(traced(sites, (ArrayInfo("s", (64,), "float32", "shared"),), rows))
    assert "s float32[64] (shared, one per block): 0 loads, 32 stores." in text
    assert [t for t in text if t.startswith("line ")] == [
        "line 7 store s (shared): 1 wavefront per request (no bank conflicts)"
    ]
    assert WAVEFRONTS_LEGEND in text
    assert SECTORS_LEGEND not in text and EFFICIENCY_LEGEND not in text


def raced(backend: str, check: CheckOutcome | None) -> str:
    """The line about B: threads 0 and 1 both store B[0] on line 5 (B int32[4])."""
    sites = (Site(0, 5, 8, "B", "store", 1),)
    rows = [(0, 0, STORE, 0, 0, False), (1, 0, STORE, 0, 0, False)]
    r = traced(sites, (ArrayInfo("B", (4,), "int32"),), rows, backend)
    r.check = check
    (line,) = [t for t in findings(r) if t.startswith("B int32[4]")]
    return line


# 2 stores, B[1..3] untouched (3 of 4), B[0] by two threads (1 element)
RACE = (
    "B int32[4]: 0 loads, 2 stores; 3 of 4 elements untouched; 1 elements stored by more than one "
    "thread (a race unless the threads write the same value)"
)


def test_the_simulator_remark_follows_a_race_on_the_simulator_unless_a_passed_check_says_it() -> None:
    assert raced("sim", None) == f"{RACE}; {RACE_ON_SIMULATOR}."
    # A failed check says nothing about races: the remark stays beside the array.
    assert raced("sim", CheckOutcome("B == 1", passed=False, failing=1)) == f"{RACE}; {RACE_ON_SIMULATOR}."
    # A passed check carries it as its caveat instead ("passed here, but ..."), not twice.
    assert raced("sim", CheckOutcome("B[0] == 1", passed=True)) == f"{RACE}."


def test_no_simulator_remark_where_the_run_was_not_on_the_simulator() -> None:
    # The CPU emulator and a GPU can lose updates: the remark would say the opposite.
    assert raced("emu", None) == f"{RACE}."
    assert raced("gpu:NVIDIA H100 80GB HBM3", CheckOutcome("B == 1", passed=False, failing=1)) == f"{RACE}."
