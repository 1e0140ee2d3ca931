"""vecadd on the CUDA simulator: progress, repeats and the sweep, worked by hand."""

from __future__ import annotations

import pytest

from simtviz.backends.vecadd import sim
from simtviz.backends.vecadd.sim import run_vecadd_sim
from simtviz.core.vecadd import VecaddRequest


@pytest.fixture
def no_watcher(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the launch boundaries: the in-launch watcher reports every PROGRESS_SECONDS of wall
    time, so how many it adds depends on the machine's load (the suite saw 0.22 and 0.075)."""
    monkeypatch.setattr(sim, "PROGRESS_SECONDS", 3600.0)


def test_two_repeats_report_half_then_all(no_watcher: None) -> None:
    # n 100 in blocks of 32: grid 4, 128 threads a launch; two launches = 256 simulated threads.
    seen: list[float] = []
    result = run_vecadd_sim(VecaddRequest(100, 32, repeat=2), progress=seen.append)
    assert seen == [0.5, 1.0, 1.0]
    assert (result.n, result.block, result.grid, result.repeat) == (100, 32, 4, 2)
    assert result.verified is True and result.max_abs_err == 0.0 and result.kernel_error is None
    assert result.kernel_ms is None and result.sim_wall_ms is not None and result.numpy_ms is not None
    assert result.notes[-1].startswith("Ran on the CUDA simulator with NumPy arrays")


def test_the_sweep_times_each_block_size(no_watcher: None) -> None:
    # n 100: grids 4, 2, 1, 1 for blocks 32, 64, 128, 256 → 128, 128, 128, 256 threads;
    # with the checked launch (4 × 32 = 128): 768 threads in all.
    request = VecaddRequest(100, 32, repeat=1, sweep=True, sweep_blocks=(32, 64, 128, 256))
    assert request.simulated_threads() == 768
    seen: list[float] = []
    result = run_vecadd_sim(request, progress=seen.append)
    assert seen == [128 / 768, 256 / 768, 384 / 768, 512 / 768, 1.0, 1.0]
    assert [(r.block, r.grid, r.threads, r.idle_threads) for r in result.sweep] == [
        (32, 4, 128, 28),
        (64, 2, 128, 28),
        (128, 1, 128, 28),
        (256, 1, 256, 156),
    ]
    assert all(r.sim_wall_ms is not None and r.kernel_ms is None for r in result.sweep)


def test_in_launch_reports_climb_between_the_boundaries_and_end_at_one(monkeypatch) -> None:
    # A watcher firing every millisecond: whatever it adds, the bar never goes back and ends
    # full, and the boundaries of the hand-worked sweep above (128/768 … 1.0) are all reported.
    monkeypatch.setattr(sim, "PROGRESS_SECONDS", 0.001)
    seen: list[float] = []
    run_vecadd_sim(
        VecaddRequest(100, 32, repeat=1, sweep=True, sweep_blocks=(32, 64, 128, 256)), progress=seen.append
    )
    assert seen == sorted(seen) and seen[-1] == 1.0
    assert {128 / 768, 256 / 768, 384 / 768, 512 / 768, 1.0} <= set(seen)


def test_the_unguarded_kernel_stops_at_its_first_index_error() -> None:
    seen: list[float] = []
    result = run_vecadd_sim(VecaddRequest(100, 32, repeat=3, guarded=False), progress=seen.append)
    assert result.kernel_error is not None and result.kernel_error.startswith("IndexError")
    assert result.sim_wall_ms is not None and result.verified is not True
    # It stopped in the first launch: 3 launches of grid 4 × block 32 = 384 threads in all, so
    # nothing past the first launch's 128 / 384 is ever reported (a watcher on a slow machine
    # may report the first launch's writes while it runs; the run never goes on to a second).
    assert all(share <= 128 / 384 for share in seen)
    assert 1.0 not in seen


def test_times_in_milliseconds_from_the_host_clock(monkeypatch) -> None:
    from types import SimpleNamespace

    from simtviz.backends.vecadd import sim as vecadd_sim

    def clock(*ticks: float) -> SimpleNamespace:
        it = iter(ticks)
        return SimpleNamespace(perf_counter=lambda: next(it))

    # Two launches of 2 s and 3 s: the median, 2,500 ms. Then a sweep row of 0.5 s.
    monkeypatch.setattr(vecadd_sim, "time", clock(0.0, 2.0, 10.0, 13.0, 20.0, 20.5))
    result = run_vecadd_sim(VecaddRequest(64, 32, repeat=2, sweep=True, sweep_blocks=(64,)))
    assert result.sim_wall_ms == 2500.0
    assert [(r.block, r.sim_wall_ms) for r in result.sweep] == [(64, 500.0)]
    # The unguarded kernel stops after 0.75 s.
    monkeypatch.setattr(vecadd_sim, "time", clock(1.0, 1.75))
    assert run_vecadd_sim(VecaddRequest(100, 32, repeat=1, guarded=False)).sim_wall_ms == 750.0


def test_a_one_thread_run_reports_all_done_after_its_launch() -> None:
    seen: list[float] = []
    result = run_vecadd_sim(VecaddRequest(1, 1, repeat=1), progress=seen.append)
    assert seen == [1.0, 1.0] and result.grid == 1 and result.verified is True
