"""The trace helpers' bounds on shared arrays, at their edges: the probe kernel's logged threads
32 and 64 index its shared arrays s1 float64[64], s2 float32[32, 33] and s3 int32[2, 4, 8] one
past an edge, and each row's out-of-bounds flag says which accesses fell outside. A wrong flag is
a student's out-of-bounds shared access reported as fine (or the reverse) on the Your kernel tab.
Every flag is worked out by hand below; nothing here is computed by simtviz."""

from __future__ import annotations

import numpy as np
import pytest
from numba import cuda  # after conftest chose the simulator; a kernel's own globals name it


@pytest.fixture(scope="module")
def flags_by_thread(backend_kind: str) -> dict[int, list[int]]:
    if backend_kind != "sim":
        pytest.skip("runs the helpers in numba's simulator (tests/gpu runs them on the GPU)")
    from simtviz.kernels import trace_helpers as h

    # 65 blocks of one thread: block b's thread is number b, and i = b in the probe. The window
    # is blocks 32 .. 64 (33 blocks), so threads 32 .. 64 log their 19 accesses each: 627 rows.
    a = np.zeros(4, dtype=np.float32)
    b = np.zeros((3, 2), dtype=np.float64)
    c = np.zeros((2, 3, 2), dtype=np.int32)
    log = np.full((h.LOG_FIELDS, 640), -7, dtype=np.int64)
    count = np.zeros(h.COUNTERS, dtype=np.int64)
    d = [cuda.to_device(x) for x in (a, b, c, log, count)]
    h.trace_helpers_probe[65, 1](*d, 32, 33)
    log, count = d[3].copy_to_host(), d[4].copy_to_host()
    assert count.tolist() == [32 * 19, 33 * 19]  # blocks 0 .. 31 outside, 32 .. 64 logged
    out: dict[int, list[int]] = {}
    for t in (32, 64):
        rows = log[:, log[0] == t]
        rows = rows[:, np.argsort(rows[1])]  # by site
        assert rows[1].tolist() == list(range(19))
        out[t] = (rows[2] & 1).tolist()  # flags: bit 0 is "out of bounds"
    return out


def test_thread_32_is_inside_s1_and_s2s_33_columns_but_past_s2s_32_rows(flags_by_thread) -> None:  # type: ignore[no-untyped-def]
    # i = 32. Sites 0-8 and 18 are the global arrays a[4], b[3, 2], c[2, 3, 2]: all past.
    # 9  store s1[32]        in (64 elements)
    # 10 store s2[32, 1]     out: s2 has 32 rows (0 .. 31)
    # 11 store s3[0, 1, 32]  out: 8 in the last dimension
    # 12 atomic s1[32]       in
    # 13 atomic s2[1, 32]    in: 33 columns (0 .. 32)
    # 14 atomic s3[1, 0, 32] out
    # 15 load s1[32]         in
    # 16 load s2[1, 32]      in
    # 17 load s3[0, 1, 32]   out
    assert flags_by_thread[32] == [1] * 9 + [0, 1, 1, 0, 0, 1, 0, 0, 1] + [1]


def test_thread_64_is_one_past_s1s_64_elements(flags_by_thread) -> None:  # type: ignore[no-untyped-def]
    # i = 64: s1[64] is one past s1's 64 (sites 9, 12, 15), s2[64, 1] and s2[1, 64] past its 32
    # rows and 33 columns, s3[., ., 64] past its 8: every one of the 19 accesses is out of bounds.
    assert flags_by_thread[64] == [1] * 19
