"""The trace's findings and its .npz from a hand-made log: the numbers each sentence carries, the
out-of-bounds examples, the window's lines, the check, the timing, and the saved rows decoded."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from simtviz.core.trace.analysis import LOG_FIELDS, ArrayInfo, analyse
from simtviz.core.trace.model import BlockWindow, CheckOutcome, TraceResult
from simtviz.core.trace.report import OOB_SHOWN, bank_words, findings, save_npz, timing_words
from simtviz.core.trace.rewrite import Site
from simtviz.core.trace.stats import SharedLineStats

LOAD, STORE, ATOMIC = 0, 1, 2
SITES = (
    Site(0, 4, 8, "A", "load", 1),
    Site(1, 5, 8, "H", "atomic", 1),
    Site(2, 6, 4, "B", "store", 2),
    Site(3, 7, 4, "s", "load", 1, "shared"),
)
ARRAYS = (
    ArrayInfo("A", (8,), "float32"),
    ArrayInfo("H", (4,), "int32"),
    ArrayInfo("B", (2, 3), "float32"),
    ArrayInfo("s", (64,), "float32", "shared"),
)


def row(
    thread: int, site: int, kind: int, array: int, index: tuple[int, ...], oob: bool = False
) -> list[int]:
    shape = ARRAYS[array].shape
    flat = index[0] * (shape[1] if len(shape) > 1 else 1) + (index[1] if len(index) > 1 else 0)
    return [thread, site, int(oob) | kind << 1 | array << 3, 4 * flat, *[*index, 0, 0][:3]]


def hand_result(
    window: BlockWindow | None = None, made: int | None = None, accesses: int | None = None
) -> TraceResult:
    rows = []
    # threads 0-7 load A[t]; thread 8 and 9 load A[8], A[9]: out of bounds (8 elements)
    rows += [row(t, 0, LOAD, 0, (t,)) for t in range(8)]
    rows += [row(t, 0, LOAD, 0, (t,), oob=True) for t in (8, 9)]
    # threads 0-5 add to H[t % 2]: 3 atomics each on H[0], H[1]; H[2], H[3] untouched
    rows += [row(t, 1, ATOMIC, 1, (t % 2,)) for t in range(6)]
    # B (2, 3): threads 0 and 1 both store B[1, 2]; thread 2 stores B[0, 0]; thread 3..7 store
    # B[2, 0..4]: out of bounds in the rows (5 more, 7 in all)
    rows += [row(0, 2, STORE, 2, (1, 2)), row(1, 2, STORE, 2, (1, 2)), row(2, 2, STORE, 2, (0, 0))]
    rows += [row(t, 2, STORE, 2, (2, t - 3), oob=True) for t in range(3, 8)]
    # shared s[2·lane] by one warp: words 0, 2, .., 62: banks 0, 2, .., 30, 2 words each: 2-way
    rows += [row(t, 3, LOAD, 3, (2 * t,)) for t in range(32)]
    log = np.array([r + [0] * (LOG_FIELDS - 7) for r in rows], dtype=np.int64).T  # epoch 0
    assert log.shape[0] == LOG_FIELDS
    n = log.shape[1]  # 8 + 2 + 6 + 3 + 5 + 32 = 56
    analysis = analyse(log, accesses or n, SITES, ARRAYS, (32, 1, 1))
    finals = {"A": np.arange(8, dtype=np.float32)}
    return TraceResult(
        "sim", "k", (1, 1, 1), (32, 1, 1), SITES, ARRAYS, analysis, log, {}, finals,
        window=window, window_accesses=made,
    )  # fmt: skip


def test_the_findings_carry_the_hand_counted_numbers() -> None:
    text = findings(hand_result())
    assert text[0] == "k[(1, 1, 1), (32, 1, 1)] — 32 threads on the CUDA simulator"
    assert text[1] == "56 memory accesses, all logged."
    joined = "\n".join(text)
    # 2 out-of-bounds loads of A (line 4) and 5 stores to B (line 6): 7
    assert re.search(r"^7 out-of-bounds accesses", joined, re.M)
    assert "  line 4: 2 × load of A" in text and "  line 6: 5 × store of B" in text
    examples = [ln for ln in text if ln.startswith("  e.g. ")]
    assert len(examples) == OOB_SHOWN == 5  # the first five in log order
    assert examples[0] == (
        "  e.g. line 4: the thread with blockIdx.x=0, threadIdx.x=8 (thread 8) loads A[8], "
        "but A has 8 elements (0 to 7)"
    )
    assert examples[2].startswith(
        "  e.g. line 6: the thread with blockIdx.x=0, threadIdx.x=3 (thread 3) stores B[2, 0] "
        "(row 2, column 0), but B has 2 rows (0 to 1) and 3 columns (0 to 2)"
    )
    (a,) = [ln for ln in text if ln.startswith("A float32[8]")]
    assert a.startswith("A float32[8]: 10 loads, 0 stores")  # 8 + 2 attempts; no element untouched
    assert "untouched" not in a
    (h,) = [ln for ln in text if ln.startswith("H int32[4]")]
    assert h.startswith("H int32[4]: 0 loads, 0 stores, 6 atomic adds; 2 of 4 elements untouched")
    (b,) = [ln for ln in text if ln.startswith("B float32[2, 3]")]
    # 8 store attempts; 4 of 6 elements untouched (B[0, 0] and B[1, 2] stored); B[1, 2] by 2 threads
    assert b.startswith("B float32[2, 3]: 0 loads, 8 stores; 4 of 6 elements untouched")
    assert "; 1 elements stored by more than one thread" in b
    (s,) = [ln for ln in text if ln.startswith("s float32[64] (shared")]
    assert "32 loads, 0 stores" in s
    assert (
        "line 7 load s (shared): 2 wavefronts per request (up to a 2-way bank conflict; 1 without" in joined
    )
    # A: 8 loads in one request, bytes 0..31: 1 sector, 32 of 32 bytes used
    assert re.search(
        r"^line 4 load A: 1 sectors? per request\b.*, 100% of the fetched bytes used$", joined, re.M
    )


def test_the_window_lines_say_how_much_of_the_window_was_logged() -> None:
    w = BlockWindow(0, 1)
    text = findings(hand_result(w, 56, 100))
    assert text[2] == "Logged all 56 accesses these threads made, of 100 the launch made."
    assert "No out-of-bounds accesses" not in "\n".join(text)
    text = findings(hand_result(w, 80, 100))  # the budget kept 56 of the window's 80
    assert text[2].startswith(
        "Logged 56 of the 80 accesses these threads made (the budget; the launch made 100)"
    )
    (h,) = [ln for ln in text if ln.startswith("H int32[4]")]
    assert h.endswith("2 of 4 elements untouched by the window's threads.")


def test_the_budget_line_without_a_window() -> None:
    assert findings(hand_result(None, None, 200))[1].startswith("Logged 56 of 200 accesses (the budget)")


def test_the_check_lines() -> None:
    r = hand_result()
    r.check = CheckOutcome("A == 1", passed=False, error=None, failing=7)
    assert "Check A == 1: FAILED (7 elements differ)." in findings(r)
    r.check = CheckOutcome("A >= 0", passed=True, error=None)
    assert any(t.startswith("Check A >= 0: passed") for t in findings(r))
    r.check = CheckOutcome("Z", passed=False, error="NameError: name 'Z' is not defined")
    assert "Check Z: could not be evaluated (NameError: name 'Z' is not defined)." in findings(r)


def test_timing_words_give_both_times_and_the_slowdown() -> None:
    # 2.000 ms traced / 0.500 ms as written = 4× slower
    s = {"backend": "gpu:NVIDIA H200", "kernel_ms": 0.5, "instrumented_ms": 2.0}
    assert timing_words(**s) == (
        "Kernel time: 0.500 ms as written, 2.000 ms traced (4× slower: every access is logged) "
        "(GPU time, host launch cost excluded)."
    )
    assert timing_words(**{"backend": "gpu:X", "kernel_ms": 0.25, "instrumented_ms": None}) == (
        "Kernel time: 0.250 ms as written (GPU time, host launch cost excluded)."
    )
    assert (
        timing_words(**{"backend": "gpu:X", "kernel_ms": None, "instrumented_ms": None})
        == "Kernel time: not measured."
    )


def shared(row: dict[str, Any]) -> SharedLineStats:
    """A shared line of these counts (its line, array, kind and count do not change the words)."""
    return SharedLineStats(line=9, array="s", kind="load", count=0, **row)


def test_bank_words_for_the_least_possible_and_for_conflicts() -> None:
    # 8-byte elements, 32 lanes: 2 wavefronts, the least (64 words / 32 banks)
    row = {
        "wavefronts_per_request": 2.0,
        "wavefronts": 4,
        "min_wavefronts": 4,
        "requests": 2,
        "max_conflict_degree": 2,
    }
    assert bank_words(shared(row)) == (
        "2 wavefronts per request (no bank conflicts: 2 is the least for these elements)"
    )
    row = {
        "wavefronts_per_request": 1.0,
        "wavefronts": 3,
        "min_wavefronts": 3,
        "requests": 3,
        "max_conflict_degree": 1,
    }
    assert bank_words(shared(row)) == "1 wavefront per request (no bank conflicts)"
    row = {
        "wavefronts_per_request": 16.0,
        "wavefronts": 32,
        "min_wavefronts": 2,
        "requests": 2,
        "max_conflict_degree": 32,
    }
    assert bank_words(shared(row)) == (
        "16 wavefronts per request (up to a 32-way bank conflict; 1 without conflicts)"
    )


def test_the_npz_decodes_every_row(tmp_path: Path) -> None:
    path = save_npz(hand_result(), tmp_path / "t.npz")
    with np.load(path) as z:
        assert z["log"].shape == (56, LOG_FIELDS)
        assert list(z["log_fields"])[:7] == ["thread", "site", "flags", "offset", "i0", "i1", "i2"]
        # row 0: A load (line 4); 8: A[8] out of bounds; 10: H atomic (line 5); 16: B store (line 6)
        assert [z["line"][r] for r in (0, 8, 10, 16)] == [4, 4, 5, 6]
        assert [z["array"][r] for r in (0, 10, 16, 55)] == ["A", "H", "B", "s"]
        assert [z["kind"][r] for r in (0, 10, 16)] == ["load", "atomic", "store"]
        assert z["oob"].sum() == 7 and bool(z["oob"][8]) and not z["oob"][0]
        assert list(z["sites"]) == [4, 5, 6, 7] and list(z["arrays"]) == ["A", "H", "B", "s"]
        assert list(z["array_spaces"]) == ["global", "global", "global", "shared"]
        assert json.loads(str(z["summary"]))["oob_total"] == 7 and str(z["backend"]) == "sim"
        assert z["final_A"].tolist() == list(range(8))


def test_notes_follow_the_findings_except_the_budget_one(tmp_path: Path) -> None:
    r = hand_result()
    r.notes = ["logged 56 of 56 accesses", "the kernel as written was not timed"]
    text = findings(r)
    assert text[-1] == "the kernel as written was not timed" and not any(
        t.startswith("logged ") for t in text
    )


def test_the_npz_of_an_empty_log_has_empty_rows(tmp_path: Path) -> None:
    empty = np.zeros((LOG_FIELDS, 0), dtype=np.int64)
    a = analyse(empty, 0, SITES, ARRAYS, (32, 1, 1))
    r = TraceResult("sim", "k", (1, 1, 1), (32, 1, 1), SITES, ARRAYS, a, empty, {}, {})
    with np.load(save_npz(r, tmp_path / "e.npz")) as z:
        assert z["log"].shape == (0, LOG_FIELDS)
        assert [z[k].size for k in ("line", "array", "kind", "oob")] == [0, 0, 0, 0]
