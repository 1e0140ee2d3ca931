"""vecadd on the simulator: what the bar says while a launch runs, worked by hand.

The kernel is replaced by one that writes C in two halves and waits between them until the
watcher has reported the first half, so every in-launch share below is exact, not a matter of
the machine's speed.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from simtviz.backends.vecadd import sim
from simtviz.backends.vecadd.sim import run_vecadd_sim
from simtviz.core.vecadd import VecaddRequest


class HalvesKernel:
    """``kernel[grid, block](a, b, c)`` that writes C's first half, waits for a report of more
    than ``floor()`` (the share done before this launch), then writes the rest."""

    def __init__(self, seen: list[float]) -> None:
        self.seen = seen
        self.reported = threading.Condition()
        self.launches = 0
        self.floors: list[float] = []

    def report(self, value: float) -> None:
        with self.reported:
            self.seen.append(value)
            self.reported.notify_all()

    def __getitem__(self, _launch: Any) -> Any:
        return self.launch

    def launch(self, a_d: Any, b_d: Any, c_d: Any) -> None:
        c = c_d._ary  # C itself: the watcher counts its non-zero elements
        total = a_d.copy_to_host() + b_d.copy_to_host()
        floor = self.floors[self.launches]
        self.launches += 1
        half = (c.size + 1) // 2
        c[:half] = total[:half]
        with self.reported:
            self.reported.wait_for(lambda: any(v > floor for v in self.seen), timeout=5)
        c[half:] = total[half:]


@pytest.fixture
def halves(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(sim, "PROGRESS_SECONDS", 0.001)
    seen: list[float] = []
    kernel = HalvesKernel(seen)
    monkeypatch.setattr("simtviz.kernels.vecadd.kernel_for", lambda guarded: kernel)
    return kernel


def test_each_launch_shows_its_half_done_between_the_launch_boundaries(halves: HalvesKernel) -> None:
    # n 64 in blocks of 32: grid 2, 64 threads a launch; 2 launches = 128 threads in all.
    # Launch 1, C half written: (0 + 0.5 × 64) / 128 = 0.25; its end: 64 / 128 = 0.5.
    # Launch 2 (C zeroed again): (64 + 0.5 × 64) / 128 = 0.75; its end 1.0, then 1.0 at the end.
    halves.floors = [0.0, 0.5]
    result = run_vecadd_sim(VecaddRequest(64, 32, repeat=2), progress=halves.report)
    seen = halves.seen
    assert result.verified is True and result.kernel_error is None
    assert seen == sorted(seen) and seen[-2:] == [1.0, 1.0]
    # 0.0 and 0.5 may also come from a report made before a launch wrote its first half
    assert {0.25, 0.5, 0.75, 1.0} <= set(seen) <= {0.0, 0.25, 0.5, 0.75, 1.0}


def test_a_vector_of_one_element_written_is_its_whole_launch(halves: HalvesKernel) -> None:
    # n 1 in a block of 32: one launch of 32 threads; C's one element written = 1 of 1 = the
    # whole launch, (0 + 1.0 × 32) / 32 = 1.0, while it still runs; never a half.
    halves.floors = [0.0]
    result = run_vecadd_sim(VecaddRequest(1, 32, repeat=1), progress=halves.report)
    assert result.verified is True
    assert set(halves.seen) <= {0.0, 1.0} and halves.seen[-1] == 1.0
    assert halves.seen.count(1.0) >= 3  # in the launch, at its end, and at the run's end
