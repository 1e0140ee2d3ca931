"""What every backend shares (``backends.base``), with the child process stood in for: the
result of a run comes back from each path (here, isolated, the emulator and its fall-back to the
simulator), the estimate's seconds and numba's text for a zero-sized launch, worked out by hand."""

from __future__ import annotations

from typing import Any

import pytest

import simtviz.backends.isolated as isolated
from simtviz.backends.base import Backend, BackendInfo, BackendKind, simulated_rejection, zero_dimension_text
from simtviz.core.errors import EmulatorUnsupported
from simtviz.core.launch import LaunchConfig
from simtviz.core.limits import DeviceLimits

LIMITS = DeviceLimits()


class Toy(Backend):
    def __init__(self, kind: BackendKind) -> None:
        self.kind = kind
        self.lines: list[str] = []
        self.notice_handler = self.lines.append

    def info(self) -> BackendInfo:
        return BackendInfo(self.kind, self.kind.value, "toy", LIMITS)

    def execute(self, experiment: Any, request: Any, progress: Any) -> Any:
        return ("here", experiment.name, request)


class Experiment:
    def __init__(self, name: str, isolated: bool) -> None:
        self.name, self.isolated = name, isolated
        self.checked: list[str] = []

    def check(self, request: Any, info: BackendInfo) -> None:
        self.checked.append(info.backend_id)


def test_limits_and_to_host_give_back_what_the_backend_has() -> None:
    toy = Toy(BackendKind.SIM)
    assert toy.limits() is LIMITS
    recording: Any = object()
    assert toy.to_host(recording) is recording


def test_a_run_here_returns_the_experiments_result() -> None:
    exp = Experiment("toy", isolated=False)
    assert Toy(BackendKind.SIM).run(exp, 7) == ("here", "toy", 7)
    assert exp.checked == ["sim"]


def test_an_isolated_run_returns_the_childs_result(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def child(kind: str, experiment: Any, request: Any, progress: Any, cancel: Any) -> Any:
        calls.append(kind)
        return (kind, request)

    monkeypatch.setattr(isolated, "run_isolated", child)
    assert Toy(BackendKind.SIM).run(Experiment("toy", isolated=True), 7) == ("sim", 7)
    assert Toy(BackendKind.EMU).run(Experiment("toy", isolated=True), 8) == ("emu", 8)
    assert calls == ["sim", "emu"]


def test_what_the_emulator_cannot_run_comes_back_from_the_simulator_after_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def child(kind: str, experiment: Any, request: Any, progress: Any, cancel: Any) -> Any:
        if kind == "emu":
            raise EmulatorUnsupported("cuda.shfl_sync", 12)
        return (kind, request)

    monkeypatch.setattr(isolated, "run_isolated", child)
    toy, exp = Toy(BackendKind.EMU), Experiment("toy", isolated=True)
    assert toy.run(exp, 9) == ("sim", 9)
    # checked for the emulator, then against the simulator's own limits before it runs there
    assert exp.checked == ["emu", "sim"]
    assert toy.lines == [
        "line 12: the CPU emulator cannot run cuda.shfl_sync; running it on the CUDA simulator "
        "instead (slower)"
    ]


def test_the_estimate_is_threads_over_the_rate_plus_the_start() -> None:
    # simulator, 3,000 threads/s: 6,000 threads of record take 2 s; trace adds a 2 s start:
    # 6,000 / 3,000 + 2 = 4 s. The emulator traces 300,000 threads/s with a 0.5 s start:
    # 600,000 / 300,000 + 0.5 = 2.5 s
    sim = BackendInfo(BackendKind.SIM, "sim", "sim", LIMITS)
    assert sim.estimate_seconds(6_000) == 2.0
    assert sim.estimate_seconds(6_000, "trace") == 4.0
    assert BackendInfo(BackendKind.EMU, "emu", "emu", LIMITS).estimate_seconds(600_000, "trace") == 2.5


def test_a_zero_sized_grid_or_block_gets_numbas_own_words() -> None:
    assert (
        zero_dimension_text(LaunchConfig.of((4, 0), 32))
        == "LaunchConfig.grid values must be >= 1 (got (4, 0, 1))"
    )
    assert (
        zero_dimension_text(LaunchConfig.of(4, (0, 2)))
        == "LaunchConfig.block values must be >= 1 (got (0, 2, 1))"
    )
    assert zero_dimension_text(LaunchConfig.of(4, 32)) is None
    rejected = simulated_rejection(LaunchConfig.of(0, 32), LIMITS)
    assert rejected is not None
    assert (rejected.driver_text, rejected.exception_type) == (
        "LaunchConfig.grid values must be >= 1 (got (0, 1, 1))",
        "ValueError",
    )
    assert simulated_rejection(LaunchConfig.of(4, 32), LIMITS) is None
    too_big = simulated_rejection(LaunchConfig.of(4, 1025), LIMITS)  # 1,025 > 1,024 threads a block
    assert too_big is not None and too_big.exception_type == "CUDAError"
