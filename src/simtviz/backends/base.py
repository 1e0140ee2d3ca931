"""The small interface every backend offers, the policy that depends on its kind, and shared checks.

A backend runs experiments (``simtviz.backends.experiment``): ``run(experiment, request)``
checks the request against the backend's info, then hands it to the experiment's GPU or
simulator half. Capabilities (cancel, warm-up, copy to host, shutdown) are declared here with
defaults that do nothing, so callers never have to ask whether a backend has them.
"""

from __future__ import annotations

import sys
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, TypeVar, overload

from simtviz.core import estimates
from simtviz.core.errors import Cancelled, EmulatorUnsupported, LaunchRejected, LaunchTooLarge
from simtviz.core.launch import LaunchConfig
from simtviz.core.limits import DRIVER_INVALID_VALUE, DeviceLimits, validate
from simtviz.core.record import RecordRequest
from simtviz.core.recording import Recording
from simtviz.core.window import Window

if TYPE_CHECKING:
    from simtviz.backends.experiment import AnyExperiment, Experiment

Progress = Callable[[float], None]
Req = TypeVar("Req")
Res = TypeVar("Res")

__all__ = [
    "DEVICE_WORDS",
    "Backend",
    "BackendInfo",
    "BackendKind",
    "Progress",
    "WarmUpStep",
    "check_size",
    "simulated_rejection",
]


class BackendKind(StrEnum):
    """Where kernels run. A ``str`` enum: ``BackendKind.GPU == "gpu"``."""

    GPU = "gpu"
    SIM = "sim"  # numba's CUDA simulator, the reference on the CPU
    EMU = "emu"  # simtviz's lockstep CPU emulator (NumPy)


# Where a kind runs, in a sentence ("… would take 2 min on the CPU emulator").
DEVICE_WORDS: dict[BackendKind, str] = {
    BackendKind.GPU: "the GPU",
    BackendKind.SIM: "the CUDA simulator",
    BackendKind.EMU: "the CPU emulator",
}


@dataclass(frozen=True, slots=True)
class BackendInfo:
    """What a backend is, and the policy that follows from its kind (estimates, when to ask)."""

    kind: BackendKind
    backend_id: str  # "gpu:<device name>", "sim" or "emu" (as saved in records)
    label: str  # for the window: "NVIDIA H200 — compute 9.0, 132 SMs"
    limits: DeviceLimits

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", BackendKind(self.kind))

    @property
    def device_words(self) -> str:
        """Where it runs, in a sentence: "the GPU", "the CUDA simulator" or "the CPU emulator"."""
        return DEVICE_WORDS[self.kind]

    @property
    def speaks_for_driver(self) -> bool:
        """True where no driver checks launches (simulator, emulator): simtviz checks the limits
        and raises the driver's text itself (``simulated_rejection``)."""
        return self.kind is not BackendKind.GPU

    @property
    def max_threads_unasked(self) -> int:
        return estimates.max_threads_unasked(self.kind.value)

    def estimate_seconds(self, threads: int, experiment: str = "record") -> float:
        return estimates.estimate_seconds(self.kind.value, threads, experiment)

    def needs_confirmation(self, threads: int) -> bool:
        """True when ``threads`` threads would run too long here to start without asking."""
        return threads > self.max_threads_unasked


@dataclass(frozen=True, slots=True)
class WarmUpStep:
    """One piece of warm-up the first Run does not need (a colour field the map is not coloured
    by, the schedule kernels): run on the backend's worker after ready, at low priority."""

    name: str  # for the log and the benchmarks: "record: blockIdx.x, 2-D"
    run: Callable[[], object]


def zero_dimension_text(config: LaunchConfig) -> str | None:
    """numba's own ValueError text for a 0-sized grid or block, raised before the driver is called."""
    for what, dim in (("grid", config.grid), ("block", config.block)):
        if min(dim.as_tuple()) < 1:
            return f"LaunchConfig.{what} values must be >= 1 (got {dim})"
    return None


def simulated_rejection(config: LaunchConfig, limits: DeviceLimits) -> LaunchRejected | None:
    """What a GPU would raise for ``config``, for backends that check no limits themselves."""
    problems = validate(config, limits)
    if not problems:
        return None
    zero = zero_dimension_text(config)
    who = "simtviz, with the text a GPU gives (the CUDA simulator and the CPU emulator check no limits)"
    if zero:
        return LaunchRejected(zero, config, problems, "ValueError", source=who)
    return LaunchRejected(DRIVER_INVALID_VALUE, config, problems, "CUDAError", source=who)


def check_size(
    info: BackendInfo,
    threads: int,
    force: bool,
    experiment: str = "record",
    subject: str = "",
    smaller: str = "",
    detail: str = "",
) -> None:
    """Refuse a valid run that would take too long here unless ``force`` (CLI ``--force``);
    ``subject``, ``smaller`` and ``detail`` word it (``LaunchTooLarge``)."""
    if force or not info.needs_confirmation(threads):
        return
    raise LaunchTooLarge(
        threads,
        info.estimate_seconds(threads, experiment),
        info.max_threads_unasked,
        info.device_words,
        subject=subject,
        smaller=smaller,
        detail=detail,
    )


