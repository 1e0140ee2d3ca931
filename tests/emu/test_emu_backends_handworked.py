"""The emulator's halves of the index map and the vector add, hand-worked: which blocks a
window needs, what each run reports as its times (a stand-in clock, so the numbers are exact),
its progress, and the words for an unguarded launch with no surplus thread."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from simtviz.backends.record import emu as record_emu
from simtviz.backends.vecadd import emu as vecadd_emu
from simtviz.core.launch import LaunchConfig
from simtviz.core.record import RecordRequest
from simtviz.core.vecadd import VecaddRequest
from simtviz.core.window import Window


def clock(monkeypatch: pytest.MonkeyPatch, module: Any, ticks: list[float]) -> None:
    times = iter(ticks)
    monkeypatch.setattr(module, "time", SimpleNamespace(perf_counter=lambda: next(times)))


def test_a_window_runs_only_the_blocks_it_overlaps() -> None:
    # Grid (4, 3, 2) of (2, 2, 2) blocks. The window from thread (2, 2, 2), 4 × 2 × 2 threads,
    # covers block x 1..2 (2 // 2 to (2 + 4 - 1) // 2), block y 1 (2 // 2 to 3 // 2) and block
    # z 1: block ids x + 4 (y + 3 z) = 1 + 4 × 4 = 17 and 18.
    config = LaunchConfig.of((4, 3, 2), (2, 2, 2))
    blocks = record_emu.recording_blocks(config, Window((2, 2, 2), (4, 2, 2)))
    assert blocks is not None and blocks.tolist() == [17, 18]
    # From thread (1, 0, 0), 2 × 1 × 1: threads x 1 and 2 lie in blocks 0 and 1.
    assert record_emu.recording_blocks(config, Window((1, 0, 0), (2, 1, 1))).tolist() == [0, 1]  # type: ignore[union-attr]
    assert record_emu.recording_blocks(config, Window.full(config)) is None  # every block


def test_a_windowed_recording_matches_the_formulas(monkeypatch: pytest.MonkeyPatch) -> None:
    # The launch above, the window's 16 threads: every row verified, and the times are the
    # clock's: 0.5 s of launch, 2 ms of checking.
    config = LaunchConfig.of((4, 3, 2), (2, 2, 2))
    clock(monkeypatch, record_emu, [10.0, 10.5, 11.0, 11.002])
    recording = record_emu.record_in_emulator(RecordRequest(config, Window((2, 2, 2), (4, 2, 2))))
    assert recording.verification is not None and recording.verification.summary() == "16 of 16 threads match"
    assert recording.fields["grid3"][0].tolist() == [2, 2, 2] and recording.fields["grid3"][-1].tolist() == [
        5,
        3,
        3,
    ]
    timings = recording.timings_ms
    assert timings["wall_ms"] == 500.0 and timings["verify_ms"] == pytest.approx(2.0)
    assert timings["kernel_ms"] is None and timings["copy_ms"] is None  # no GPU clock here


def test_vecadd_reports_its_launch_times_and_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    # One timed launch (0.25 s), then the sweep's two (0.5 s and 0.125 s): 3 launches, so the
    # progress is 1/3, 2/3, 3/3, then done.
    clock(monkeypatch, vecadd_emu, [0.0, 0.25, 1.0, 1.5, 2.0, 2.125])
    progress: list[float] = []
    request = VecaddRequest(600, 256, sweep=True, sweep_blocks=(32, 64), repeat=1)
    result = vecadd_emu.run_vecadd_emu(request, progress=progress.append)
    assert result.sim_wall_ms == 250.0
    assert [(row.block, row.sim_wall_ms) for row in result.sweep] == [(32, 500.0), (64, 125.0)]
    assert progress == pytest.approx([1 / 3, 2 / 3, 1.0, 1.0])
    assert result.verified


def test_an_unguarded_launch_without_surplus_threads_counts_nothing_past_the_end() -> None:
    # N = 1,024 = 4 × 256: no thread past the end, so nothing is counted or skipped.
    result = vecadd_emu.run_vecadd_emu(VecaddRequest(1024, 256, guarded=False, repeat=1))
    assert result.oob_writes == 0 and result.verified
    assert "the 0 writes past the end of C (and 0 loads past A and B) were counted" in result.notes[0]
    assert np.isfinite(result.sim_wall_ms) and result.sim_wall_ms > 0
