"""vecadd on the CPU emulator, hand-worked: the inputs are the guide's uniform(−1, 1) draws, the
progress of a run without a sweep counts only the timed launches, and the sweep times the guarded
kernel whichever variant the run checked."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from simtviz import emu
from simtviz.backends.vecadd import emu as vecadd_emu
from simtviz.core.vecadd import VecaddRequest


def drawn_inputs(monkeypatch: pytest.MonkeyPatch) -> list[np.ndarray]:
    """Every array ``rng.uniform`` hands the run (a seeded generator, so the run is repeatable)."""
    drawn: list[np.ndarray] = []
    real = np.random.default_rng

    class Recording:
        def __init__(self) -> None:
            self.rng = real(2026)

        def uniform(self, low: float, high: float, size: int) -> np.ndarray:
            values = self.rng.uniform(low, high, size)
            drawn.append(values)
            return values

    monkeypatch.setattr(np.random, "default_rng", lambda *args: Recording())
    return drawn


def test_a_and_b_are_uniform_on_minus_1_to_1(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = drawn_inputs(monkeypatch)
    result = vecadd_emu.run_vecadd_emu(VecaddRequest(1000, 256, repeat=1))
    assert result.verified and result.max_abs_err == 0.0
    assert [a.shape for a in drawn] == [(1000,), (1000,)]  # A, then B
    for values in drawn:
        # inside [−1, 1), and reaching near both ends: 1,000 draws of a width-2 range leave no
        # gap of 0.1 at either end (chance 0.95^1000 ≈ 5e−23); a range of −2 or +2 would put
        # about a third of them outside
        assert values.min() >= -1.0 and values.max() < 1.0
        assert values.min() < -0.9 and values.max() > 0.9


def test_without_a_sweep_the_progress_counts_the_timed_launches_only() -> None:
    progress: list[float] = []
    vecadd_emu.run_vecadd_emu(VecaddRequest(300, 128, repeat=4), progress=progress.append)
    # 4 timed launches and no sweep: 1/4, 2/4, 3/4, 4/4, then done
    assert progress == [0.25, 0.5, 0.75, 1.0, 1.0]


@pytest.mark.parametrize("guarded", [True, False])
def test_the_sweep_times_the_guarded_kernel(monkeypatch: pytest.MonkeyPatch, guarded: bool) -> None:
    launched: list[tuple[str, Any, Any]] = []
    real = emu.launch

    def launch(module: Any, kernel: str, grid: Any, block: Any, *args: Any, **kwargs: Any) -> Any:
        launched.append((kernel, grid, block))
        return real(module, kernel, grid, block, *args, **kwargs)

    monkeypatch.setattr(emu, "launch", launch)
    request = VecaddRequest(300, 128, guarded=guarded, repeat=1, sweep=True, sweep_blocks=(64, 512))
    vecadd_emu.run_vecadd_emu(request)
    checked = "vecadd" if guarded else "vecadd_unguarded"
    # the checked launch: ceil(300 / 128) = 3 blocks; the sweep's: ceil(300 / 64) = 5 of 64 and
    # ceil(300 / 512) = 1 of 512, both the guarded kernel
    assert launched == [(checked, 3, 128), ("vecadd", 5, 64), ("vecadd", 1, 512)]
