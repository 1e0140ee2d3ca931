"""Record's progress bar during a launch on the simulator, paused at a known point: it counts the
recorded threads that have run, not the rows still waiting."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest
from numba import cuda  # noqa: F401  (the simulator's kernels run in this process)

from simtviz.backends.record import sim as record_sim
from simtviz.backends.sim import SimBackend
from simtviz.core.launch import LaunchConfig
from simtviz.core.window import Window


def test_a_quarter_of_the_threads_run_shows_a_quarter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(record_sim, "PROGRESS_SECONDS", 0.001)
    seen: list[float] = []
    arrived = threading.Condition()

    def progress(share: float) -> None:
        with arrived:
            seen.append(share)
            arrived.notify_all()

    real = record_sim.run_kernel_in_simulator
    during: list[float] = []

    def paused_kernel(config: LaunchConfig, window: Window, fields: dict[str, np.ndarray]) -> Any:
        fields["warp"][:8] = 0  # threads 0-7 have run (warp is among the last fields written)
        with arrived:
            n = len(seen)
            # the report after the next one counted the rows after they were written
            assert arrived.wait_for(lambda: len(seen) >= n + 2, timeout=10)
            during.append(seen[n + 1])
        return real(config, window, fields)  # then the real launch writes every row

    monkeypatch.setattr(record_sim, "run_kernel_in_simulator", paused_kernel)
    # 1 block of 32 threads, all 32 recorded; the block has not ended: 8 of 32 rows = 25 %.
    recording = SimBackend().record(LaunchConfig.of(1, 32), Window((0, 0, 0), (32, 1, 1)), progress=progress)
    assert during == [0.25]
    assert seen[-1] == 1.0 and recording.threads == 32
