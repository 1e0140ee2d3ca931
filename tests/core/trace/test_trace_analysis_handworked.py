"""The trace analysis from hand-made logs (no kernel runs), and the edges a contributor gets wrong:
warps that would span blocks, the last writer, atomics as touches, one element loaded, stored
and added to, indices flattened in 2-D and 3-D. Every expected number is worked out in a comment.
"""

from __future__ import annotations

import numpy as np
import pytest

from simtviz.core.trace.analysis import LOG_FIELDS, NOBODY, ArrayInfo, analyse, oob_details, warp_of
from simtviz.core.trace.rewrite import Site

LOAD, STORE, ATOMIC = 0, 1, 2


def log_rows(
    rows: list[tuple[int, int, int, int, tuple[int, ...]]], oob: set[int] | None = None
) -> np.ndarray:
    """One log row per (thread, site, kind, array, index); byte offsets for float32 1-D arrays."""
    log = np.zeros((LOG_FIELDS, len(rows)), dtype=np.int64)
    for r, (thread, site, kind, array, index) in enumerate(rows):
        flag = 1 if oob and r in oob else 0
        log[:7, r] = [
            thread,
            site,
            flag | kind << 1 | array << 3,
            4 * index[0],
            *[*index, 0, 0][:3],
        ]  # epoch 0
    return log


# --- warps never span blocks -------------------------------------------------------------------


def test_warp_ids_restart_at_each_block_of_48_threads() -> None:
    # 48 threads per block: 2 warps per block (32 + 16). Thread 47 is block 0's warp 1; thread 48
    # is block 1's first thread: warp 2 (not 48 // 32 = 1); thread 80 = block 1, inner 32: warp 3.
    got = warp_of(np.array([0, 31, 32, 47, 48, 79, 80, 95]), (48, 1, 1))
    assert got.tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    # block (24, 2, 1) is 48 threads too: the shape does not matter, the count does.
    assert warp_of(np.array([47, 48]), (24, 2, 1)).tolist() == [1, 2]


def test_48_thread_blocks_give_4_requests_not_3() -> None:
    # grid 2 × block 48, A[t] (float32) loaded once per thread: warps 0-31, 32-47 | 48-79, 80-95.
    # 4 requests. Sectors: bytes 0-127 (4), 128-191 (2), 192-319 (sectors 6..9: 4), 320-383 (2) = 12.
    # Efficiency 384 bytes / (12 × 32) = 1.0; sectors per request 12 / 4 = 3.0.
    log = log_rows([(t, 0, LOAD, 0, (t,)) for t in range(96)])
    a = analyse(log, 96, [Site(0, 5, 8, "A", "load", 1)], [ArrayInfo("A", (96,), "float32")], (48, 1, 1))
    (row,) = a.lines
    assert (row.count, row.requests, row.sectors) == (96, 4, 12)
    assert row.sectors_per_request == 3.0 and row.efficiency == 1.0
    assert a.site_counts[0]["bytes"] == 384  # 96 distinct elements × 4 bytes


def test_a_thread_that_runs_a_site_twice_makes_two_requests() -> None:
    # 32 threads (one warp), each loading A[t] then A[t + 32] at the same site (a loop):
    # instance 0 and instance 1 are 2 requests of 4 sectors each: 8 sectors.
    rows = [(t, 0, LOAD, 0, (t,)) for t in range(32)] + [(t, 0, LOAD, 0, (t + 32,)) for t in range(32)]
    a = analyse(
        log_rows(rows), 64, [Site(0, 3, 8, "A", "load", 1)], [ArrayInfo("A", (64,), "float32")], (32, 1, 1)
    )
    assert (a.lines[0].requests, a.lines[0].sectors) == (2, 8)


# --- who touched each element --------------------------------------------------------------------

SITES = [
    Site(0, 4, 4, "H", "load", 1),
    Site(1, 5, 4, "H", "store", 1),
    Site(2, 6, 4, "H", "atomic", 1),
]
H = [ArrayInfo("H", (4,), "int32")]


