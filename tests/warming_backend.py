"""A backend whose warm-up leaves steps for after ready, as the GPU backend does (issue 21: start →
ready ≤ 2.5 s); it notes what happened, in order, from whichever thread."""

from __future__ import annotations

import time
from typing import Any

from simtviz.backends.base import Backend, BackendInfo, BackendKind, Progress, WarmUpStep
from simtviz.core.limits import DeviceLimits


class WarmingBackend(Backend):
    kind = BackendKind.SIM

    def __init__(self, steps: int = 3, step_s: float = 0.02, failing: int | None = None) -> None:
        self.events: list[str] = []  # list.append is atomic: the worker and the GUI both note
        self._steps = steps
        self._step_s = step_s
        self._failing = failing  # the step that raises, if any
        self._info = BackendInfo("sim", "sim", "Warming fake — for tests", DeviceLimits(name="Warming fake"))

    def info(self) -> BackendInfo:
        return self._info

    def warm_up(self) -> None:
        self.events.append("warm up")

    def warm_ups_after_ready(self) -> list[WarmUpStep]:
        return [WarmUpStep(f"step {i}", self._step(i)) for i in range(1, self._steps + 1)]

    def _step(self, i: int) -> Any:
        def run() -> None:
            time.sleep(self._step_s)
            if i == self._failing:
                raise RuntimeError(f"step {i} failed")
            self.events.append(f"step {i}")

        return run

    def run(self, experiment: Any, request: Any, progress: Progress | None = None) -> Any:
        self.events.append(f"run {experiment}")
        return request
