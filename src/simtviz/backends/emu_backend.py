"""Backend ``emu``: simtviz's lockstep CPU emulator, in this process, with numba's simulator behind it.

The emulator (``simtviz.emu``) runs a kernel's own Python source over NumPy arrays, so it needs
no child process and imports no numba: ``execute`` calls the experiment's ``run_emu(request,
info, progress)`` on the calling thread (the app's worker). Cancel is cooperative: once
``cancel()`` was called, the next progress report raises ``Cancelled``.

When an experiment has no ``run_emu``, or its ``run_emu`` raises ``EmulatorUnsupported`` (a
construct the emulator cannot run), the same request runs on numba's CUDA simulator in a child
process (``SimProcessBackend``, started at the first such run), after one line that says why
(``Backend.notice``: stderr on the command line, the status bar in the window). Never silently:
the result then also says it came from the simulator (its ``backend`` is ``sim``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from simtviz.backends.base import DEVICE_WORDS, Backend, BackendInfo, BackendKind, Progress
from simtviz.backends.experiment import AnyExperiment
from simtviz.backends.sim import SIM_LIMITS
from simtviz.core.errors import Cancelled, EmulatorUnsupported

EMU_LABEL = "CPU emulator (lockstep, NumPy)"
# A GPU-like profile, as the simulator's: the emulator checks the limits itself, with the
# driver's text (``base.simulated_rejection``).
EMU_LIMITS = replace(SIM_LIMITS, name="CPU emulator (limits of every GPU since compute capability 5.0)")
SIMULATOR_WORDS = DEVICE_WORDS[BackendKind.SIM]


def emu_info(reason: str = "") -> BackendInfo:
    """The emulator's info; ``reason`` says why it was chosen (``auto`` without a GPU)."""
    label = EMU_LABEL if not reason else f"{EMU_LABEL} — {reason}"
    return BackendInfo(BackendKind.EMU, "emu", label, EMU_LIMITS)


def fallback_line(experiment: str, why: str) -> str:
    """The one line a user reads when a run leaves the emulator for the simulator."""
    what = "the traced kernel" if experiment == "trace" else "it"
    return f"{why}; running {what} on {SIMULATOR_WORDS} instead (slower)"


def why_not_emulated(experiment: AnyExperiment) -> str | None:
    """Why ``experiment`` cannot start on the emulator at all (no ``run_emu``), or None."""
    if callable(getattr(experiment, "run_emu", None)):
        return None
    return f"{DEVICE_WORDS[BackendKind.EMU]} cannot run {experiment.name!r} yet"


class EmuBackend(Backend):
    """Runs experiments' ``run_emu`` here; what the emulator cannot run goes to the simulator."""

    kind = BackendKind.EMU
    can_cancel = True

    def __init__(self, reason: str = "", simulator: Callable[[], Backend] | None = None) -> None:
        self._info = emu_info(reason)
        self._cancel = threading.Event()
        self._make_simulator = simulator or _simulator_process
        self._simulator: Backend | None = None
        self._lock = threading.Lock()

    def info(self) -> BackendInfo:
        return self._info

    @property
    def simulator(self) -> Backend | None:
        """The simulator that runs what the emulator cannot, once one was needed."""
        return self._simulator

    def execute(self, experiment: AnyExperiment, request: Any, progress: Progress | None) -> Any:
        self._cancel.clear()
        why = why_not_emulated(experiment)
        if why is None:
            try:
                result = experiment.run_emu(request, self._info, self._checked(progress))  # type: ignore[attr-defined]
            except EmulatorUnsupported as exc:
                why = str(exc)
            else:
                if progress:
                    progress(1.0)
                return result
        return self._on_simulator(experiment, request, progress, why)

    def _checked(self, progress: Progress | None) -> Progress:
        """``progress`` that raises ``Cancelled`` once ``cancel()`` was called."""

        def report(fraction: float) -> None:
            if self._cancel.is_set():
                raise Cancelled("run cancelled")
            if progress:
                progress(fraction)

        return report

    def _on_simulator(
        self, experiment: AnyExperiment, request: Any, progress: Progress | None, why: str
    ) -> Any:
        self.notice(fallback_line(experiment.name, why))
        with self._lock:
            if self._simulator is None:
                self._simulator = self._make_simulator()
            simulator = self._simulator
        # The simulator's own limits: a run that is quick here may need asking there.
        experiment.check(request, simulator.info())
        if self._cancel.is_set():
            raise Cancelled("run cancelled")
        return simulator.execute(experiment, request, progress)

    def cancel(self) -> None:
        self._cancel.set()
        self.cancel_child()
        if self._simulator is not None:
            self._simulator.cancel()

    def shutdown(self) -> None:
        self._cancel.set()
        simulator, self._simulator = self._simulator, None
        if simulator is not None:
            simulator.shutdown()


def _simulator_process() -> Backend:
    from simtviz.backends.sim_process import SimProcessBackend

    return SimProcessBackend(f"for what {DEVICE_WORDS[BackendKind.EMU]} cannot run")
