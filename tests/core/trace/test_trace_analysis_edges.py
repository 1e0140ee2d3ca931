"""The trace analysis at its edges, from hand-made logs: empty logs, one row, several requests
of a shared site, mixed element sizes, the narrowing of maps for the trip from a GPU, and the
summary's keys. Each number is worked out in a comment."""

from __future__ import annotations

import numpy as np

from simtviz.core.trace.analysis import (
    LOG_FIELDS,
    NOBODY,
    ArrayInfo,
    TouchMap,
    analyse,
    instances,
    lex_order,
)
from simtviz.core.trace.rewrite import Site

LOAD, STORE, ATOMIC = 0, 1, 2


def log_of(rows: list[tuple[int, int, int, int, int, int]]) -> np.ndarray:
    """(thread, site, kind, array, byte offset, i0) per row; oob when kind is negative."""
    log = np.zeros((LOG_FIELDS, len(rows)), dtype=np.int64)
    for r, (thread, site, kind, array, offset, i0) in enumerate(rows):
        flags = (1 | (-kind - 1) << 1) if kind < 0 else kind << 1
        log[:7, r] = [thread, site, flags | array << 3, offset, i0, 0, 0]  # epoch 0
    return log


def test_words_per_element() -> None:
    # 4-byte banks: int8 and float32 cover 1 word, float64 2, complex128 4
    got = [ArrayInfo("s", (4,), d).words for d in ("int8", "int16", "float32", "float64", "complex128")]
    assert got == [1, 1, 1, 2, 4]


