"""Device memory in the emulator (emu/memory.py), called directly as the interpreter calls it: a
plain store returns how many lanes' stores were lost to another lane's store to the same element
in the same step (an int: 0 when none was), beside the values it wrote."""

from __future__ import annotations

import numpy as np

from simtviz.emu.memory import ArrayRef, store

LANES = np.arange(4, dtype=np.int64)  # threadIdx.x of a block of 4


def _ref(n: int) -> ArrayRef:
    return ArrayRef("a", np.zeros(n, np.int64))


def test_a_store_with_no_lane_active_writes_nothing_and_loses_none() -> None:
    # a[i] = 9 under a mask with every lane off: a stays [0, 0, 0, 0], 0 stores lost.
    ref = _ref(4)
    lost = store(ref, [LANES], np.int64(9), np.zeros(4, bool), 3)
    assert lost == 0 and isinstance(lost, int)
    assert ref.data.tolist() == [0, 0, 0, 0]


def test_a_store_from_one_active_lane_loses_none() -> None:
    # a[i] = 10 * i with only lane 2 on: a[2] = 20, the rest stay 0; one writer, 0 lost.
    ref = _ref(4)
    lost = store(ref, [LANES], LANES * 10, np.array([False, False, True, False]), 3)
    assert lost == 0 and isinstance(lost, int)
    assert ref.data.tolist() == [0, 0, 20, 0]


def test_coalesced_stores_lose_none_and_colliding_ones_lose_all_but_one_each() -> None:
    # a[i] = 10 * i + 1 on 4 lanes: elements 0..3 each have one writer: [1, 11, 21, 31], 0 lost.
    # b[i // 2] = 10 * i + 1: lanes 0, 1 hit b[0] and lanes 2, 3 hit b[1]; the last lane of each
    # wins (b = [11, 31]) and the other one's store is lost: 2 lost.
    a, b = _ref(4), _ref(2)
    every = np.ones(4, bool)
    lost_a = store(a, [LANES], LANES * 10 + 1, every, 3)
    lost_b = store(b, [LANES // 2], LANES * 10 + 1, every, 4)
    assert lost_a == 0 and isinstance(lost_a, int)
    assert a.data.tolist() == [1, 11, 21, 31]
    assert (lost_b, b.data.tolist()) == (2, [11, 31])
