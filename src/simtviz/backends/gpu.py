"""Backend ``gpu``: numba-cuda launches kernels on CuPy arrays; records stay on the device.

The steps every GPU experiment shares (launch-or-reject, synchronize-or-fail, …) live in
``cuda_tools``; what to compile ahead of the first Run is each experiment's ``warm_up_gpu`` hook.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.machinery
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

from simtviz.backends import experiment as experiments
from simtviz.backends.base import Backend, BackendInfo, BackendKind, Progress, WarmUpStep
from simtviz.backends.cuda_tools import device_limits, to_host_pinned
from simtviz.backends.experiment import AnyExperiment
from simtviz.backends.selection import activate
from simtviz.core.errors import BackendUnavailable
from simtviz.core.recording import Recording


def _start_cuda_early(cupy: Any) -> None:
    """Create the device's primary context now, before numba is imported: the driver's start
    (≈0.3 s on the H200) runs without the GIL, so the window's imports and layout go on beside
    it, where numba's import would have held the GIL. numba then finds that context ready.
    Without a usable GPU this does nothing: numba's own check says why, in plain words."""
    with contextlib.suppress(Exception):
        cupy.cuda.runtime.free(0)  # cudaFree(0): the documented way to start the runtime


class _RefuseOnThisThread(importlib.abc.MetaPathFinder):
    """Answers "not installed" for ``prefix`` and its submodules, on one thread only."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.thread = threading.get_ident()

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if threading.get_ident() == self.thread and (
            fullname == self.prefix or fullname.startswith(self.prefix + ".")
        ):
            raise ModuleNotFoundError(f"{fullname} is not imported here", name=fullname)
        return None


def import_without(module: str, refused: str) -> None:
    """Import ``module`` with ``refused`` (and its submodules) reported missing while it runs,
    on this thread; other threads' imports, and a later ``import refused``, are unaffected."""
    finder = _RefuseOnThisThread(refused)
    sys.meta_path.insert(0, finder)
    try:
        importlib.import_module(module)
    finally:
        sys.meta_path.remove(finder)


def _load_array_functions_without_blas() -> None:
    """numba-cuda's NumPy functions for kernels probe for scipy's BLAS when first loaded (at
    the first compile or cache load): 0.45 s on the H200 where scipy is installed, none where it
    is not. A kernel never calls BLAS (the probe only picks ``np.dot`` for the inner products of
    ``np.correlate``/``np.convolve``, and CUDA kernels have no ``np.dot``), so the probe is
    answered "no BLAS" without importing scipy."""
    with contextlib.suppress(Exception):  # a numba-cuda without that module: nothing to skip
        import_without("numba.cuda.np.arraymath", "scipy.linalg")


class GpuBackend(Backend):
    kind = BackendKind.GPU

    def __init__(self) -> None:
        activate("gpu")
        try:
            import cupy

            _start_cuda_early(cupy)
            from numba import cuda
        except Exception as exc:  # ImportError, or CuPy failing to find its CUDA libraries
            raise BackendUnavailable(f"the GPU backend cannot start: {exc}") from exc
        if not cuda.is_available():
            raise BackendUnavailable("numba-cuda finds no usable NVIDIA GPU on this machine")
        _load_array_functions_without_blas()
        self.cp: Any = cupy
        self.cuda: Any = cuda
        self._after_ready: list[WarmUpStep] = []
        limits = device_limits(cuda.get_current_device())
        cc = limits.compute_capability or (0, 0)
        self._info = BackendInfo(
            BackendKind.GPU,
            f"gpu:{limits.name}",
            f"{limits.name} — compute {cc[0]}.{cc[1]}, {limits.multiprocessors} SMs",
            limits,
        )

    def info(self) -> BackendInfo:
        return self._info

    def warm_up(self) -> None:
        """Compile, before Run is enabled, what the first Run uses, through each experiment's
        ``warm_up_gpu(backend)`` hook (the record's Run → map in the default colouring); each
        hook returns the steps that can wait (the other colour fields, the schedule kernels),
        kept for ``warm_ups_after_ready``. The session calls this on the worker at start."""
        after: list[WarmUpStep] = []
        for name in experiments.WARM_UP_GPU:
            hook = getattr(experiments.get(name), "warm_up_gpu", None)
            if callable(hook):
                after.extend(hook(self) or ())
        self._after_ready = after

    def warm_ups_after_ready(self) -> list[WarmUpStep]:
        """The hooks' deferred steps (run on the worker: this process's one owner of CUDA)."""
        return list(getattr(self, "_after_ready", ()))

    def execute(self, experiment: AnyExperiment, request: Any, progress: Progress | None) -> Any:
        return experiment.run_gpu(self, request, progress)

    def to_host(self, recording: Recording) -> Recording:
        """A copy of ``recording`` with every field in (pinned) host memory."""
        t0 = time.perf_counter()
        fields = {name: to_host_pinned(value) for name, value in recording.fields.items()}
        timings = dict(recording.timings_ms, copy_ms=(time.perf_counter() - t0) * 1000)
        return Recording(
            recording.config,
            recording.window,
            fields,
            recording.backend,
            recording.verification,
            timings,
        )
