"""Theoretical occupancy for the CLI and the occupancy view: a built-in profile or the current GPU."""

from __future__ import annotations

from typing import Any

from simtviz.core.errors import BackendUnavailable, SimtvizError
from simtviz.core.occupancy import (
    DeviceProfile,
    occupancy,
    profile_for,
    profile_from_attributes,
    read_device_attributes,
)

# Registers assumed when none are given for a built-in profile: a small kernel's count (the
# recording kernels use 8-12; the calculator's own default example uses 32).
DEFAULT_PROFILE_REGS = 32


class NothingToMeasure(SimtvizError):
    """The schedule needs SM ids and a clock; this backend has neither (CLI exit status 5)."""


def check_can_measure(backend_kind: str) -> None:
    """Raise ``NothingToMeasure`` on the simulator, before anything is launched."""
    if str(backend_kind) != "gpu":
        raise NothingToMeasure(
            "the CUDA simulator runs blocks one after another on the CPU: it has no SMs and no "
            "GPU clock, so there is no schedule to measure (the occupancy arithmetic still works: "
            "pick a device profile)"
        )


def current_profile() -> DeviceProfile:
    """The current GPU's profile, read from its attributes (needs the GPU backend active)."""
    from simtviz.backends.selection import activate

    activate("gpu")
    from numba import cuda

    if not cuda.is_available():
        raise BackendUnavailable("numba-cuda finds no usable NVIDIA GPU: name a compute capability instead")
    device = cuda.get_current_device()
    name = device.name.decode() if isinstance(device.name, bytes) else str(device.name)
    return profile_from_attributes(read_device_attributes(device), name)


def current_kernel_regs() -> int:
    """Registers per thread of the plain schedule kernel on the current GPU."""
    from simtviz.backends.schedule.gpu import compiled_kernel
    from simtviz.core.schedule import ScheduleRequest

    return int(compiled_kernel(ScheduleRequest(1, 1)).regs_per_thread)


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
        name = profile.name
    else:
        profile = profile_for(device)
        if regs is None:
            regs = DEFAULT_PROFILE_REGS
        name = f"{profile.name} (cc {profile.cc_text} profile, computed)"
    return occupancy(profile, block, regs, smem).summary(device=name)
