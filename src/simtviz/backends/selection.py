"""Choosing the backend once per process, before numba is imported.

numba reads ``NUMBA_ENABLE_CUDASIM`` when it is first imported, so the choice between a real GPU
and the CUDA simulator has to be made before anything imports numba. ``auto`` asks the CUDA
driver directly (through ctypes, which costs milliseconds and imports nothing) whether it sees
a GPU; that is the answer ``numba.cuda.is_available()`` would give. Without one, ``auto`` means
``emu``, simtviz's lockstep CPU emulator (NumPy only): activating it imports no numba and leaves
``NUMBA_ENABLE_CUDASIM`` alone, so numba's simulator can still start in a child process for a
kernel the emulator cannot run.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import importlib.util
import os
import sys
from functools import cache

from simtviz.core.errors import BackendChoiceError

__all__ = [
    "BACKEND_CHOICES",
    "ENV_VAR",
    "NO_GPU_BACKEND",
    "BackendChoiceError",
    "activate",
    "gpu_probe",
    "resolve_backend",
]

BACKEND_CHOICES = ("auto", "gpu", "emu", "sim")
# What ``auto`` means without a GPU.
NO_GPU_BACKEND = "emu"
ENV_VAR = "SIMTVIZ_BACKEND"


def requested_backend(flag: str | None = None) -> str:
    """The backend asked for: the flag, else ``$SIMTVIZ_BACKEND``, else ``auto``."""
    value = (flag or os.environ.get(ENV_VAR) or "auto").strip().lower()
    if value not in BACKEND_CHOICES:
        raise BackendChoiceError(f"unknown backend {value!r}: choose one of {', '.join(BACKEND_CHOICES)}")
    return value


@cache
def gpu_probe() -> tuple[bool, str]:
    """(found, why): whether the CUDA driver reports at least one GPU."""
    names = ["libcuda.so.1", "libcuda.so", "nvcuda.dll"]
    found = ctypes.util.find_library("cuda")
    if found:
        names.insert(0, found)
    lib = None
    for name in names:
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError:
            continue
    if lib is None:
        return False, "no NVIDIA driver (libcuda) found"
    try:
        if lib.cuInit(0) != 0:
            return False, "the NVIDIA driver found no usable GPU (cuInit failed)"
        count = ctypes.c_int()
        if lib.cuDeviceGetCount(ctypes.byref(count)) != 0 or count.value < 1:
            return False, "the NVIDIA driver reports no GPU"
    except (AttributeError, OSError) as exc:  # a broken or partial driver install
        return False, f"the NVIDIA driver could not be queried ({exc})"
    return True, f"{count.value} NVIDIA GPU(s) found"


def resolve_backend(flag: str | None = None) -> str:
    """``gpu``, ``emu`` or ``sim``: what ``flag`` / ``$SIMTVIZ_BACKEND`` / ``auto`` means here."""
    requested = requested_backend(flag)
    if requested != "auto":
        return requested
    return "gpu" if gpu_probe()[0] else NO_GPU_BACKEND


def numba_is_simulated() -> bool | None:
    """True/False once numba is imported (simulator or not), None before."""
    if "numba" not in sys.modules:
        return None
    from numba import config

    return bool(config.ENABLE_CUDASIM)


def cuda_bindings_installed() -> bool:
    """True when NVIDIA's ``cuda-bindings`` are importable (numba-cuda's CUDA extra brings them)."""
    try:
        return importlib.util.find_spec("cuda.bindings") is not None
    except (ImportError, ValueError):  # no ``cuda`` package at all
        return False


def activate(kind: str) -> None:
    """Set up this process for backend ``kind`` (``gpu``, ``emu`` or ``sim``) before numba is imported.

    ``emu`` needs nothing: the emulator runs on NumPy, and numba (if ever imported here) keeps
    whatever this process's environment says."""
    if kind not in ("gpu", "emu", "sim"):
        raise BackendChoiceError(f"activate() takes 'gpu', 'emu' or 'sim', not {kind!r}")
    if kind == "emu":
        return
    simulated = numba_is_simulated()
    want_sim = kind == "sim"
    if simulated is None:
        if want_sim:
            os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
            if not cuda_bindings_installed():
                # numba-cuda refuses to import without NVIDIA's bindings, even to simulate, unless
                # told to use its ctypes ones (macOS: no CUDA wheels; numba-cuda 0.20.1 there).
                os.environ.setdefault("NUMBA_CUDA_USE_NVIDIA_BINDING", "0")
        else:
            os.environ.pop("NUMBA_ENABLE_CUDASIM", None)
            # "Grid size 1 will likely result in GPU under-utilization": simtviz and the chapter
            # launch small grids on purpose, and the advice would only clutter a student's terminal.
            os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")
        return
    if simulated != want_sim:
        raise BackendChoiceError(
            f"this process already imported numba {'with' if simulated else 'without'} the CUDA "
            f"simulator, so it cannot switch to the {kind} backend; start a new process "
            f"with --backend {kind}"
        )
