"""The simulator really runs the kernel: its records must equal the oracle, thread by thread."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simtviz.backends.sim import SimBackend
from simtviz.core.errors import LaunchRejected, LaunchTooLarge
from simtviz.core.launch import LaunchConfig
from simtviz.core.limits import DRIVER_INVALID_VALUE
from simtviz.core.oracle import CHECKED_FIELDS, expected_field
from simtviz.core.window import Window


@pytest.fixture(scope="module")
def sim() -> SimBackend:
    return SimBackend()


@st.composite
def small_configs(draw: st.DrawFn) -> LaunchConfig:
    rank = draw(st.integers(1, 3))
    grid = [draw(st.integers(1, 5)) for _ in range(rank)]
    block = [draw(st.integers(1, 40 if rank == 1 else 12)) for _ in range(rank)]
    config = LaunchConfig.of(tuple(grid), tuple(block))
    if config.total_threads > 3000 or config.threads_per_block > 1024:
        block = [1] * rank
        config = LaunchConfig.of(tuple(grid), tuple(block))
    return config


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_configs())
def test_simulator_records_equal_the_oracle(sim: SimBackend, config: LaunchConfig) -> None:
    recording = sim.record(config)
    window = Window.full(config)
    assert recording.verification is not None and recording.verification.ok, recording.verification
    for name in CHECKED_FIELDS:
        np.testing.assert_array_equal(
            recording.fields[name], expected_field(name, config, window), err_msg=name
        )
    # Every (blockIdx, threadIdx) pair appears exactly once.
    pairs = np.concatenate([recording.fields["blockIdx"], recording.fields["threadIdx"]], axis=1)
    assert len(np.unique(pairs, axis=0)) == config.total_threads
    # The simulator cannot know the SM or the clock: -1, never invented.
    assert (recording.fields["smid"] == -1).all() and (recording.fields["t_ns"] == -1).all()
    assert recording.timings_ms["kernel_ms"] is None


def test_2048_threads_per_block_is_rejected_with_the_drivers_text_at_once(sim: SimBackend) -> None:
    start = time.perf_counter()
    with pytest.raises(LaunchRejected) as info:
        sim.record(LaunchConfig.of(2048, 2048))  # 4 million threads: must not run them first
    assert time.perf_counter() - start < 0.5
    assert info.value.driver_text == DRIVER_INVALID_VALUE
    assert "2,048 > 1,024" in info.value.explanation


def test_zero_blocks_get_numbas_value_error_text(sim: SimBackend) -> None:
    with pytest.raises(LaunchRejected) as info:
        sim.record(LaunchConfig.of(0, 32))
    assert info.value.driver_text == "LaunchConfig.grid values must be >= 1 (got (0, 1, 1))"
    assert info.value.exception_type == "ValueError"


def test_large_valid_launch_needs_force(sim: SimBackend) -> None:
    with pytest.raises(LaunchTooLarge) as info:
        sim.record(LaunchConfig.of(1024, 1024))
    exc = info.value
    assert (exc.threads, exc.limit, exc.where) == (1_048_576, 131_072, "the CUDA simulator")
    assert exc.estimate_s and exc.estimate_s > 60
    # The facts without a verb: the CLI adds "use --force" (test_cli), the app asks "Run it anyway?".
    assert str(exc) == (
        "1,048,576 threads would take about 6 min on the CUDA simulator "  # 349.53 s at 3,000/s
        "(it runs up to 131,072 without asking)"
    )


def test_windowed_recording_keeps_only_the_window(sim: SimBackend) -> None:
    config = LaunchConfig.of((4, 4), (8, 8))
    window = Window((8, 16, 0), (16, 8, 1))
    recording = sim.record(config, window)
    assert recording.threads == 128
    assert recording.verification is not None and recording.verification.ok
    assert tuple(recording.fields["grid2"][0]) == (8, 16)


def test_child_process_backend_records_reports_progress_and_cancels() -> None:
    from simtviz.backends.sim_process import SimProcessBackend
    from simtviz.core.errors import Cancelled

    backend = SimProcessBackend()
    try:
        seen: list[float] = []
        recording = backend.record(LaunchConfig.of((4, 3), (8, 4)), progress=seen.append)
        assert recording.verification is not None and recording.verification.ok
        assert recording.image("global linear index").shape == (12, 32)
        assert seen[-1] == 1.0

        # A run of ~10 s, cancelled after 1 s, must end within a second of the request.
        during: list[float] = []
        timer = threading.Timer(1.5, backend.cancel)
        timer.start()
        start = time.perf_counter()
        with pytest.raises(Cancelled):
            backend.record(LaunchConfig.of(256, 256), progress=during.append)
        assert time.perf_counter() - start < 2.5
        assert any(0 < f < 1 for f in during), during  # real progress, read from the shared record

        # The next run starts a fresh child and works.
        again = backend.record(LaunchConfig.of(2, 32))
        assert again.verification is not None and again.verification.ok
    finally:
        backend.shutdown()