def test_maps_are_narrowed_to_int32_exactly_when_every_value_fits() -> None:
    fits = np.array([-(2**31), 2**31 - 1], dtype=np.int64)
    over = np.array([0, 2**31], dtype=np.int64)
    under = np.array([-(2**31) - 1, 0], dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    host = TouchMap(fits, over, under, empty, fits.astype(np.int32), fits).to_host()
    assert [m.dtype for m in (host.loads, host.stores, host.atomics, host.writers, host.last_writer)] == [
        np.int32, np.int64, np.int64, np.int64, np.int32,
    ]  # fmt: skip
    assert host.loads.tolist() == [-(2**31), 2**31 - 1] and host.stores.tolist() == [0, 2**31]
    assert host.last_reader.dtype == np.int32


def test_an_empty_log() -> None:
    sites = [Site(0, 3, 4, "A", "load", 1), Site(1, 4, 4, "s", "store", 1, "shared")]
    arrays = [ArrayInfo("A", (4,), "float32"), ArrayInfo("s", (8,), "float32", "shared")]
    a = analyse(np.zeros((LOG_FIELDS, 0), dtype=np.int64), 0, sites, arrays, (32, 1, 1))
    assert (a.accesses, a.logged, a.oob_total, a.oob) == (0, 0, 0, [])
    assert a.arrays["A"].untouched == 4 and a.touch["A"].last_writer.tolist() == [NOBODY] * 4
    assert a.lines[0].as_json() == {
        "line": 3, "array": "A", "kind": "load", "count": 0, "requests": 0, "sectors": 0,
        "sectors_per_request": None, "efficiency": None,
    }  # fmt: skip
    assert [row.as_json() for row in a.shared_lines or []] == [
        {"line": 4, "array": "s", "kind": "store", "space": "shared", "count": 0, "requests": 0,
         "wavefronts": 0, "wavefronts_per_request": None, "min_wavefronts": 0, "max_conflict_degree": 0}
    ]  # fmt: skip
    assert lex_order(np, np.zeros(0, np.int64)).tolist() == []
    assert instances(np, np.zeros(0, np.int64), np.zeros(0, np.int64)).tolist() == []


def test_one_row() -> None:
    # thread 5 stores A[2]: last writer 5, one request of one sector, 4 of 32 bytes used
    sites = [Site(0, 3, 4, "A", "store", 1)]
    a = analyse(log_of([(5, 0, STORE, 0, 8, 2)]), 1, sites, [ArrayInfo("A", (4,), "float32")], (32, 1, 1))
    assert a.touch["A"].last_writer.tolist() == [NOBODY, NOBODY, 5, NOBODY]
    assert a.touch["A"].writers.tolist() == [0, 0, 1, 0]
    assert (a.lines[0].requests, a.lines[0].sectors, a.lines[0].efficiency) == (1, 1, 0.125)


def test_a_shared_site_whose_requests_differ_sums_them_and_keeps_the_worst() -> None:
    # Shared float32 s, one site, block 64. Warp 0 (threads 0-31) reads s[lane]: 1 wavefront.
    # Warp 1: threads 32-35 read s[0], s[32], s[64], s[96]: 4 words in bank 0: 4 wavefronts; its
    # least is 1 (4 words). Thread 40 (warp 1) reads s[0] in that request too (a broadcast), then
    # s[5]: its second time at the site (instance 1), a third request of 1 wavefront.
    rows = [(t, 0, LOAD, 1, 4 * t, t) for t in range(32)]
    rows += [(32 + k, 0, LOAD, 1, 4 * 32 * k, 32 * k) for k in range(4)]
    rows += [(40, 0, LOAD, 1, 0, 0), (40, 0, LOAD, 1, 20, 5)]  # thread 40: instance 0 (s[0]) and 1
    arrays = [ArrayInfo("A", (1,), "float32"), ArrayInfo("s", (128,), "float32", "shared")]
    a = analyse(log_of(rows), len(rows), [Site(0, 9, 4, "s", "load", 1, "shared")], arrays, (64, 1, 1))
    (row,) = a.shared_lines or []
    # warp 1 instance 0: words 0, 32, 64, 96 (and thread 40's 0 again: a broadcast): 4 wavefronts
    # requests 3; wavefronts 1 + 4 + 1 = 6; least 1 + 1 + 1 = 3; worst 4
    assert (row.requests, row.wavefronts, row.min_wavefronts, row.max_conflict_degree) == (
        3,
        6,
        3,
        4,
    )
    assert row.wavefronts_per_request == 2.0 and row.count == 38
    assert a.summary()["shared_arrays"] == {
        "s": {"shape": [128], "dtype": "float32", "loads": 38, "stores": 0, "atomics": 0}
    }
    assert a.summary()["shared_lines"] == [row.as_json()] and list(a.shared_arrays or {}) == ["s"]


def test_shared_loads_stores_and_atomics_are_counted_apart() -> None:
    # s: 3 loads, 2 stores, 1 atomic, 1 out-of-bounds store (counted as a store attempt)
    rows = [(0, 0, LOAD, 0, 0, 0), (1, 0, LOAD, 0, 4, 1), (2, 0, LOAD, 0, 8, 2), (0, 1, STORE, 0, 0, 0),
            (1, 1, STORE, 0, 4, 1), (2, 2, ATOMIC, 0, 0, 0), (3, 1, -STORE - 1, 0, 400, 100)]  # fmt: skip
    sites = [Site(0, 5, 4, "s", "load", 1, "shared"), Site(1, 6, 4, "s", "store", 1, "shared"),
             Site(2, 7, 4, "s", "atomic", 1, "shared")]  # fmt: skip
    a = analyse(log_of(rows), 7, sites, [ArrayInfo("s", (16,), "int32", "shared")], (32, 1, 1))
    s = a.summary()
    assert s["shared_arrays"] == {
        "s": {"shape": [16], "dtype": "int32", "loads": 3, "stores": 3, "atomics": 1}
    }
    assert s["oob"] == [{"array": "s", "line": 6, "kind": "store", "count": 1, "space": "shared"}]
    assert a.oob_total == 1 and a.summary()["oob_total"] == 1
    assert a.lines == [] and "shared_lines" in a.summary()
    # the store line: 2 performed stores by one warp, 1 request, words 0 and 1: 1 wavefront
    (store,) = [r for r in a.shared_lines or [] if r.kind == "store"]
    assert (store.count, store.requests, store.wavefronts) == (3, 1, 1)


def test_four_byte_and_eight_byte_shared_arrays_side_by_side() -> None:
    # f: float32, 32 lanes read f[2·lane]: words 0, 2, .., 62: 2 words in each even bank: 2-way.
    # d: float64, 32 lanes read d[lane]: words 0..63, 2 per bank: 2 wavefronts, the least.
    rows = [(t, 0, LOAD, 0, 8 * t, 2 * t) for t in range(32)] + [(t, 1, LOAD, 1, 8 * t, t) for t in range(32)]
    arrays = [ArrayInfo("f", (64,), "float32", "shared"), ArrayInfo("d", (32,), "float64", "shared")]
    sites = [Site(0, 5, 4, "f", "load", 1, "shared"), Site(1, 6, 4, "d", "load", 1, "shared")]
    a = analyse(log_of(rows), 64, sites, arrays, (32, 1, 1))
    f, d = a.shared_lines or []
    assert (f.wavefronts, f.min_wavefronts, f.max_conflict_degree) == (2, 1, 2)
    assert (d.wavefronts, d.min_wavefronts, d.max_conflict_degree) == (2, 2, 2)


def test_the_last_request_of_a_shared_site_may_hold_one_lane() -> None:
    # block 64: warp 0 all 32 lanes read s[lane] (1 wavefront); warp 1 only thread 32 reads s[0].
    rows = [(t, 0, LOAD, 0, 4 * t, t) for t in range(33)]
    sites = [Site(0, 5, 4, "s", "load", 1, "shared")]
    a = analyse(log_of(rows), 33, sites, [ArrayInfo("s", (32,), "float32", "shared")], (64, 1, 1))
    (row,) = a.shared_lines or []
    assert (row.requests, row.wavefronts, row.min_wavefronts) == (2, 2, 2)


def test_a_global_element_loaded_and_added_to_is_not_untouched() -> None:
    # H[0]: 1 load and 1 atomic (loads − atomics would be 0); H[1]: 1 store and 1 load.
    rows = [(0, 0, LOAD, 0, 0, 0), (1, 2, ATOMIC, 0, 0, 0), (2, 1, STORE, 0, 4, 1), (3, 0, LOAD, 0, 4, 1)]
    sites = [Site(0, 4, 4, "H", "load", 1), Site(1, 5, 4, "H", "store", 1), Site(2, 6, 4, "H", "atomic", 1)]
    a = analyse(log_of(rows), 4, sites, [ArrayInfo("H", (3,), "int32")], (32, 1, 1))
    assert a.arrays["H"].as_json() == {
        "shape": [3], "dtype": "int32", "loads": 2, "stores": 1, "atomics": 1,
        "untouched": 1, "multi_writer": 0,
    }  # fmt: skip


def test_lex_order_with_a_column_far_from_zero() -> None:
    # The second column sits at 2^39 − 1 and above with a span of 4; packed with a first column
    # spanning 2^23 its part of the key must be counted from its lowest value: counted from 0 (or
    # shifted the wrong way) it is multiplied by 2^23 past int64, and the order breaks.
    a = np.array([5, (1 << 23) - 1, 0, 7, 3], dtype=np.int64)
    b = np.array([3, 0, 2, 0, 3], dtype=np.int64) + ((1 << 39) - 1)
    assert lex_order(np, a, b).tolist() == np.lexsort((a, b)).tolist() == [3, 1, 2, 4, 0]


def test_oob_details_list_the_first_1000_attempts() -> None:
    from simtviz.core.trace.analysis import oob_details

    # 1,001 out-of-bounds loads of A (4 elements) at A[4 + t]: the details stop at 1,000
    rows = [(t, 0, -LOAD - 1, 0, 4 * (4 + t), 4 + t) for t in range(1001)]
    log = log_of(rows)
    details = oob_details(log, [Site(0, 3, 4, "A", "load", 1)], [ArrayInfo("A", (4,), "float32")])
    assert len(details) == 1000 and details[-1].index == (1003,) and details[0].thread == 0


def test_a_shared_site_whose_only_access_was_out_of_bounds_makes_no_request() -> None:
    rows = [(0, 0, -LOAD - 1, 0, 400, 100)]
    sites = [Site(0, 5, 4, "s", "load", 1, "shared")]
    a = analyse(log_of(rows), 1, sites, [ArrayInfo("s", (16,), "float32", "shared")], (32, 1, 1))
    (row,) = a.shared_lines or []
    assert (row.count, row.requests, row.wavefronts, row.max_conflict_degree) == (1, 0, 0, 0)
    assert a.site_counts[0]["requests"] == 0 and a.oob_total == 1


def test_ratios_are_rounded_to_4_decimals() -> None:
    # Block 96, one global site: warp 0 reads A[0..31] (bytes 0-127: 4 sectors); threads 32, 33
    # read A[32], A[40] (bytes 128, 160: 2 sectors); threads 64, 65 read A[48], A[49] (bytes 192,
    # 196: 1 sector). 3 requests, 7 sectors: 7 / 3 = 2.3333; bytes 128 + 8 + 8 = 144 of 7 × 32 =
    # 224 fetched: 0.642857… → 0.6429.
    rows = [(t, 0, LOAD, 0, 4 * t, t) for t in range(32)]
    rows += [
        (32, 0, LOAD, 0, 128, 32),
        (33, 0, LOAD, 0, 160, 40),
        (64, 0, LOAD, 0, 192, 48),
        (65, 0, LOAD, 0, 196, 49),
    ]
    # One shared site: warp 0 s[lane] (1 wavefront), warp 1 s[0], s[32], s[64], s[96] (4), warp 2
    # s[0], s[32] (2): 7 wavefronts over 3 requests = 2.3333.
    rows += [(t, 1, LOAD, 1, 4 * t, t) for t in range(32)]
    rows += [(32 + k, 1, LOAD, 1, 128 * k, 32 * k) for k in range(4)]
    rows += [(64 + k, 1, LOAD, 1, 128 * k, 32 * k) for k in range(2)]
    sites = [Site(0, 3, 4, "A", "load", 1), Site(1, 4, 4, "s", "load", 1, "shared")]
    arrays = [ArrayInfo("A", (64,), "float32"), ArrayInfo("s", (128,), "float32", "shared")]
    a = analyse(log_of(rows), len(rows), sites, arrays, (96, 1, 1))
    (g,) = a.lines
    assert (g.requests, g.sectors, g.sectors_per_request, g.efficiency) == (3, 7, 2.3333, 0.6429)
    (s,) = a.shared_lines or []
    assert (s.requests, s.wavefronts, s.wavefronts_per_request) == (3, 7, 2.3333)


def test_out_of_bounds_rows_are_listed_by_line_then_array() -> None:
    # Line 3 stores Z[9] and loads A[9]; line 5 loads M[9]; all out of bounds (arrays of 4).
    # Listed by line, then array name: A (line 3), Z (line 3), M (line 5); 2 for Z.
    sites = [Site(0, 3, 4, "Z", "store", 1), Site(1, 3, 12, "A", "load", 1), Site(2, 5, 4, "M", "load", 1)]
    arrays = [
        ArrayInfo("Z", (4,), "float32"),
        ArrayInfo("A", (4,), "float32"),
        ArrayInfo("M", (4,), "float32"),
    ]
    rows = [(0, 0, -STORE - 1, 0, 36, 9), (1, 0, -STORE - 1, 0, 36, 9), (0, 1, -LOAD - 1, 1, 36, 9),
            (0, 2, -LOAD - 1, 2, 36, 9)]  # fmt: skip
    a = analyse(log_of(rows), 4, sites, arrays, (32, 1, 1))
    assert [(o.array, o.line, o.kind, o.count) for o in a.oob] == [
        ("A", 3, "load", 1), ("Z", 3, "store", 2), ("M", 5, "load", 1),
    ]  # fmt: skip
    # and per array: Z 2 store attempts, no load; A 1 load
    assert (a.arrays["Z"].stores, a.arrays["Z"].loads, a.arrays["A"].loads) == (2, 0, 1)