def test_the_last_writer_is_the_last_store_in_log_order() -> None:
    # Element 1 stored by thread 5, then 9, then 2 (log order): last writer 2, 3 distinct writers.
    rows = [(5, 1, STORE, 0, (1,)), (9, 1, STORE, 0, (1,)), (2, 1, STORE, 0, (1,))]
    a = analyse(log_rows(rows), 3, SITES, H, (32, 1, 1))
    t = a.touch["H"]
    assert t.last_writer.tolist() == [NOBODY, 2, NOBODY, NOBODY]
    assert t.writers.tolist() == [0, 3, 0, 0]
    assert a.arrays["H"].multi_writer == 1 and a.arrays["H"].untouched == 3


def test_the_last_writer_ignores_the_order_of_elements_between_rows() -> None:
    # Rows interleave elements: 0 by t1, 3 by t7, 0 by t4, 3 by t6 → last writers 4 and 6.
    rows = [(1, 1, STORE, 0, (0,)), (7, 1, STORE, 0, (3,)), (4, 1, STORE, 0, (0,)), (6, 1, STORE, 0, (3,))]
    t = analyse(log_rows(rows), 4, SITES, H, (32, 1, 1)).touch["H"]
    assert t.last_writer.tolist() == [4, NOBODY, NOBODY, 6]


def test_atomics_count_as_touching_every_histogram_bin() -> None:
    # 8 threads add to bin t % 4: every bin gets 2 atomics, none is untouched; no plain store,
    # so no "writers" (atomics never race), and the last atomic of bin b is thread b + 4.
    rows = [(t, 2, ATOMIC, 0, (t % 4,)) for t in range(8)]
    a = analyse(log_rows(rows), 8, SITES, H, (32, 1, 1))
    t = a.touch["H"]
    assert t.atomics.tolist() == [2, 2, 2, 2]
    assert a.arrays["H"].untouched == 0 and a.arrays["H"].multi_writer == 0
    assert a.arrays["H"].atomics == 8 and a.arrays["H"].stores == 0
    assert t.last_writer.tolist() == [4, 5, 6, 7]
    assert t.writers.tolist() == [0, 0, 0, 0]


def test_a_load_a_store_and_an_atomic_on_one_element() -> None:
    # Element 2: thread 3 loads, thread 8 stores, thread 11 adds, thread 12 loads again.
    # loads 2, stores 1, atomics 1; 1 plain writer; last writer 11 (the atomic came after the
    # store); last reader 12. The other 3 elements are untouched.
    rows = [(3, 0, LOAD, 0, (2,)), (8, 1, STORE, 0, (2,)), (11, 2, ATOMIC, 0, (2,)), (12, 0, LOAD, 0, (2,))]
    a = analyse(log_rows(rows), 4, SITES, H, (32, 1, 1))
    t = a.touch["H"]
    assert (t.loads[2], t.stores[2], t.atomics[2], t.writers[2]) == (2, 1, 1, 1)
    assert (t.last_writer[2], t.last_reader[2]) == (11, 12)
    assert a.arrays["H"].as_json() == {
        "shape": [4], "dtype": "int32", "loads": 2, "stores": 1, "atomics": 1,
        "untouched": 3, "multi_writer": 0,
    }  # fmt: skip
    # one line per kind, in source order (4 load, 5 store, 6 atomic)
    assert [(r.line, r.kind, r.count) for r in a.lines] == [
        (4, "load", 2),
        (5, "store", 1),
        (6, "atomic", 1),
    ]


def test_out_of_bounds_rows_touch_nothing_and_are_listed() -> None:
    # Thread 0 stores H[1] (in bounds); thread 1's store H[4] is out of bounds (flagged): it is
    # counted in oob, touches no element, and makes no request.
    rows = [(0, 1, STORE, 0, (1,)), (1, 1, STORE, 0, (4,))]
    a = analyse(log_rows(rows, oob={1}), 2, SITES, H, (32, 1, 1))
    assert a.oob_total == 1 and a.summary()["oob"] == [{"array": "H", "line": 5, "kind": "store", "count": 1}]
    assert a.touch["H"].stores.tolist() == [0, 1, 0, 0]
    (store,) = [r for r in a.lines if r.kind == "store"]
    assert (store.count, store.requests, store.sectors) == (2, 1, 1)
    (detail,) = oob_details(log_rows(rows, oob={1}), SITES, H)
    shown = {"thread": 1, "line": 5, "array": "H", "kind": "store", "index": [4], "shape": [4]}
    assert detail.as_json() == shown


