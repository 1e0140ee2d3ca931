"""The simulator backends' plumbing: --force reaches the check, a child's error is raised in the
parent with its words, and shutdown kills a child that does not stop on request."""

from __future__ import annotations

import os
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from simtviz.backends import experiment
from simtviz.backends.base import Backend, BackendInfo, Progress
from simtviz.backends.experiment import AnyExperiment
from simtviz.backends.sim import SimBackend
from simtviz.backends.sim_process import SimProcessBackend
from simtviz.core.errors import KernelFailed, LaunchTooLarge
from simtviz.core.launch import LaunchConfig


class RecordingSimBackend(SimBackend):
    """Checks as the simulator does, but only notes what it would have run."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[Any] = []

    def execute(self, experiment: AnyExperiment, request: Any, progress: Progress | None) -> Any:
        self.requests.append(request)
        return "ran"


BIG = LaunchConfig.of(129, 1024)  # 132,096 threads: more than the simulator runs unasked


def test_record_with_force_runs_a_long_launch() -> None:
    backend = RecordingSimBackend()
    with pytest.raises(LaunchTooLarge):
        backend.record(BIG)
    assert backend.requests == []
    assert backend.record(BIG, force=True) == "ran"
    assert backend.requests[0].force is True and backend.requests[0].config == BIG


@dataclass(frozen=True)
class Plan:
    action: str  # "fail", "hang", "die" or "slow"


class FaultExperiment:
    """A test-only experiment whose simulator half fails, or never returns."""

    name = "test-fault"

    def check(self, request: Plan, info: BackendInfo) -> None:
        return None

    def estimate_s(self, request: Plan, info: BackendInfo) -> float | None:
        return 10_000.0 if request.action == "slow" else None

    def run_gpu(self, backend: Backend, request: Plan, progress: Progress | None) -> Any:
        raise NotImplementedError

    def run_sim(self, request: Plan, info: BackendInfo, progress: Progress | None) -> Any:
        if request.action == "fail":
            raise ValueError("thread 7 read past the end of C")
        if request.action == "die":
            os._exit(3)  # as a segfault or the OOM killer would end it: no reply
        if request.action == "slow":
            time.sleep(0.6)  # reports nothing: the parent shows the elapsed share of the estimate
            return "done"
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # stubborn: only SIGKILL stops it
        if progress:
            progress(0.5)
        time.sleep(120)
        return "never"


FAULT = experiment.register(FaultExperiment())


def test_an_error_in_the_child_is_raised_in_the_parent_with_its_words() -> None:
    backend = SimProcessBackend()
    try:
        with pytest.raises(KernelFailed) as info:
            backend.run(FAULT, Plan("fail"))
        text = str(info.value)
        assert text.startswith("the simulator raised ValueError: thread 7 read past the end of C")
        assert "Traceback" in text  # the child's traceback, for the details
    finally:
        backend.shutdown()


def test_shutdown_kills_a_child_that_does_not_stop() -> None:
    backend = SimProcessBackend()
    seen: list[float] = []
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            backend.run(FAULT, Plan("hang"), seen.append)
        except BaseException as exc:
            outcome.append(exc)

    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    deadline = time.monotonic() + 60
    while not (seen and max(seen) >= 0.5) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert seen and max(seen) >= 0.5, "the child never started the experiment"
    proc = backend._proc
    pid = proc.pid
    try:
        backend.shutdown()
        proc.join(5)
        assert not proc.is_alive()
        runner.join(5)
        # The run in progress ends (Cancelled, or an error of the torn-down pipe: see TESTING.md).
        assert not runner.is_alive() and outcome
    finally:
        if proc.is_alive():
            os.kill(pid, signal.SIGKILL)


def test_record_in_the_simulator_reports_progress_and_its_window() -> None:
    from simtviz.backends.record import sim as record_sim
    from simtviz.core.schema import allocate
    from simtviz.core.window import Window

    assert record_sim.window_array(Window((3, 4, 5), (4, 3, 2))).tolist() == [3, 4, 5, 4, 3, 2]
    fields = allocate(4)
    assert record_sim.progress_of(fields) == 0.0
    fields["warp"][[0, 3]] = 0  # two of four rows written
    assert record_sim.progress_of(fields) == 0.5
    assert record_sim.progress_of(allocate(0)) == 0.0
    seen: list[float] = []
    rec = SimBackend().record(LaunchConfig.of(2, 4), progress=seen.append)
    assert seen[-1] == 1.0 and all(0.0 <= p <= 1.0 for p in seen)
    assert rec.backend == "sim" and rec.timings_ms["kernel_ms"] is None and rec.timings_ms["copy_ms"] is None
    assert rec.timings_ms["wall_ms"] >= 0 and rec.timings_ms["verify_ms"] >= 0


def test_a_kernel_that_raises_in_the_simulator_is_a_kernel_failure(monkeypatch) -> None:
    from numba import cuda

    @cuda.jit
    def raises(threadIdx, blockIdx, grid1, grid2, grid3, laneid, warp, smid, t_ns, window, ended):  # type: ignore[no-untyped-def]
        threadIdx[99, 0] = 1  # past the end of a 2-row record

    monkeypatch.setattr("simtviz.kernels.record.record_threads", raises)
    with pytest.raises(KernelFailed, match="the kernel raised IndexError"):
        SimBackend().record(LaunchConfig.of(1, 2))


def test_sim_info_names_the_simulator() -> None:
    from simtviz.backends.sim import SIM_LABEL, sim_info

    assert sim_info().label == SIM_LABEL == "CUDA simulator on the CPU — no NVIDIA GPU in use"
    assert sim_info("no GPU found").label == "CUDA simulator on the CPU — no GPU found"
    assert sim_info().backend_id == "sim" and SimBackend().info().kind == "sim"


def test_a_child_that_dies_is_a_kernel_failure_and_the_next_run_starts_a_new_one() -> None:
    backend = SimProcessBackend()
    try:
        with pytest.raises(KernelFailed, match="the simulator process ended unexpectedly"):
            backend.run(FAULT, Plan("die"))
        with pytest.raises(KernelFailed, match="the simulator raised ValueError"):
            backend.run(FAULT, Plan("fail"))
    finally:
        backend.shutdown()


def test_without_reports_progress_is_the_elapsed_share_of_the_estimate() -> None:
    # 0.6 s of an estimated 10,000 s: every share shown is tiny, then 1.0 at the end.
    backend = SimProcessBackend()
    seen: list[float] = []
    try:
        assert backend.run(FAULT, Plan("slow"), seen.append) == "done"
    finally:
        backend.shutdown()
    assert seen[-1] == 1.0
    assert seen[:-1] and all(0.0 <= p < 0.01 for p in seen[:-1])


def test_only_the_child_process_backend_can_cancel_and_its_child_never_outlives_the_app() -> None:
    assert SimProcessBackend.can_cancel is True and SimBackend.can_cancel is False
    backend = SimProcessBackend()
    try:
        backend.warm_up()
        # The child runs apart from the app (its own process, found by pid) until shutdown().
        pid = backend.child_pid
        assert pid is not None and Path(f"/proc/{pid}").exists()
    finally:
        backend.shutdown()
    deadline = time.monotonic() + 5
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(f"/proc/{pid}").exists()  # shut down with the app, reaped


def test_record_timings_in_milliseconds_from_the_host_clock(monkeypatch) -> None:
    from types import SimpleNamespace

    from simtviz.backends.record import sim as record_sim
    from simtviz.core.schema import allocate

    # The launch from 10.0 s to 12.5 s, the check from 20.0 s to 20.25 s: 2,500 ms and 250 ms.
    ticks = iter([10.0, 12.5, 20.0, 20.25])
    monkeypatch.setattr(record_sim, "time", SimpleNamespace(perf_counter=lambda: next(ticks)))
    rec = SimBackend().record(LaunchConfig.of(1, 2))
    assert rec.timings_ms == {"wall_ms": 2500.0, "kernel_ms": None, "verify_ms": 250.0, "copy_ms": None}
    one = allocate(1)
    one["warp"][0] = 0
    assert record_sim.progress_of(one) == 1.0
