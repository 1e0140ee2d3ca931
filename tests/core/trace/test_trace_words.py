"""Findings a beginner can read, and no wrong lesson beside a verdict: the racing histogram's
pass on numba's simulator, a pass beside out-of-bounds stores, sectors per request rounded and
explained with the ideal for the element size, threads in blockIdx/threadIdx, 2-D elements by
row and column, and the line each kind of finding points at. Numbers worked by hand."""

from __future__ import annotations

import pytest

from sim_templates import sim_template
from simtviz.core.trace.model import TraceRequest, TraceResult
from simtviz.core.trace.report import findings
from simtviz.core.trace.stats import LineStats
from simtviz.core.trace.templates import template
from simtviz.core.trace.words import (
    look_at,
    number,
    sectors_words,
    simulator_thread_words,
    thread_words,
)


@pytest.fixture(scope="module", autouse=True)
def needs_sim(backend_kind: str) -> None:
    if backend_kind != "sim":
        pytest.skip("simulator tests")


def run_template(name: str) -> TraceResult:
    return sim_template(name)  # run once per process (tests/sim_templates.py)


def test_racing_histogram_pass_on_the_simulator_says_why_beside_the_verdict() -> None:
    text = "\n".join(findings(run_template("histogram_racing")))
    # 64 threads over 8 bins: every bin stored by 8 threads, yet the sum is right on the simulator.
    assert "8 elements stored by more than one thread" in text
    verdict = text.split("Check bins.sum() == data.size: passed here,\n", 1)[1].splitlines()[0]
    assert verdict.startswith("  but numba's simulator runs the threads one after another")
    assert "cannot lose updates on it; on a GPU (or the CPU emulator) they can" in verdict
    assert "8 elements of bins stored by more than one thread could lose updates" in verdict


def test_a_pass_beside_out_of_bounds_accesses_says_they_were_skipped() -> None:
    text = "\n".join(findings(run_template("vecadd_unguarded")))
    # 24 extra threads (1024 - 1000), each: load A, load B, store C.
    assert (
        "Check C == A + B: passed here,\n  but the 24 out-of-bounds stores were skipped by the tracer; "
        in text
    )
    assert "on a GPU they would have written past the array" in text
    assert "the 48 out-of-bounds loads read 0 here" in text  # 24 × 2 loads


def test_a_clean_pass_stays_one_short_line() -> None:
    assert "Check C == A + B: passed." in findings(run_template("vecadd_guarded"))


def test_sectors_per_request_rounded_with_their_ideal_and_a_legend() -> None:
    lines = findings(run_template("vecadd_unguarded"))
    # 32 warps; 31 touch 32 floats = 128 B = 4 sectors, the last one 8 floats (992..999) = 1 sector:
    # (31 × 4 + 1) / 32 = 3.90625 → 3.91.
    assert "line 14 load A: 3.91 sectors per request (ideal: 4 for 4-byte elements), 100% of" in "\n".join(
        lines
    )
    assert any(s.startswith("Sectors per request: the 32-byte pieces") and "8 for 8-byte" in s for s in lines)
    assert any(s.startswith("Fetched bytes used:") and "100% is best" in s for s in lines)
    # 8 int32 bins are 32 bytes: one sector, said in the singular.
    assert "line 15 load bins: 1 sector per request (" in "\n".join(
        findings(run_template("histogram_racing"))
    )


def test_number_and_the_ideal_for_8_byte_elements() -> None:
    assert [number(v) for v in (3.90625, 6.5, 4.0, 1.0, 0.333)] == ["3.91", "6.5", "4", "1", "0.33"]
    row = LineStats(7, "A", "load", 32, 1, 8, sectors_per_request=8.0, efficiency=1.0)
    # 32 lanes × 8 bytes = 256 bytes = 8 sectors of 32 bytes.
    assert (
        sectors_words(row, "float64")
        == "8 sectors per request (ideal: 8 for 8-byte elements), 100% of the fetched bytes used"
    )


def test_wavefronts_explained_once_for_a_shared_array() -> None:
    lines = findings(run_template("transpose_tile"))
    legend = [s for s in lines if s.startswith("Wavefronts per request")]
    assert len(legend) == 1 and "1 is best, a k-way bank conflict takes k" in legend[0]


def test_threads_in_cuda_words_and_2d_elements_by_row_and_column() -> None:
    assert thread_words(1000, (4, 1, 1), (256, 1, 1)) == "blockIdx.x=3, threadIdx.x=232"  # 3 × 256 + 232
    # block (8, 4): 32 threads per block; thread 46 = block 1 (x=1, y=0), inner 14 = (x=6, y=1)
    assert thread_words(46, (2, 2, 1), (8, 4, 1)) == "blockIdx=(1, 0), threadIdx=(6, 1)"
    assert simulator_thread_words("IndexError: tid=[21, 0, 0] ctaid=[0, 1, 0]: index 99") == (
        "IndexError: blockIdx=(0, 1, 0), threadIdx=(21, 0, 0): index 99"
    )
    text = "\n".join(findings(run_template("matadd_swapped")))
    # grid (2, 2) of (8, 4): thread 6 is block (0, 0), threadIdx (6, 0); it reads row 6 of 6 rows.
    assert (
        "e.g. line 16: the thread with blockIdx=(0, 0), threadIdx=(6, 0) (thread 6) loads A[6, 0] "
        "(row 6, column 0), but A has 6 rows (0 to 5) and 10 columns (0 to 9)"
    ) in text


def test_every_kind_of_finding_has_a_line_to_look_at() -> None:
    assert look_at(run_template("vecadd_unguarded").analysis)[0][0] == 14  # out of bounds
    assert look_at(run_template("histogram_racing").analysis)[0] == (
        15,
        "bins: elements stored by more than one thread",
    )  # the racing store
    # B[j, i] = A[i, j]: the store on line 15 takes 16 sectors per request where 4 would do.
    assert look_at(run_template("transpose_naive").analysis) == [(15, "B: scattered accesses")]
    tile = look_at(run_template("transpose_tile").analysis)
    assert [why for _, why in tile] == ["tile: bank conflicts"]
    assert look_at(run_template("vecadd_guarded").analysis) == []


def test_the_findings_name_the_lines_to_look_at_first() -> None:
    lines = findings(run_template("histogram_racing"))
    assert lines[2] == "Look at line 15 (bins: elements stored by more than one thread)."
    assert not any(s.startswith("Look at") for s in findings(run_template("vecadd_guarded")))


def test_without_a_check_the_race_s_line_says_what_the_simulator_cannot_show() -> None:
    from simtviz.backends.trace.sim import run_trace_sim

    t = template("histogram_racing")
    result = run_trace_sim(TraceRequest(t.source, t.grid, t.block, t.args, filename=t.file))  # no check
    (line,) = [s for s in findings(result) if s.startswith("bins int32[8]:")]
    assert line.endswith(
        "8 elements stored by more than one thread (a race unless the threads write the same value); "
        "numba's simulator runs the threads one after another, so a race cannot lose updates on it; "
        "on a GPU (or the CPU emulator) they can."
    )
