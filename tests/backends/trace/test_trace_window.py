"""The traced run's window of blocks: only its threads are logged, every thread runs and counts.

Counts are worked out by hand from the templates (resources/kernels/): the unguarded vecadd makes
2 loads and 1 store per thread, with no guard; the swapped 2-D add 3 accesses per thread that
passes its guard; the transpose 1 load and 1 store per thread in bounds.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from simtviz.core.trace.analysis import oob_details
from simtviz.core.trace.args import ArgSpecError
from simtviz.core.trace.model import BlockWindow, TraceRequest, TraceResult, window_for, window_words
from simtviz.core.trace.report import findings
from simtviz.core.trace.templates import template

CONTRACT_KEYS = {
    "backend", "kernel", "grid", "block", "threads", "accesses", "logged", "oob_total", "oob",
    "arrays", "lines", "hazards", "kernel_ms", "instrumented_ms", "check",
}  # fmt: skip


@pytest.fixture(scope="module")
def sim(backend_kind: str) -> None:
    if backend_kind != "sim":
        pytest.skip("simulator tests")


def request(name: str, **changes: Any) -> TraceRequest:
    t = template(name)
    fields = {"grid": t.grid, "block": t.block, "args": t.args, "check": t.check, "filename": t.file}
    return TraceRequest(t.source, **(fields | changes))


def trace(name: str, **changes: Any) -> TraceResult:
    from simtviz.backends.trace.sim import run_trace_sim

    return run_trace_sim(request(name, **changes))


def line_of(result: TraceResult, array: str, kind: str) -> dict[str, Any]:
    (row,) = [r for r in result.summary()["lines"] if r["array"] == array and r["kind"] == kind]
    return row


# --- the window itself (no kernel runs) --------------------------------------------------------


def test_window_parses_first_and_count_and_refuses_what_is_not_a_window() -> None:
    assert BlockWindow.parse("16:16") == BlockWindow(16, 16)
    assert BlockWindow(16, 16).last == 31
    for bad in ("16", "a:b", ""):
        with pytest.raises(ValueError, match="write FIRST:COUNT in blocks"):
            BlockWindow.parse(bad)
    for bad in ("3:0", "-1:2"):
        with pytest.raises(ValueError, match="the first block is 0 or more and the count at least 1"):
            BlockWindow.parse(bad)


def test_window_for_the_inputs_is_none_for_the_whole_launch() -> None:
    assert window_for((4, 1, 1), 0, 0) is None  # "all" from block 0
    assert window_for((4, 1, 1), 0, 4) is None
    assert window_for((4, 1, 1), 3, 0) == BlockWindow(3, 1)  # block 3 to the last
    assert window_for((2, 2, 1), 1, 2) == BlockWindow(1, 2)


def test_window_words_give_blocks_threads_and_the_ends_blockidx_in_2d() -> None:
    assert (
        window_words(BlockWindow(16, 16), (4096, 1, 1), (256, 1, 1))
        == "blocks 16–31 of 4,096 (4,096 threads)"
    )
    # grid (2, 2): linear 3 is blockIdx (1, 1, 0); linear 1 is (1, 0, 0), 2 is (0, 1, 0).
    assert window_words(BlockWindow(3, 1), (2, 2, 1), (8, 4, 1)) == (
        "block 3 of 4 (32 threads), blockIdx (1, 1, 0)"
    )
    assert window_words(BlockWindow(1, 2), (2, 2, 1), (8, 4, 1)) == (
        "blocks 1–2 of 4 (64 threads), blockIdx (1, 0, 0) to (0, 1, 0)"
    )


@pytest.mark.parametrize(
    ("window", "words"),
    [
        (BlockWindow(4, 1), "the window starts at block 4, but the launch has 4 blocks (0–3)"),
        (BlockWindow(2, 3), "the window takes blocks 2–4, but the launch has 4 blocks (0–3)"),
    ],
)
def test_a_window_past_the_launch_is_refused_in_words_before_anything_runs(
    window: BlockWindow, words: str
) -> None:
    from simtviz.backends.sim import sim_info
    from simtviz.backends.trace import TRACE

    with pytest.raises(ArgSpecError) as info:
        TRACE.check(request("vecadd_unguarded", window=window), sim_info())
    assert str(info.value) == words


# --- traced on the simulator ---------------------------------------------------------------------


@pytest.mark.usefixtures("sim")
def test_unguarded_vecadd_window_on_the_last_block_logs_its_threads_only() -> None:
    # 4 blocks × 256 = 1024 threads, each 2 loads + 1 store, all counted: 3 × 1024 = 3072.
    # Block 3 is threads 768..1023: 3 × 256 = 768 logged; threads 1000..1023 (24) are past
    # N = 1000: 3 × 24 = 72 out of bounds. It stores C[768..999] (232 elements): 768 untouched.
    r = trace("vecadd_unguarded", window=BlockWindow(3, 1))
    s = r.summary()
    assert (s["accesses"], s["logged"], s["oob_total"]) == (3072, 768, 72)
    assert s["window"] == {"first_block": 3, "blocks": 1, "threads": 256, "accesses": 768}
    assert set(s) == CONTRACT_KEYS | {"window"}
    assert {(o["array"], o["kind"], o["count"]) for o in s["oob"]} == {
        ("A", "load", 24),
        ("B", "load", 24),
        ("C", "store", 24),
    }
    assert s["arrays"]["C"]["stores"] == 256 and s["arrays"]["C"]["untouched"] == 768
    assert s["arrays"]["A"]["loads"] == 256 and s["arrays"]["A"]["untouched"] == 768
    assert sorted(set(r.log[0].tolist())) == list(range(768, 1024))
    assert sorted({d.thread for d in oob_details(r.log, r.sites, r.arrays)}) == list(range(1000, 1024))
    # Every thread ran: C is right for every i < N, the threads outside the window included.
    np.testing.assert_array_equal(r.outputs["C"], r.inputs["A"] + r.inputs["B"])
    assert r.check is not None and r.check.passed
    assert r.notes[0].startswith(
        "logged 768 of 3,072 accesses: threads in window: block 3 of 4 (256 threads); they made 768 of them; "
    )
    assert "untouched: elements these threads did not touch" in r.notes[0]
    text = findings(r)
    assert text[1].startswith(
        "Threads in window: block 3 of 4 (256 threads). Every thread ran; only these logged"
    )
    assert text[2] == "Logged all 768 accesses these threads made, of 3,072 the launch made."
    assert (
        "C float32[1000]: 0 loads, 256 stores; 768 of 1,000 elements untouched by the window's threads."
        in text
    )


@pytest.mark.usefixtures("sim")
def test_swapped_2d_add_window_at_the_last_block_shows_only_its_four_threads() -> None:
    # grid (2, 2) of (8, 4): block 3 is blockIdx (1, 1), x 8..15, y 4..7. The guard x < 10,
    # y < 6 lets (8, 4), (9, 4), (8, 5), (9, 5) through; each accesses [x, y] with x >= 6 rows:
    # 4 × 3 = 12 accesses, all out of bounds. The launch: 10 × 6 = 60 threads pass, 180 accesses.
    # Their ids: block 3 × 32 + x - 8 + 8 (y - 4) = 96, 97, 104, 105.
    r = trace("matadd_swapped", window=BlockWindow(3, 1))
    s = r.summary()
    assert (s["accesses"], s["logged"], s["oob_total"]) == (180, 12, 12)
    assert s["window"] == {"first_block": 3, "blocks": 1, "threads": 32, "accesses": 12}
    assert {(o["array"], o["count"]) for o in s["oob"]} == {("A", 4), ("B", 4), ("C", 4)}
    details = oob_details(r.log, r.sites, r.arrays)
    assert {d.thread for d in details} == {96, 97, 104, 105}
    assert {d.index for d in details} == {(8, 4), (9, 4), (8, 5), (9, 5)}
    for name in "ABC":  # nothing in bounds: every element untouched by these threads
        assert s["arrays"][name]["untouched"] == 60
    # The other blocks stored as always: the first 6 columns right, the last 4 never written.
    np.testing.assert_array_equal(r.outputs["C"][:, :6], (r.inputs["A"] + r.inputs["B"])[:, :6])
    assert (r.outputs["C"][:, 6:] == 0).all()
    assert "block 3 of 4 (32 threads), blockIdx (1, 1, 0)" in findings(r)[1]


@pytest.mark.usefixtures("sim")
def test_transpose_window_of_one_block_keeps_4_and_16_sectors_per_request() -> None:
    # Block 1 is blockIdx (1, 0): 256 threads, 8 whole warps, each 1 load and 1 store.
    r = trace("transpose_naive", window=BlockWindow(1, 1))
    load, store = line_of(r, "A", "load"), line_of(r, "B", "store")
    assert (load["count"], load["requests"], load["sectors_per_request"]) == (256, 8, 4.0)
    assert (store["count"], store["requests"], store["sectors_per_request"]) == (256, 8, 16.0)
    np.testing.assert_array_equal(r.outputs["B"], r.inputs["A"].T)


@pytest.mark.usefixtures("sim")
def test_the_default_window_gives_exactly_the_whole_launch_as_before() -> None:
    whole = trace("vecadd_unguarded")
    explicit = trace("vecadd_unguarded", window=BlockWindow(0, 4))
    s = whole.summary()
    assert set(s) == CONTRACT_KEYS  # no window key without a window that cuts
    assert (s["accesses"], s["logged"], s["oob_total"]) == (3072, 3072, 72)
    assert explicit.summary() == s

    # The simulator interleaves threads differently each run; each thread's rows keep their order.
    def by_thread(log: np.ndarray) -> np.ndarray:
        return log[:, np.argsort(log[0], kind="stable")]

    np.testing.assert_array_equal(by_thread(explicit.log), by_thread(whole.log))
    assert whole.notes == explicit.notes == []
    assert findings(whole)[1] == "3,072 memory accesses, all logged."


@pytest.mark.usefixtures("sim")
def test_window_and_budget_together_say_both() -> None:
    # Transpose: 1024 threads × 2 = 2048 accesses; block 1 makes 256 × 2 = 512; the budget keeps 100.
    r = trace("transpose_naive", window=BlockWindow(1, 1), budget=100)
    s = r.summary()
    assert (s["accesses"], s["logged"], s["window"]["accesses"]) == (2048, 100, 512)
    assert r.notes[0].startswith(
        "logged 100 of 2,048 accesses: threads in window: block 1 of 4 (256 threads), blockIdx (1, 0, 0); "
        "they made 512 of them; the budget kept the first 100 in the order the threads made them"
    )
    text = findings(r)
    assert text[1].startswith("Threads in window: block 1 of 4 (256 threads), blockIdx (1, 0, 0).")
    assert text[2].startswith(
        "Logged 100 of the 512 accesses these threads made (the budget; the launch made 2,048)"
    )
    assert set(r.log[0].tolist()) <= set(range(256, 512))
    np.testing.assert_array_equal(r.outputs["B"], r.inputs["A"].T)


@pytest.mark.usefixtures("sim")
def test_a_window_whose_threads_make_no_access_says_so() -> None:
    # Guarded vecadd, N = 1000, 8 blocks of 256: block 7 is threads 1792..2047, all past N, so
    # they pass no guard; threads 0..999 make 3 accesses each: 3000.
    r = trace("vecadd_guarded", grid=(8, 1, 1), window=BlockWindow(7, 1))
    s = r.summary()
    assert (s["accesses"], s["logged"], s["window"]["accesses"]) == (3000, 0, 0)
    assert all(a["untouched"] == 1000 for a in s["arrays"].values())
    text = findings(r)
    assert text[2:4] == [
        "These threads made no accesses (the launch made 3,000).",
        "No out-of-bounds accesses by the window's threads.",
    ]
    np.testing.assert_array_equal(r.outputs["C"], r.inputs["A"] + r.inputs["B"])


@pytest.mark.usefixtures("sim")
def test_the_runner_refuses_a_window_past_the_launch_too() -> None:
    from simtviz.backends.trace.sim import run_trace_sim

    with pytest.raises(ArgSpecError, match="starts at block 9, but the launch has 4 blocks"):
        run_trace_sim(request("vecadd_guarded", window=BlockWindow(9, 1)))
