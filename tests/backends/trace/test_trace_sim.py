"""Traced templates on the CUDA simulator, with counts worked out by hand (small launches:
the simulator runs a few thousand threads a second)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from simtviz.core.trace.analysis import oob_details
from simtviz.core.trace.model import TraceRequest, TraceResult
from simtviz.core.trace.templates import template

pytestmark = pytest.mark.usefixtures("needs_sim")


@pytest.fixture(scope="module")
def needs_sim(backend_kind: str) -> None:
    if backend_kind != "sim":
        pytest.skip("simulator tests")


def trace(name: str, **changes: Any) -> TraceResult:
    from simtviz.backends.trace.sim import run_trace_sim

    t = template(name)
    fields = {
        "grid": t.grid,
        "block": t.block,
        "args": t.args,
        "check": t.check,
        "filename": t.file,
    } | changes
    return run_trace_sim(TraceRequest(t.source, **fields))


def line_of(result: TraceResult, array: str, kind: str) -> dict[str, Any]:
    (row,) = [r for r in result.summary()["lines"] if r["array"] == array and r["kind"] == kind]
    return row


def test_unguarded_vecadd_logs_three_oob_accesses_per_surplus_thread_and_c_stays_right() -> None:
    # N = 1000, block 256 → grid 4 = 1024 threads, 24 past the end, each loads A, B and stores C.
    r = trace("vecadd_unguarded")
    s = r.summary()
    assert s["threads"] == 1024
    assert s["oob_total"] == 3 * (1024 - 1000) == 72
    assert s["accesses"] == s["logged"] == 3 * 1024
    assert {(o["array"], o["kind"], o["count"]) for o in s["oob"]} == {
        ("A", "load", 24),
        ("B", "load", 24),
        ("C", "store", 24),
    }
    assert all(o["line"] == 14 for o in s["oob"])  # C[i] = A[i] + B[i] in vecadd_unguarded.py
    np.testing.assert_array_equal(r.outputs["C"], r.inputs["A"] + r.inputs["B"])
    assert r.check is not None and r.check.passed
    details = oob_details(r.log, r.sites, r.arrays)
    assert sorted({d.thread for d in details}) == list(range(1000, 1024))
    assert all(d.index == (d.thread,) and d.shape == (1000,) for d in details)
    assert s["kernel_ms"] is None and s["instrumented_ms"] is None


def test_guarded_vecadd_has_no_oob() -> None:
    s = trace("vecadd_guarded").summary()
    assert s["oob_total"] == 0 and s["accesses"] == 3000


def test_swapped_2d_add_goes_past_the_rows_and_leaves_the_right_columns_untouched() -> None:
    # C is 6 rows × 10 columns; threads pass the guard for x < 10, y < 6 (60 threads) and access
    # [x, y]: in bounds only for x < 6 (36 threads). 24 threads × 3 accesses out of bounds;
    # elements [r, c] with c >= 6 are never reached (6 × 4 = 24 per array).
    r = trace("matadd_swapped")
    s = r.summary()
    assert s["oob_total"] == 72
    assert {(o["array"], o["count"]) for o in s["oob"]} == {("A", 24), ("B", 24), ("C", 24)}
    for name in "ABC":
        assert s["arrays"][name]["untouched"] == 24
        t = r.analysis.touch[name]
        touched = (t.loads + t.stores) > 0
        assert not touched[:, 6:].any() and touched[:, :6].all()
    assert {d.index for d in oob_details(r.log, r.sites, r.arrays)} == {
        (x, y) for x in range(6, 10) for y in range(6)
    }
    np.testing.assert_array_equal(r.outputs["C"][:, :6], (r.inputs["A"] + r.inputs["B"])[:, :6])
    assert (r.outputs["C"][:, 6:] == 0).all()
    assert r.check is not None and not r.check.passed and r.check.failing == 24


def test_naive_transpose_has_4_sectors_per_load_request_and_16_per_store_request() -> None:
    # 32×32 float32, 16×16 blocks: a warp is 2 rows of 16 threads. Loads A[y, x]: 2 rows × 64
    # contiguous bytes = 4 sectors. Stores B[x, y]: 16 rows of B, 2 adjacent floats in each = 16.
    r = trace("transpose_naive")
    load, store = line_of(r, "A", "load"), line_of(r, "B", "store")
    assert load["line"] == store["line"] == 15
    assert load["requests"] == store["requests"] == 1024 // 32
    assert load["sectors_per_request"] == 4.0 and load["efficiency"] == 1.0
    assert store["sectors_per_request"] == 16.0 and store["efficiency"] == 0.25
    np.testing.assert_array_equal(r.outputs["B"], r.inputs["A"].T)


def test_grid_stride_counts_each_pass_of_a_warp_as_its_own_request() -> None:
    # 256 threads over 1000 elements: passes at i, i+256, i+512, i+768; the 4th pass only for
    # threads < 232 (warps 0..7, the last with 8 lanes). Requests 3 × 8 + 8 = 32; sectors
    # 1000 × 4 bytes / 32 = 125.
    x = line_of(trace("grid_stride"), "X", "load")
    assert (x["count"], x["requests"], x["sectors"]) == (1000, 32, 125)


def test_racing_histogram_shows_collisions_and_the_atomic_one_none() -> None:
    # data = 0..63, bins[b] with b = data % 8: each bin is read and written by 8 threads.
    racing = trace("histogram_racing").summary()
    assert racing["arrays"]["bins"]["multi_writer"] == 8
    assert racing["arrays"]["bins"]["stores"] == 64 and racing["arrays"]["bins"]["loads"] == 64
    atomic = trace("histogram_atomic")
    s = atomic.summary()
    assert s["arrays"]["bins"]["multi_writer"] == 0
    assert s["arrays"]["bins"]["atomics"] == 64 and s["arrays"]["bins"]["stores"] == 0
    assert atomic.outputs["bins"].tolist() == [8] * 8


def test_a_budget_smaller_than_the_accesses_says_so() -> None:
    r = trace("transpose_naive", budget=100)
    assert (r.analysis.accesses, r.analysis.logged) == (2048, 100)
    assert r.notes and "logged 100 of 2,048 accesses" in r.notes[0]
    np.testing.assert_array_equal(r.outputs["B"], r.inputs["A"].T)  # the kernel still ran in full


def test_a_python_error_in_the_kernel_names_the_students_line() -> None:
    from simtviz.backends.trace.sim import run_trace_sim
    from simtviz.core.errors import KernelFailed

    source = "from numba import cuda\n\n@cuda.jit\ndef k(A):\n    i = cuda.grid(1)\n    A[i] = 1 // (i - i)\n"
    with pytest.raises(KernelFailed, match="line 6: ZeroDivisionError"):
        run_trace_sim(TraceRequest(source, (1, 1, 1), (4, 1, 1), {"A": "int32[4]"}))
