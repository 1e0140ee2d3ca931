"""The ``emu`` backend: runs an experiment's ``run_emu`` in this process, cancels cooperatively,
and hands what the emulator cannot run to numba's simulator with one line that says why.

The experiments here are test-only (registered as ``tests/backends/test_experiments.py`` does): one with
``run_emu`` and one without. Their results say which half ran, so a silent fallback would show.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from simtviz.backends import create_backend, experiment
from simtviz.backends.base import BackendInfo, BackendKind, Progress, check_size
from simtviz.backends.emu_backend import EmuBackend, emu_info
from simtviz.backends.sim import SimBackend
from simtviz.cli import run as cli_run
from simtviz.core import estimates
from simtviz.core.errors import Cancelled, EmulatorUnsupported, LaunchTooLarge, NothingToMeasure


@dataclass(frozen=True)
class LaneRequest:
    threads: int
    force: bool = False
    unsupported: bool = False  # run_emu raises EmulatorUnsupported
    steps: int = 1  # progress reports run_emu makes
    step_s: float = 0.0


def lanes(threads: int) -> np.ndarray:
    return np.arange(threads, dtype=np.int32) % 32


class EmuLanes:
    name = "test-emu-lanes"

    def check(self, request: LaneRequest, info: BackendInfo) -> None:
        check_size(info, request.threads, request.force)

    def estimate_s(self, request: LaneRequest, info: BackendInfo) -> float | None:
        return None

    def run_gpu(self, backend: Any, request: LaneRequest, progress: Progress | None) -> Any:
        raise AssertionError("no GPU here")

    def run_sim(self, request: LaneRequest, info: BackendInfo, progress: Progress | None) -> Any:
        return (info.backend_id, lanes(request.threads))

    def run_emu(self, request: LaneRequest, info: BackendInfo, progress: Progress | None) -> Any:
        if request.unsupported:
            raise EmulatorUnsupported("cuda.shfl_sync", line=7)
        for step in range(request.steps):
            time.sleep(request.step_s)
            if progress:
                progress((step + 1) / request.steps)
        return (info.backend_id, lanes(request.threads))


class SimOnlyLanes:
    """No ``run_emu``: the emulator backend must run it on the simulator and say so."""

    name = "test-sim-only-lanes"
    check = EmuLanes.check
    estimate_s = EmuLanes.estimate_s
    run_gpu = EmuLanes.run_gpu
    run_sim = EmuLanes.run_sim


EMU_LANES = experiment.register(EmuLanes())
SIM_ONLY = experiment.register(SimOnlyLanes())
# 40 threads: lanes 0–31 of warp 0, then 0–7 of warp 1.
EXPECTED = [*range(32), *range(8)]


def in_process_simulator() -> EmuBackend:
    """An emulator backend whose simulator runs in this process (conftest chose it for numba)."""
    return EmuBackend(simulator=SimBackend)


def test_runs_run_emu_here_and_reports_progress_to_one() -> None:
    backend = in_process_simulator()
    notices: list[str] = []
    backend.notice_handler = notices.append
    seen: list[float] = []
    ran_on, result = backend.run("test-emu-lanes", LaneRequest(40, steps=4), seen.append)
    assert ran_on == "emu" and result.tolist() == EXPECTED
    assert seen == [0.25, 0.5, 0.75, 1.0, 1.0]  # the experiment's four reports, then done
    assert notices == [] and backend.simulator is None  # nothing went elsewhere
    assert backend.can_cancel and backend.info().kind is BackendKind.EMU


def test_unsupported_construct_runs_on_the_simulator_with_one_line() -> None:
    backend = in_process_simulator()
    notices: list[str] = []
    backend.notice_handler = notices.append
    ran_on, result = backend.run(EMU_LANES, LaneRequest(40, unsupported=True))
    assert ran_on == "sim" and result.tolist() == EXPECTED
    assert notices == [
        "line 7: the CPU emulator cannot run cuda.shfl_sync; "
        "running it on the CUDA simulator instead (slower)"
    ]


def test_without_a_notice_handler_the_line_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    ran_on, _ = in_process_simulator().run(SIM_ONLY, LaneRequest(8))
    assert ran_on == "sim"
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "simtviz: the CPU emulator cannot run 'test-sim-only-lanes' yet; "
        "running it on the CUDA simulator instead (slower)"
    ]


def test_an_experiment_without_run_emu_runs_in_the_simulators_child_process() -> None:
    backend = EmuBackend()  # the real fallback: SimProcessBackend, started now
    notices: list[str] = []
    backend.notice_handler = notices.append
    try:
        ran_on, result = backend.run("test-sim-only-lanes", LaneRequest(40))
        assert ran_on == "sim" and result.tolist() == EXPECTED
        assert backend.simulator is not None and backend.simulator.child_pid is not None  # type: ignore[attr-defined]
        assert len(notices) == 1 and "'test-sim-only-lanes'" in notices[0]
    finally:
        backend.shutdown()
    assert backend.simulator is None


def test_a_fallback_is_checked_against_the_simulators_own_limit() -> None:
    # 200,000 threads: under the emulator's limit, over the simulator's 131,072, so the run that
    # would have started at once on the emulator asks first on the simulator (after the line).
    assert estimates.SIM_MAX_THREADS_UNASKED < 200_000 < estimates.EMU_MAX_THREADS_UNASKED
    backend = in_process_simulator()
    notices: list[str] = []
    backend.notice_handler = notices.append
    with pytest.raises(LaunchTooLarge) as raised:
        backend.run(EMU_LANES, LaneRequest(200_000, unsupported=True))
    assert raised.value.limit == 131_072 and "simulator" in str(raised.value)
    assert len(notices) == 1
    ran_on, _ = backend.run(EMU_LANES, LaneRequest(200_000, unsupported=True, force=True))
    assert ran_on == "sim"


def test_cancel_stops_a_run_at_its_next_progress_report() -> None:
    backend = in_process_simulator()
    outcome: list[BaseException | Any] = []
    reported = threading.Event()

    def work() -> None:
        try:
            request = LaneRequest(40, steps=1000, step_s=0.01)
            outcome.append(backend.run(EMU_LANES, request, lambda _f: reported.set()))
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=work)
    thread.start()
    assert reported.wait(5)
    started = time.monotonic()
    backend.cancel()
    thread.join(5)
    # 1,000 steps of 10 ms would take 10 s; the next report (≤ 10 ms later) stops it.
    assert time.monotonic() - started < 1.0
    assert len(outcome) == 1 and isinstance(outcome[0], Cancelled)
    # The next run is not cancelled by the last one's cancel.
    assert backend.run(EMU_LANES, LaneRequest(8))[0] == "emu"


def test_schedule_has_nothing_to_measure_on_the_emulator(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(NothingToMeasure, match="CPU emulator"):
        EmuBackend().run("schedule", _schedule_request())
    assert cli_run(["schedule", "--backend", "emu", "--grid", "8", "--block", "32"]) == 5
    assert "CPU emulator" in capsys.readouterr().err


def _schedule_request() -> Any:
    from simtviz.core.schedule import ScheduleRequest

    return ScheduleRequest((8, 1, 1), (32, 1, 1), work_us=20)


def test_the_emulators_info_words_and_limits() -> None:
    info = emu_info()
    assert (info.backend_id, info.label, info.device_words) == (
        "emu",
        "CPU emulator (lockstep, NumPy)",
        "the CPU emulator",
    )
    assert info.speaks_for_driver
    # The simulator's GPU-like limits: 1,024 threads per block, blocks ≤ 1024 × 1024 × 64.
    assert (info.limits.max_threads_per_block, info.limits.max_block) == (1024, (1024, 1024, 64))
    # The same seconds before asking as the simulator's 131,072 threads at 3,000/s (≈ 43.7 s).
    assert info.max_threads_unasked == int(131_072 / 3_000 * min(estimates.EMU_THREADS_PER_SECOND.values()))


def test_create_backend_emu_is_the_emulator_in_process() -> None:
    backend = create_backend("emu", in_process=False)
    assert isinstance(backend, EmuBackend) and backend.info().backend_id == "emu"
    backend.warm_up()  # cheap: nothing to start
    assert backend.simulator is None
