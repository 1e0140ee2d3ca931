"""Backends: ``gpu`` (numba-cuda + CuPy), ``emu`` (simtviz's lockstep CPU emulator, NumPy) and
``sim`` (numba's CUDA simulator + NumPy), and the experiments they run (``experiment``:
``record``, ``vecadd``, and any registered later).

Chosen once per process, before numba is imported (see ``selection``). Import the backend
modules only through ``create_backend`` so that choice comes first.
"""

from __future__ import annotations

from simtviz.backends.base import Backend, BackendInfo, BackendKind
from simtviz.backends.selection import (
    BACKEND_CHOICES,
    BackendChoiceError,
    activate,
    gpu_probe,
    requested_backend,
    resolve_backend,
)


def create_backend(flag: str | None = None, *, in_process: bool = True) -> Backend:
    """The backend for ``flag`` / ``$SIMTVIZ_BACKEND`` / auto, ready to record.

    ``in_process=False`` runs simulator launches in a child process (the desktop app). The
    emulator always runs in this process (NumPy only); what it cannot run goes to a simulator
    child. Raises BackendUnavailable when ``gpu`` is asked for and cannot start.
    """
    kind = resolve_backend(flag)
    reason = ""
    if kind != "gpu" and requested_backend(flag) == "auto":
        reason = gpu_probe()[1]
    if kind == "gpu":
        from simtviz.backends.gpu import GpuBackend

        return GpuBackend()
    if kind == "emu":
        from simtviz.backends.emu_backend import EmuBackend

        return EmuBackend(reason)
    if in_process:
        activate("sim")
        from simtviz.backends.sim import SimBackend

        return SimBackend(reason)
    from simtviz.backends.sim_process import SimProcessBackend

    return SimProcessBackend(reason)


def child_backend(flag: str | None = None) -> Backend:
    """The backend for ``flag`` / ``$SIMTVIZ_BACKEND`` / auto, for isolated experiments only
    (``trace``, ``exercise``): it starts nothing here, each run gets a child process of its own
    (``backends.isolated``). A GPU is described without opening a context."""
    from simtviz.backends.isolated import ChildBackend

    return ChildBackend(info_for(resolve_backend(flag)))


def info_for(kind: str) -> BackendInfo:
    """What backend ``kind`` is, without starting it (no CUDA context, no child process). A GPU is
    described generically: its limits are the driver's business."""
    if kind == "gpu":
        from simtviz.core.limits import DeviceLimits

        return BackendInfo(BackendKind.GPU, "gpu", "GPU", DeviceLimits())
    if kind == "emu":
        from simtviz.backends.emu_backend import emu_info

        return emu_info()
    from simtviz.backends.sim import sim_info

    return sim_info()


__all__ = [
    "BACKEND_CHOICES",
    "Backend",
    "BackendChoiceError",
    "BackendInfo",
    "BackendKind",
    "child_backend",
    "create_backend",
    "gpu_probe",
    "info_for",
    "requested_backend",
    "resolve_backend",
]