class Backend(ABC):
    """Runs experiments on one device (a GPU, the CUDA simulator, the CPU emulator) and reports
    their results."""

    kind: BackendKind
    # True when ``cancel()`` stops a run in progress (the simulator's child process can).
    can_cancel: bool = False
    # Where one-line notices go (a run that went to another backend, and why): the desktop app
    # sets its status bar here; None prints them on stderr, so none is ever lost.
    notice_handler: Callable[[str], None] | None = None
    # Set while an isolated run's child process works: ``cancel()`` kills it.
    _child_cancel: threading.Event | None = None

    def notice(self, line: str) -> None:
        """Tell the user ``line`` (one line): through ``notice_handler``, else on stderr."""
        if self.notice_handler is not None:
            self.notice_handler(line)
        else:
            print(f"simtviz: {line}", file=sys.stderr)  # stderr is line-buffered

    @abstractmethod
    def info(self) -> BackendInfo: ...

    def limits(self) -> DeviceLimits:
        return self.info().limits

    @overload
    def run(
        self, experiment: Experiment[Req, Res], request: Req, progress: Progress | None = None
    ) -> Res: ...

    @overload
    def run(self, experiment: str, request: Any, progress: Progress | None = None) -> Any: ...

    def run(self, experiment: AnyExperiment | str, request: Any, progress: Progress | None = None) -> Any:
        """Check ``request`` (raise before anything runs), then run ``experiment`` here, or in a
        child process of its own when it declares ``isolated = True``. Given the experiment
        itself (``VECADD``), mypy checks the request's type and knows the result's."""
        from simtviz.backends.experiment import is_isolated, resolve

        chosen = resolve(experiment)
        chosen.check(request, self.info())
        if is_isolated(chosen):
            return self.run_isolated(chosen, request, progress)
        return self.execute(chosen, request, progress)

    def run_isolated(self, experiment: AnyExperiment, request: Any, progress: Progress | None) -> Any:
        """An already checked request in a fresh child process of this backend's kind, with its
        time limit (``backends.isolated``); ``cancel()`` kills it. On the emulator, what the
        emulator cannot run goes to a simulator child after one line that says why (``notice``),
        checked against the simulator's own limits first."""
        from simtviz.backends.isolated import run_isolated

        cancel = threading.Event()
        self._child_cancel = cancel
        try:
            if self.kind is not BackendKind.EMU:
                return run_isolated(self.kind.value, experiment, request, progress, cancel)
            try:
                return run_isolated("emu", experiment, request, progress, cancel)
            except EmulatorUnsupported as exc:
                why = str(exc)
            from simtviz.backends.emu_backend import fallback_line
            from simtviz.backends.sim import sim_info

            self.notice(fallback_line(experiment.name, why))
            # The simulator's own limits: a launch quick on the emulator may be long there.
            experiment.check(request, sim_info())
            if cancel.is_set():
                raise Cancelled("run cancelled")
            return run_isolated("sim", experiment, request, progress, cancel)
        finally:
            if self._child_cancel is cancel:
                self._child_cancel = None

    def execute(self, experiment: AnyExperiment, request: Any, progress: Progress | None) -> Any:
        """Run an already checked request: the experiment's GPU or simulator half."""
        raise NotImplementedError(f"{type(self).__name__} runs no experiments")

    def record(
        self,
        config: LaunchConfig,
        window: Window | None = None,
        *,
        force: bool = False,
        progress: Progress | None = None,
    ) -> Recording:
        """Launch the recording kernel once; raise LaunchRejected, LaunchTooLarge or KernelFailed."""
        recording: Recording = self.run("record", RecordRequest(config, window, force), progress)
        return recording

    # Capabilities, with defaults for a backend that has nothing to do for them.
    def cancel(self) -> None:
        """Stop the run in progress, if this backend can (``can_cancel``; an isolated run's child
        always can). A backend that overrides this calls ``cancel_child()`` too."""
        self.cancel_child()

    def cancel_child(self) -> None:
        """Kill the child process of the isolated run in progress, if any."""
        cancel = self._child_cancel
        if cancel is not None:
            cancel.set()

    def warm_up(self) -> None:
        """Prepare ahead of the first run (start a process, compile), so that run is not slow."""
        return None

    def warm_ups_after_ready(self) -> list[WarmUpStep]:
        """What ``warm_up`` left for after ready (the start waits for none of it), in order; the
        session runs each on the worker at low priority."""
        return []

    def to_host(self, recording: Recording) -> Recording:
        """``recording`` with every field in host memory (a host recording as it is)."""
        return recording

    def shutdown(self) -> None:
        """Release what the backend holds (a child process, say); it must never raise."""
        return None
