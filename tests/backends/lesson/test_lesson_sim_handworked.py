"""The lesson's simulator probes, hand-worked: the chapter's sizes they run with, the words for a
launch too big to simulate, the times they report (a stand-in clock, so the numbers are exact),
and CuPy's own reason when it cannot be imported. Runs where numba is in simulator mode."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest

from simtviz.backends.lesson import sim


@pytest.fixture(autouse=True)
def _simulator(backend_kind: str) -> None:
    if backend_kind != "sim":
        pytest.skip("simulator test")


def clock(monkeypatch: pytest.MonkeyPatch, ticks: list[float]) -> None:
    times = iter(ticks)
    monkeypatch.setattr(sim, "time", SimpleNamespace(perf_counter=lambda: next(times)))


def test_the_chapter_s_vector_add_is_too_big_to_simulate_and_says_how_long_it_would_take() -> None:
    # N = 2^24 + 11 = 16,777,227 in blocks of 256: ceil(N / 256) = 65,537 blocks = 16,777,472
    # threads, 245 of them past the end; at 6,600 threads a second: 16,777,472 / 6,600 / 60 = 42.4
    # minutes.
    result = sim.bounds_check(2**24 + 11, 256)
    assert (result["grid"], result["surplus_threads"]) == (65_537, 245)
    assert result["unavailable"]["raised"].startswith(
        "16,777,472 threads would take the simulator about 42 min (one Python thread at a time)"
    )
    assert result["raised"] is None and result["oob_writes"] is None


def test_the_probes_run_the_chapter_s_sizes_by_default() -> None:
    # The lesson calls these probes without sizes: their defaults are the chapter's.
    import inspect

    def defaults(probe: object) -> dict[str, object]:
        return {k: p.default for k, p in inspect.signature(probe).parameters.items()}  # type: ignore[arg-type]

    assert defaults(sim.launch_2048) == {"n": 2048 + 11, "block": 2048}  # 2 blocks of 2,048
    assert defaults(sim.timing_ways) == {"n": 16_777_227, "block": 256}  # N = 2^24 + 11
    assert defaults(sim.library_vs_kernel) == {"n": 2**24}
    assert defaults(sim.jit_timing) == {"n": 512, "block": 256}
    assert defaults(sim.host_array_to_kernel) == {"n": 256, "block": 256}
    assert defaults(sim.copy_bandwidth) == {"mbytes": 64, "repeat": 5}
    assert defaults(sim.bounds_check) == {"n": 1000, "block": 256}
    assert sim.copy_bandwidth()["bytes"] == 64 * 1024 * 1024 and sim.copy_bandwidth(3)["bytes"] == 3_145_728


def test_the_simulator_s_launch_times_are_its_wall_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    # jit_timing: the first launch 0.5 s, the second 0.125 s (wall time of the simulator).
    clock(monkeypatch, [1.0, 1.5, 2.0, 2.125])
    result = sim.jit_timing()
    assert (result["first_sim_launch_ms"], result["second_sim_launch_ms"]) == (500.0, 125.0)
    assert result["verified"] is True
    # async_timeline: the launch call returns after 0.25 s, synchronize() 0.0625 s later.
    clock(monkeypatch, [3.0, 3.25, 3.3125])
    timeline = sim.async_timeline()
    assert (timeline["sim_launch_return_ms"], timeline["sim_sync_return_ms"]) == (250.0, 312.5)
    assert timeline["launch_returned"] == "after the kernel"


def test_cupy_s_own_reason_when_it_cannot_be_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cupy", None)
    why = "CuPy cannot be imported here (ModuleNotFoundError: import of cupy halted; None in sys.modules)"
    assert sim.array_dtypes()["unavailable"]["cupy_version"] == why
    assert sim.async_timeline()["unavailable"]["cupy_has_synchronize"] == why
