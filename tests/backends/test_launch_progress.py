"""Progress counts the whole launch, not the rows of the recording window (issue 11.6)."""

from __future__ import annotations

import pytest

from simtviz.backends.record import sim as record_sim
from simtviz.backends.record.sim import BlockCounter, launch_progress
from simtviz.backends.sim import SimBackend
from simtviz.core.launch import LaunchConfig
from simtviz.core.window import Window

# 16 blocks of 32 threads, of which a budget of 32 records the first block only.
CONFIG = LaunchConfig.of(16, 32)


def test_a_full_window_of_a_larger_launch_is_not_the_end() -> None:
    # The window's 32 rows are written once block 0 ends: 1 of 16 blocks, not 100 %.
    assert launch_progress(rows_written=32, blocks_done=1, config=CONFIG) == 1 / 16
    assert launch_progress(rows_written=32, blocks_done=12, config=CONFIG) == 12 / 16
    # Inside a block, recorded threads that ran count too (512 threads in all).
    assert launch_progress(rows_written=16, blocks_done=0, config=CONFIG) == 16 / 512
    assert launch_progress(rows_written=32, blocks_done=16, config=CONFIG) == 1.0


def test_the_simulator_counts_each_block_it_runs() -> None:
    counter = BlockCounter()
    backend = SimBackend()
    with counter.counting() as hooked:
        recording = backend.record(CONFIG, Window((0, 0, 0), (32, 1, 1)))
    assert hooked, "this numba's simulator has no per-block hook: progress counts recorded rows only"
    assert counter.done == 16
    assert recording.threads == 32


def test_reported_progress_stays_below_one_after_the_window_is_written(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[float] = []
    monkeypatch.setattr(record_sim, "PROGRESS_SECONDS", 0.001)
    SimBackend().record(CONFIG, Window((0, 0, 0), (32, 1, 1)), progress=seen.append)
    assert seen[-1] == 1.0
    # Before the launch ended, no report said it had (the old count said 100 % after block 0).
    assert max(seen[:-1], default=0.0) <= 0.99
    assert any(0 < f < 0.99 for f in seen[:-1])
