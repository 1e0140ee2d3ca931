"""Shared-memory arrays traced on the CUDA simulator: bank conflicts per line, worked out by hand.

32 banks of 4 bytes: a float32 element s[k] of a 1-D array is word k, in bank k % 32; a float64
element covers words 2k and 2k + 1. A request (one warp executing a line once) takes as many
wavefronts as the most distinct words any one bank holds.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from repo_paths import DATA
from sim_templates import sim_template
from simtviz.core.trace.analysis import oob_details
from simtviz.core.trace.model import TraceRequest, TraceResult
from simtviz.core.trace.report import findings
from simtviz.core.trace.templates import template

pytestmark = pytest.mark.usefixtures("needs_sim")
DATA = DATA / "trace"  # the kernels below, shared with tests/gpu


@pytest.fixture(scope="module")
def needs_sim(backend_kind: str) -> None:
    if backend_kind != "sim":
        pytest.skip("simulator tests")


def run(request: TraceRequest) -> TraceResult:
    from simtviz.backends.trace.sim import run_trace_sim

    return run_trace_sim(request)


def run_template(name: str) -> TraceResult:
    return sim_template(name)  # run once per process (tests/sim_templates.py)


def line_no(source: str, marker: str) -> int:
    (n,) = [k for k, text in enumerate(source.splitlines(), 1) if marker in text]
    return n


def shared_row(result: TraceResult, line: int, kind: str) -> dict[str, Any]:
    (row,) = [r for r in result.summary()["shared_lines"] if r["line"] == line and r["kind"] == kind]
    return row


def global_row(result: TraceResult, array: str, kind: str) -> dict[str, Any]:
    (row,) = [r for r in result.summary()["lines"] if r["array"] == array and r["kind"] == kind]
    return row


def test_tile_transpose_reads_a_column_with_a_32_way_conflict_and_writes_rows_without() -> None:
    # A 64×32 float32 into B 32×64, grid (1, 2) of 32×32 blocks: 2 blocks × 32 warps = 64 requests
    # per line, 2048 accesses. A warp is
    # one row ty of the block, lanes tx = 0..31. Write tile[ty, tx]: word 32·ty + tx, bank tx: 32
    # banks, 1 wavefront. Read tile[tx, ty]: word 32·tx + ty, bank ty for every lane, 32 words: 32.
    t = template("transpose_tile")
    r = run_template("transpose_tile")
    write, read = line_no(t.source, "tile[ty, tx] = A[y, x]"), line_no(t.source, "B[y, x] = tile[tx, ty]")
    w, rd = shared_row(r, write, "store"), shared_row(r, read, "load")
    assert (w["array"], w["space"], w["count"], w["requests"]) == ("tile", "shared", 2048, 64)
    assert (w["wavefronts"], w["wavefronts_per_request"], w["max_conflict_degree"]) == (64, 1.0, 1)
    assert (rd["count"], rd["requests"], rd["wavefronts"]) == (2048, 64, 64 * 32)
    assert (rd["wavefronts_per_request"], rd["max_conflict_degree"], rd["min_wavefronts"]) == (32.0, 32, 64)
    # Global memory is coalesced both ways: 32 lanes × 4 bytes = 128 bytes = 4 sectors.
    assert global_row(r, "A", "load")["sectors_per_request"] == 4.0
    assert global_row(r, "B", "store")["sectors_per_request"] == 4.0
    s = r.summary()
    assert s["shared_arrays"] == {
        "tile": {"shape": [32, 32], "dtype": "float32", "loads": 2048, "stores": 2048, "atomics": 0}
    }
    assert set(s["arrays"]) == {"A", "B"}  # global arrays only, as CONTRACT's keys say
    assert s["accesses"] == 4 * 2048 and s["oob_total"] == 0
    np.testing.assert_array_equal(r.outputs["B"], r.inputs["A"].T)
    text = "\n".join(findings(r))
    assert f"line {read} load tile (shared): 32 wavefronts per request (up to a 32-way bank conflict" in text
    assert f"line {write} store tile (shared): 1 wavefront per request (no bank conflicts)" in text


def test_padded_tile_transpose_is_conflict_free_both_ways() -> None:
    # Rows of 33 floats: tile[tx, ty] is word 33·tx + ty, bank (tx + ty) % 32, different for
    # every lane: 1 wavefront; the row write tile[ty, tx], bank (ty + tx) % 32, also 1.
    t = template("transpose_tile_padded")
    r = run_template("transpose_tile_padded")
    write, read = line_no(t.source, "tile[ty, tx] = A[y, x]"), line_no(t.source, "B[y, x] = tile[tx, ty]")
    for row in (shared_row(r, write, "store"), shared_row(r, read, "load")):
        assert (row["requests"], row["wavefronts"], row["wavefronts_per_request"]) == (64, 64, 1.0)
        assert row["max_conflict_degree"] == 1
    assert r.summary()["shared_arrays"]["tile"]["shape"] == [32, 33]
    np.testing.assert_array_equal(r.outputs["B"], r.inputs["A"].T)


PATTERNS = (DATA / "shared_patterns.py").read_text(encoding="utf-8")


def test_broadcast_strides_and_float64_follow_the_bank_rule() -> None:
    # One warp of 32 lanes, so one request per line.
    r = run(TraceRequest(PATTERNS, (1, 1, 1), (32, 1, 1), {"A": "float32[32]"}))

    def waves(marker: str) -> tuple[int, int, int]:
        line = line_no(PATTERNS, marker)
        (row,) = [x for x in r.summary()["shared_lines"] if x["line"] == line]
        assert row["requests"] == 1
        return row["wavefronts"], row["min_wavefronts"], row["max_conflict_degree"]

    # float32 f[tx]: words 0..31, one per bank.
    assert waves("# f row") == (1, 1, 1)
    # every lane reads f[0]: one word, a broadcast.
    assert waves("# f broadcast") == (1, 1, 1)
    # f[2·tx]: words 0, 2, …, 62; lanes tx and tx + 16 share bank 2·tx % 32 with different words.
    assert waves("# f stride 2") == (2, 1, 2)
    # float64 d[tx]: words 2·tx and 2·tx + 1, 64 words over 32 banks, 2 in each: 2 wavefronts,
    # the least for 256 bytes, so no conflict (min_wavefronts 2).
    assert waves("# d row") == (2, 2, 2)
    assert waves("# d upper row") == (2, 2, 2)
    # every lane reads d[0]: words 0 and 1 in banks 0 and 1, a broadcast: 1.
    assert waves("# d broadcast") == (1, 1, 1)
    # d[2·tx]: words 4·tx and 4·tx + 1: banks 0, 1, 4, 5, …, 28, 29 each hold 4 distinct words
    # (lanes tx, tx + 8, tx + 16, tx + 24): 4 wavefronts where 64 words could take 2.
    assert waves("# d stride 2") == (4, 2, 4)
    text = "\n".join(findings(r))
    assert "2 wavefronts per request (no bank conflicts: 2 is the least for these elements)" in text
    assert "4 wavefronts per request (up to a 4-way bank conflict; 2 without conflicts)" in text
    # Values: f[0] = 0, f[2·tx] = tx' where 2·tx = tx' or tx' + 32, likewise for d.
    expected = np.array([2 * (2 * t % 32) for t in range(32)], dtype=np.float32)
    np.testing.assert_array_equal(r.outputs["A"], expected)


OOB = (DATA / "shared_oob.py").read_text(encoding="utf-8")


def test_out_of_bounds_shared_accesses_are_recorded_and_skipped() -> None:
    # 2 blocks of 32: in each, lane 31 stores s[32] and loads s[32] (s has 32 elements): 2 stores
    # and 2 loads out of bounds. The store is skipped (a GPU would write past the array), the
    # load gives 0.
    r = run(TraceRequest(OOB, (2, 1, 1), (32, 1, 1), {"A": "float32[64]:arange", "B": "float32[64]"}))
    s = r.summary()
    store, load = line_no(OOB, "# past the end"), line_no(OOB, "# lane 31 reads")
    assert s["oob_total"] == 4
    assert s["oob"] == [
        {"array": "s", "line": store, "kind": "store", "count": 2, "space": "shared"},
        {"array": "s", "line": load, "kind": "load", "count": 2, "space": "shared"},
    ]
    details = oob_details(r.log, r.sites, r.arrays)
    assert [(d.thread, d.array, d.kind, d.index, d.shape) for d in details] == [
        (31, "s", "store", (32,), (32,)),
        (31, "s", "load", (32,), (32,)),
        (63, "s", "store", (32,), (32,)),
        (63, "s", "load", (32,), (32,)),
    ]
    expected = np.arange(1, 65, dtype=np.float32)
    expected[[31, 63]] = 0  # the skipped load
    np.testing.assert_array_equal(r.outputs["B"], expected)
    # Performed loads only: 31 lanes per request, words 1..31, conflict-free.
    row = shared_row(r, load, "load")
    assert (row["count"], row["requests"], row["wavefronts"]) == (64, 2, 2)
    text = "\n".join(findings(r))
    # thread 31 of a (2, 1, 1) × (32, 1, 1) launch: block 0, lane 31
    assert (
        f"e.g. line {store}: the thread with blockIdx.x=0, threadIdx.x=31 (thread 31) stores s[32], "
        "but s has 32 elements (0 to 31)"
    ) in text


def test_stencil_global_numbers_are_unchanged_and_its_tile_shows_up() -> None:
    # 4 blocks × 128 threads over X[512]. Global, as before shared arrays were traced: line 21
    # loads X[i] (512, 16 warps × 4 sectors); lines 24 and 28 load one halo element in 3 blocks
    # each (1 sector, 4 of 32 bytes used); line 34 stores Y[i] (512, 4 sectors per request).
    r = run_template("stencil_shared")
    s = r.summary()
    assert s["arrays"] == {
        "X": {"shape": [512], "dtype": "float32", "loads": 518, "stores": 0, "atomics": 0,
              "untouched": 0, "multi_writer": 0},
        "Y": {"shape": [512], "dtype": "float32", "loads": 0, "stores": 512, "atomics": 0,
              "untouched": 0, "multi_writer": 0},
    }  # fmt: skip
    assert s["lines"] == [
        {"line": 21, "array": "X", "kind": "load", "count": 512, "requests": 16, "sectors": 64,
         "sectors_per_request": 4.0, "efficiency": 1.0},
        {"line": 24, "array": "X", "kind": "load", "count": 3, "requests": 3, "sectors": 3,
         "sectors_per_request": 1.0, "efficiency": 0.125},
        {"line": 28, "array": "X", "kind": "load", "count": 3, "requests": 3, "sectors": 3,
         "sectors_per_request": 1.0, "efficiency": 0.125},
        {"line": 34, "array": "Y", "kind": "store", "count": 512, "requests": 16, "sectors": 64,
         "sectors_per_request": 4.0, "efficiency": 1.0},
    ]  # fmt: skip
    assert s["oob_total"] == 0 and r.check is not None and r.check.passed
    # The tile: 130 stores per block (128 + 2 halo, lines 21, 24/26, 28/30) and 3 loads per
    # thread on line 33; the accesses now count them: 1030 global + 520 + 1536.
    assert s["shared_arrays"]["tile"] == {
        "shape": [130], "dtype": "float32", "loads": 1536, "stores": 520, "atomics": 0,
    }  # fmt: skip
    assert s["accesses"] == s["logged"] == 1030 + 520 + 1536
    sums = shared_row(r, 33, "load")  # three sites, each 16 requests of 32 neighbouring words
    assert (sums["count"], sums["requests"], sums["wavefronts_per_request"]) == (1536, 48, 1.0)
    assert [(x["line"], x["kind"], x["requests"]) for x in s["shared_lines"]] == [
        (21, "store", 16), (24, "store", 3), (26, "store", 1), (28, "store", 3), (30, "store", 1),
        (33, "load", 48),
    ]  # fmt: skip


def test_a_kernel_without_shared_arrays_has_exactly_contracts_keys() -> None:
    s = run_template("vecadd_guarded").summary()
    assert "shared_lines" not in s and "shared_arrays" not in s
