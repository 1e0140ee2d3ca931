"""A new experiment is new code plus one ``register`` call: this one, defined and registered here,
records only ``cuda.laneid`` and runs on the simulator in-process, in the app's child process and
through the worker, with no change to the backends, the jobs module or the CLI."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from numba import cuda  # conftest (or the simulator's child) chose the simulator before this import

from simtviz.backends import experiment
from simtviz.backends.base import Backend, BackendInfo, BackendKind, Progress, simulated_rejection
from simtviz.backends.sim import SimBackend
from simtviz.backends.sim_process import SimProcessBackend
from simtviz.core.errors import LaunchRejected
from simtviz.core.launch import LaunchConfig
from simtviz.core.limits import DRIVER_INVALID_VALUE
from simtviz.jobs import Worker


@dataclass(frozen=True)
class LaneRequest:
    config: LaunchConfig  # 1-D launches: one lane per thread, in cuda.grid(1) order


@cuda.jit
def record_lanes(out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < out.size:
        out[i] = cuda.laneid


def _lanes(request: LaneRequest) -> np.ndarray:
    out = cuda.device_array(request.config.total_threads, dtype=np.int32)
    record_lanes[request.config.grid.x, request.config.block.x](out)
    return np.asarray(out.copy_to_host())


class LaneExperiment:
    name = "test-laneid"

    def check(self, request: LaneRequest, info: BackendInfo) -> None:
        rejection = simulated_rejection(request.config, info.limits)
        if info.kind is BackendKind.SIM and rejection is not None:
            raise rejection

    def estimate_s(self, request: LaneRequest, info: BackendInfo) -> float | None:
        return None

    def run_gpu(self, backend: Backend, request: LaneRequest, progress: Progress | None) -> np.ndarray:
        return _lanes(request)

    def run_sim(self, request: LaneRequest, info: BackendInfo, progress: Progress | None) -> Any:
        lanes = _lanes(request)
        if progress:
            progress(1.0)
        return lanes


# The one registration. The simulator's child process imports this module by its name to find it.
LANE = experiment.register(LaneExperiment())

# Two blocks of 48 threads: warp 0 has lanes 0–31, warp 1 the 16 threads left, lanes 0–15.
REQUEST = LaneRequest(LaunchConfig.of(2, 48))
EXPECTED = [*range(32), *range(16), *range(32), *range(16)]


def test_the_experiment_is_registered_beside_the_built_in_ones() -> None:
    assert {"record", "vecadd", "test-laneid"} <= set(experiment.names())
    assert experiment.get("test-laneid") is LANE


def test_it_runs_on_the_simulator_in_process_by_name_and_by_object() -> None:
    backend = SimBackend()
    assert backend.run("test-laneid", REQUEST).tolist() == EXPECTED
    assert backend.run(LANE, REQUEST).tolist() == EXPECTED


def test_it_runs_in_the_simulators_child_process() -> None:
    backend = SimProcessBackend()
    try:
        seen: list[float] = []
        assert backend.run("test-laneid", REQUEST, seen.append).tolist() == EXPECTED
        assert seen[-1] == 1.0
        # Checks run before the child is asked: a block of 2,048 is refused as a GPU would refuse it.
        with pytest.raises(LaunchRejected) as info:
            backend.run(LANE, LaneRequest(LaunchConfig.of(1, 2048)))
        assert info.value.driver_text == DRIVER_INVALID_VALUE
    finally:
        backend.shutdown()


def test_it_runs_through_the_worker_like_any_job() -> None:
    done = threading.Event()
    results: list[Any] = []
    worker = Worker(SimBackend)
    try:
        worker.submit(
            "lanes",
            lambda backend, progress: backend.run(LANE, REQUEST, progress),
            on_result=lambda _job, value: (results.append(value), done.set()),
            on_error=lambda _job, exc, _tb: (results.append(exc), done.set()),
        )
        assert done.wait(60)
        assert results[0].tolist() == EXPECTED
    finally:
        worker.shutdown()
