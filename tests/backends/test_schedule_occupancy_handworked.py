"""The occupancy backend's own decisions, hand-worked and with no GPU: which words say why nothing
can be measured off a GPU, how a device is named, which block sizes reach the driver, and which
compiled kernel each GPU fact comes from (the GPU's answers are stood in for; tests/gpu asks the
real driver)."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace
from typing import Any

import pytest

from simtviz.backends.schedule import gpu as schedule_gpu
from simtviz.backends.schedule import occupancy as backend
from simtviz.core.errors import NothingToMeasure
from simtviz.core.schedule.occupancy import profile_for


def test_only_the_gpu_backend_can_measure() -> None:
    backend.check_can_measure("gpu")  # raises nothing
    with pytest.raises(NothingToMeasure, match="the CPU emulator runs every thread in lockstep"):
        backend.check_can_measure("emu")
    with pytest.raises(NothingToMeasure, match="the CUDA simulator runs blocks one after another"):
        backend.check_can_measure("sim")


def test_a_measured_gpu_is_named_as_it_is_and_a_profile_says_computed() -> None:
    profile = profile_for("9.0")
    assert backend.profile_label(profile) == f"{profile.name} (cc 9.0 profile, computed)"
    measured = dataclasses.replace(profile, name="NVIDIA H200", measured=True)
    assert backend.profile_label(measured) == "NVIDIA H200"


class Compiled:
    def __init__(self, heavy: bool) -> None:
        self.heavy = heavy
        self.regs_per_thread = 40 if heavy else 16
        self.shared_mem_per_block = 0


@pytest.fixture
def fake_gpu(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """The schedule kernels' compiled facts and the driver's figure, stood in for."""
    calls: list[tuple[Any, ...]] = []

    def compiled_kernel(heavy: bool, max_registers: int | None = None) -> Compiled:
        calls.append(("compile", heavy))
        return Compiled(heavy)

    def driver_blocks_per_sm(overload: Compiled, block: int, smem: int) -> int:
        calls.append(("driver", overload.heavy, block, smem))
        return 2048 // block

    monkeypatch.setattr(schedule_gpu, "compiled_kernel", compiled_kernel)
    monkeypatch.setattr(schedule_gpu, "driver_blocks_per_sm", driver_blocks_per_sm)
    return calls


@pytest.mark.parametrize("block", [0, -3, 1025, 2048])
def test_a_block_the_gpu_cannot_launch_fits_zero_times_without_asking_the_driver(
    fake_gpu: list[tuple[Any, ...]], block: int
) -> None:
    assert backend.driver_figure(block, 0, heavy=False) == 0
    assert fake_gpu == []


@pytest.mark.parametrize(("block", "expected"), [(1, 2048), (256, 8), (1024, 2)])
def test_every_launchable_block_asks_the_driver_for_the_right_kernel(
    fake_gpu: list[tuple[Any, ...]], block: int, expected: int
) -> None:
    assert backend.driver_figure(block, 4096, heavy=True) == expected
    assert fake_gpu == [("compile", True), ("driver", True, block, 4096)]


def test_gpu_facts_take_each_kernel_s_own_registers(
    fake_gpu: list[tuple[Any, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    profile = dataclasses.replace(profile_for("9.0"), name="NVIDIA H200", measured=True)
    monkeypatch.setattr(backend, "current_profile", lambda: profile)
    facts = backend.gpu_occupancy_facts()
    assert facts == backend.GpuOccupancyFacts(profile, kernel_regs=16, heavy_regs=40, static_smem=0)
    assert fake_gpu == [("compile", False), ("compile", True)]
    assert backend.current_kernel_regs() == 16  # the plain kernel's, not the heavy one's


def test_current_without_a_usable_gpu_says_so_and_offers_profiles(monkeypatch: pytest.MonkeyPatch) -> None:
    import numba.cuda

    from simtviz.backends import selection

    monkeypatch.setattr(selection, "activate", lambda kind: None)
    monkeypatch.setattr(numba.cuda, "is_available", lambda: False)
    with pytest.raises(backend.NoGpuForCurrent) as caught:
        backend.current_profile()
    text = str(caught.value)
    assert text.startswith("there is no GPU here (numba-cuda finds no usable NVIDIA GPU)")
    assert "e.g. --device 9.0" in text and "computed, not measured" in text


def test_current_reads_the_device_s_name_and_attributes(monkeypatch: pytest.MonkeyPatch) -> None:
    import numba.cuda

    from simtviz.backends import selection

    device = SimpleNamespace(name=b"NVIDIA H200")
    monkeypatch.setattr(selection, "activate", lambda kind: None)
    monkeypatch.setattr(numba.cuda, "is_available", lambda: True)
    monkeypatch.setattr(numba.cuda, "get_current_device", lambda: device)
    seen: list[Any] = []
    monkeypatch.setattr(backend, "read_device_attributes", lambda d: seen.append(d) or {"x": 1})
    monkeypatch.setattr(backend, "profile_from_attributes", lambda attrs, name: (attrs, name))
    assert backend.current_profile() == ({"x": 1}, "NVIDIA H200")  # bytes decoded
    assert seen == [device]
