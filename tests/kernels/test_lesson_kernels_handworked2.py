"""The lesson's small kernels launched directly, hand-worked: index_2d stores at slot x + y × width
of a 2-D launch and touches nothing past the launch's width × height slots."""

from __future__ import annotations

import numpy as np
import pytest
from numba import cuda

from simtviz.kernels.lesson import index_2d


@pytest.fixture(autouse=True)
def _simulator(backend_kind: str) -> None:
    if backend_kind != "sim":
        pytest.skip("simulator test")


def test_index_2d_fills_row_after_row_and_leaves_the_rest_of_a_longer_array() -> None:
    # grid (1, 1) × block (3, 2): width = 1 × 3 = 3, height 2. Thread (x, y) stores cuda.grid(1),
    # which in a 2-D launch is x alone, at slot x + 3y: row 0 → slots 0, 1, 2 = 0, 1, 2; row 1 →
    # slots 3, 4, 5 = 0, 1, 2. An array of 9 keeps its last 3 slots at -1.
    values = cuda.to_device(np.full(9, -1, dtype=np.int64))
    index_2d[(1, 1), (3, 2)](values, values)
    assert values.copy_to_host().tolist() == [0, 1, 2, 0, 1, 2, -1, -1, -1]
