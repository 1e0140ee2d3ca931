"""Backends for desktop-app tests that need a GPU's behaviour on a machine without one.

``FakeGpuBackend`` records from the oracle into ``DeviceArray`` fields with a non-NumPy array
module, so the app takes its device path (images and threads fetched in worker jobs). A
DeviceArray notes every use on the GUI thread and every host copy it makes, so tests can prove
that the GUI thread never touches device records and that only the shown image crosses.
"""

from __future__ import annotations

import threading
import types
from typing import Any

import numpy as np

from simtviz.backends.base import Backend, BackendInfo, Progress
from simtviz.backends.experiment import AnyExperiment
from simtviz.core.launch import LaunchConfig
from simtviz.core.limits import DeviceLimits
from simtviz.core.oracle import RECORD_FIELDS, expected_field, verify
from simtviz.core.recording import Recording
from simtviz.core.window import Window


class DeviceLog:
    def __init__(self) -> None:
        self.gui_thread_uses: list[str] = []
        self.copied_elements: list[int] = []

    def reset(self) -> None:
        self.gui_thread_uses.clear()
        self.copied_elements.clear()


LOG = DeviceLog()


def _on_gui_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


class DeviceArray(np.ndarray):
    """A NumPy array playing a CuPy one: ``.get()`` copies to the host."""

    def get(self) -> np.ndarray:
        if _on_gui_thread():
            LOG.gui_thread_uses.append(f"get() of {self.shape}")
        LOG.copied_elements.append(self.size)
        return np.array(self.view(np.ndarray))

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if _on_gui_thread():
            LOG.gui_thread_uses.append(f"{ufunc.__name__} on the GUI thread")
        args = [i.view(np.ndarray) if isinstance(i, DeviceArray) else i for i in inputs]
        out = getattr(ufunc, method)(*args, **kwargs)
        return out.view(DeviceArray) if isinstance(out, np.ndarray) else out


def device(a: np.ndarray) -> DeviceArray:
    return np.ascontiguousarray(a).view(DeviceArray)


def _make_xp() -> types.ModuleType:
    xp = types.ModuleType("fakecupy")
    xp.int32, xp.int64, xp.uint8 = np.int32, np.int64, np.uint8  # type: ignore[attr-defined]
    xp.ascontiguousarray = device  # type: ignore[attr-defined]
    xp.full = lambda *a, **k: device(np.full(*a, **k))  # type: ignore[attr-defined]
    xp.unique = lambda a, **k: tuple(device(v) for v in np.unique(a.view(np.ndarray), **k))  # type: ignore[attr-defined]
    return xp


FAKE_XP = _make_xp()


class FakeGpuBackend(Backend):
    """Records what the oracle says into device arrays; ``fail`` (an exception) is raised by a run."""

    kind = "gpu"

    def __init__(self, fail: BaseException | None = None) -> None:
        limits = DeviceLimits(name="Fake GPU")
        self._info = BackendInfo("gpu", "gpu:Fake GPU", "Fake GPU — for tests", limits)
        self.fail = fail
        self.records = 0

    def info(self) -> BackendInfo:
        return self._info

    def execute(self, experiment: AnyExperiment, request: Any, progress: Progress | None) -> Any:
        if experiment.name != "record":
            raise NotImplementedError(f"the fake backends run only 'record', not {experiment.name!r}")
        if self.fail is not None:
            raise self.fail
        return self._record(request.config, request.chosen_window, progress)

    def _record(self, config: LaunchConfig, window: Window, progress: Progress | None) -> Recording:
        host: dict[str, np.ndarray] = {}
        for name, (_shape, dtype) in RECORD_FIELDS.items():
            if name == "smid":
                host[name] = (np.arange(window.threads) // 256 % 132).astype(dtype)
            elif name == "t_ns":
                host[name] = (np.arange(window.threads) * 32).astype(dtype)
            else:
                host[name] = np.asarray(expected_field(name, config, window)).astype(dtype)
        self.records += 1
        if progress:
            progress(1.0)
        return Recording(
            config,
            window,
            {k: device(v) for k, v in host.items()},
            self._info.backend_id,
            verify(host, config, window),
            {"wall_ms": 1.0, "kernel_ms": 0.5, "verify_ms": 0.1, "copy_ms": None},
            xp=FAKE_XP,
            to_host=lambda a: a.get(),
        )

    def to_host(self, recording: Recording) -> Recording:
        fields = {k: v.get() for k, v in recording.fields.items()}
        return Recording(
            recording.config, recording.window, fields, recording.backend, recording.verification
        )


class FakeHostBackend(FakeGpuBackend):
    """The same records, handed back on the host (NumPy), as the simulator does."""

    kind = "sim"

    def __init__(self, fail: BaseException | None = None) -> None:
        super().__init__(fail)
        self._info = BackendInfo(
            "sim", "sim", "Fake simulator — for tests", DeviceLimits(name="Fake simulator")
        )

    def _record(self, config: LaunchConfig, window: Window, progress: Progress | None) -> Recording:
        return self.to_host(super()._record(config, window, progress))


class FakeVecaddBackend(FakeHostBackend):
    """A simulator that runs the vector add at once: the real ``vecadd`` check refuses a long run
    unforced (past 131,072 simulated threads), and ``requests`` notes every run that got past it."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[Any] = []

    def execute(self, experiment: AnyExperiment, request: Any, progress: Progress | None) -> Any:
        if experiment.name != "vecadd":
            return super().execute(experiment, request, progress)
        from simtviz.core.vecadd import VecaddResult, grid_for

        self.requests.append(request)
        grid = grid_for(request.n, request.block)
        return VecaddResult("sim", request.n, request.block, grid, verified=True, max_abs_err=0.0)
