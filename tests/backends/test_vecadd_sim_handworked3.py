"""vecadd on numba's simulator, hand-worked: A and B are the guide's uniform(−1, 1) draws."""

from __future__ import annotations

import numpy as np
import pytest
from numba import cuda  # noqa: F401  (the simulator's numba, before simtviz's runner)

from simtviz.backends.vecadd.sim import run_vecadd_sim
from simtviz.core.vecadd import VecaddRequest


def test_a_and_b_are_uniform_on_minus_1_to_1(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[np.ndarray] = []
    real = np.random.default_rng

    class Recording:
        def __init__(self) -> None:
            self.rng = real(2026)  # seeded: the same draws every run

        def uniform(self, low: float, high: float, size: int) -> np.ndarray:
            values = self.rng.uniform(low, high, size)
            drawn.append(values)
            return values

    monkeypatch.setattr(np.random, "default_rng", lambda *args: Recording())
    result = run_vecadd_sim(VecaddRequest(256, 256, repeat=1))
    assert result.verified and result.max_abs_err == 0.0
    assert [a.shape for a in drawn] == [(256,), (256,)]  # A, then B
    for values in drawn:
        # inside [−1, 1) and near both ends: 256 draws over a width of 2 leave no 0.1 gap at an
        # end (chance 0.95^256 ≈ 2e−6, and these draws are fixed); a range reaching −2 or +2
        # would put about a third of them outside
        assert values.min() >= -1.0 and values.max() < 1.0
        assert values.min() < -0.9 and values.max() > 0.9
