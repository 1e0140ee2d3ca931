"""Theoretical occupancy for the CLI and the occupancy view: a built-in profile or the current GPU."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from simtviz.core.errors import NotAvailableHere, NothingToMeasure
from simtviz.core.schedule.occupancy import (
    PROFILES,
    DeviceProfile,
    occupancy,
    profile_for,
    profile_from_attributes,
    read_device_attributes,
)

# Registers assumed when none are given for a built-in profile: a small kernel's count (the
# recording kernels use 8-12; the calculator's own default example uses 32).
DEFAULT_PROFILE_REGS = 32


__all__ = [
    "DEFAULT_PROFILE_REGS",
    "GpuOccupancyFacts",
    "NoGpuForCurrent",
    "NothingToMeasure",
    "check_can_measure",
    "driver_figure",
    "gpu_occupancy_facts",
    "occupancy_summary",
    "profile_label",
]


class NoGpuForCurrent(NotAvailableHere):
    """``--device current`` without a GPU: there is no current device to read (exit status 5)."""


def no_gpu_for_current(why: str = "") -> NoGpuForCurrent:
    known = ", ".join(PROFILES)
    head = f"there is no GPU here ({why})" if why else "there is no GPU here"
    return NoGpuForCurrent(
        f"{head}, so there is no current device to read: name a compute capability instead, "
        f"e.g. --device 9.0 (built-in profiles: {known}); the numbers are then computed, not measured"
    )


def profile_label(profile: DeviceProfile) -> str:
    """How a device is named in the occupancy summary: measured GPU or public profile."""
    if profile.measured:
        return profile.name
    return f"{profile.name} (cc {profile.cc_text} profile, computed)"


def check_can_measure(backend_kind: str) -> None:
    """Raise ``NothingToMeasure`` off a GPU (simulator, emulator), before anything is launched."""
    if str(backend_kind) != "gpu":
        how = (
            "the CPU emulator runs every thread in lockstep on NumPy arrays"
            if str(backend_kind) == "emu"
            else "the CUDA simulator runs blocks one after another on the CPU"
        )
        raise NothingToMeasure(
            f"{how}: it has no SMs and no GPU clock, so there is no schedule to measure (the "
            "occupancy arithmetic still works: pick a device profile)"
        )


def current_profile() -> DeviceProfile:
    """The current GPU's profile, read from its attributes (needs the GPU backend active)."""
    from simtviz.backends.selection import activate
    from simtviz.core.errors import BackendChoiceError

    try:
        activate("gpu")
    except BackendChoiceError as exc:  # this process already runs the simulator
        raise no_gpu_for_current("this process runs the CUDA simulator") from exc
    from numba import cuda

    if not cuda.is_available():
        raise no_gpu_for_current("numba-cuda finds no usable NVIDIA GPU")
    device = cuda.get_current_device()
    name = device.name.decode() if isinstance(device.name, bytes) else str(device.name)
    return profile_from_attributes(read_device_attributes(device), name)


def current_kernel_regs() -> int:
    """Registers per thread of the plain schedule kernel on the current GPU."""
    from simtviz.backends.schedule.gpu import compiled_kernel

    return int(compiled_kernel(heavy=False).regs_per_thread)


def occupancy_summary(block: int, regs: int | None, smem: int, device: str = "current") -> dict[str, Any]:
    """The ``simtviz occupancy --json`` dict.

    ``device``: ``"current"`` (the GPU's measured attributes) or a built-in compute capability
    such as ``"9.0"``. ``regs=None``: on a GPU the schedule kernel's own count, on a profile
    ``DEFAULT_PROFILE_REGS``.
    """
    if device == "current":
        profile = current_profile()
        if regs is None:
            regs = current_kernel_regs()
    else:
        profile = profile_for(device)
        if regs is None:
            regs = DEFAULT_PROFILE_REGS
    from simtviz.core.errors import BeyondDeviceLimits
    from simtviz.core.schedule.occupancy import input_problems, opt_in_note

    problems = input_problems(profile, block, regs, smem)
    if problems:
        raise BeyondDeviceLimits("; ".join(problems))
    summary = occupancy(profile, block, regs, smem).summary(device=profile_label(profile))
    note = opt_in_note(profile, smem, regs, block)
    if note:
        summary["opt_in_note"] = note
    return summary


@dataclass(frozen=True)
class GpuOccupancyFacts:
    """What the occupancy view needs from the GPU, read once on the worker (it owns CUDA)."""

    profile: DeviceProfile
    kernel_regs: int  # the schedule kernel's registers per thread
    heavy_regs: int  # the register-heavy variant's
    static_smem: int  # bytes of static shared memory of the schedule kernel (0)


def gpu_occupancy_facts() -> GpuOccupancyFacts:
    """The current GPU's attributes and the schedule kernels' registers (compiles both)."""
    from simtviz.backends.schedule.gpu import compiled_kernel

    profile = current_profile()
    plain = compiled_kernel(heavy=False)
    heavy = compiled_kernel(heavy=True)
    return GpuOccupancyFacts(
        profile, int(plain.regs_per_thread), int(heavy.regs_per_thread), int(plain.shared_mem_per_block)
    )


def driver_figure(block: int, smem: int, heavy: bool) -> int | None:
    """``cuOccupancyMaxActiveBlocksPerMultiprocessor`` for the schedule kernel (or its heavy
    variant) at ``block`` threads and ``smem`` bytes of dynamic shared memory; None if unknown."""
    from simtviz.backends.schedule.gpu import compiled_kernel, driver_blocks_per_sm

    if block < 1 or block > 1024:
        return 0
    return driver_blocks_per_sm(compiled_kernel(heavy=heavy), block, smem)