# --- indices flattened per dimension -------------------------------------------------------------


def test_2d_and_3d_elements_land_where_their_indices_say() -> None:
    # 2-D (3, 5): M[2, 4] is flat 2·5 + 4 = 14, the last element; M[0, 4] is 4 (the column edge).
    # 3-D (2, 3, 4): C[1, 2, 3] is flat (1·3 + 2)·4 + 3 = 23, the last; C[0, 2, 0] is 8.
    arrays = [ArrayInfo("M", (3, 5), "float32"), ArrayInfo("C", (2, 3, 4), "float32")]
    sites = [Site(0, 3, 4, "M", "store", 2), Site(1, 4, 4, "C", "store", 3)]
    rows = [
        (0, 0, STORE, 0, (2, 4)),
        (1, 0, STORE, 0, (0, 4)),
        (2, 1, STORE, 1, (1, 2, 3)),
        (3, 1, STORE, 1, (0, 2, 0)),
    ]
    t = analyse(log_rows(rows), 4, sites, arrays, (32, 1, 1)).touch
    assert np.argwhere(t["M"].stores).tolist() == [[0, 4], [2, 4]]
    assert t["M"].last_writer[2, 4] == 0 and t["M"].last_writer[0, 4] == 1
    assert np.argwhere(t["C"].stores).tolist() == [[0, 2, 0], [1, 2, 3]]
    assert t["C"].last_writer[1, 2, 3] == 2


# --- the bounds guard at exactly the edge, on the simulator --------------------------------------

EDGE_2D = """
from numba import cuda

@cuda.jit
def edge2(M):
    x = M[cuda.threadIdx.y, cuda.threadIdx.x]
"""

EDGE_3D = """
from numba import cuda

@cuda.jit
def edge3(C):
    x = C[cuda.threadIdx.z, cuda.threadIdx.y, cuda.threadIdx.x]
"""


@pytest.mark.parametrize(
    ("source", "block", "spec", "inside", "edges"),
    [
        # M (3, 5) read at (ty, tx) by block (6, 4): in bounds 3 × 5 = 15 of 24; out 9.
        # The first out-of-bounds rows in log order: (0, 5), (1, 5), (2, 5) at the column edge.
        (EDGE_2D, (6, 4, 1), "float32[3,5]", 15, [[0, 5], [1, 5], [2, 5]]),
        # C (2, 3, 4) read at (tz, ty, tx) by block (5, 4, 3): 2 × 3 × 4 = 24 of 60 in bounds.
        (EDGE_3D, (5, 4, 3), "float32[2,3,4]", 24, [[0, 0, 4], [0, 1, 4], [0, 2, 4]]),
    ],
)
def test_the_bounds_guard_is_exact_at_every_edge(
    backend_kind: str,
    source: str,
    block: tuple[int, int, int],
    spec: str,
    inside: int,
    edges: list[list[int]],
) -> None:
    if backend_kind != "sim":
        pytest.skip("simulator test")
    from simtviz.backends.trace.sim import run_trace_sim
    from simtviz.core.trace.model import TraceRequest

    name = "M" if "M[" in source else "C"
    result = run_trace_sim(TraceRequest(source, (1, 1, 1), block, {name: spec}))
    threads = block[0] * block[1] * block[2]
    s = result.summary()
    assert (s["accesses"], s["oob_total"]) == (threads, threads - inside)
    assert s["arrays"][name]["untouched"] == 0  # every element read exactly once
    assert int(result.analysis.touch[name].loads.sum()) == inside
    indices = [list(d.index) for d in oob_details(result.log, result.sites, result.arrays)]
    assert all(e in indices for e in edges)  # exactly at the edge: out
    shape = [int(v) for v in spec[spec.index("[") + 1 : -1].split(",")]
    assert all(any(i >= n for i, n in zip(index, shape, strict=True)) for index in indices)
