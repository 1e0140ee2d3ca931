"""The ``lesson`` experiment: one probe of ``simtviz.backends.lesson``, run where every run runs.

On a GPU the worker thread (which owns CUDA) calls ``run_gpu``; on the simulator the backend's
child process imports this module and calls ``run_sim``, so a probe never runs numba in the app's
own process. The result is the probe's plain dict (it pickles); a probe reports its own failure in
it, so nothing here needs a dialog.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from simtviz.backends.experiment import Experiment, register

if TYPE_CHECKING:
    from simtviz.backends.base import Backend, BackendInfo, Progress
    from simtviz.backends.lesson.common import Result


@dataclass(frozen=True)
class LessonRequest:
    """Run probe ``probe`` with keyword ``params`` (see ``PROBES``)."""

    probe: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        from simtviz.backends.lesson import PROBES

        if self.probe not in PROBES:
            raise KeyError(f"no lesson probe {self.probe!r}; there are: {', '.join(PROBES)}")
        object.__setattr__(self, "params", dict(self.params))  # a plain dict pickles


class LessonExperiment:
    name = "lesson"

    def check(self, request: LessonRequest, info: BackendInfo) -> None:
        # Every probe is small and fixed (at most 4,096 simulated threads): nothing to refuse.
        return None

    def estimate_s(self, request: LessonRequest, info: BackendInfo) -> float | None:
        return None

    def run_gpu(self, backend: Backend, request: LessonRequest, progress: Progress | None) -> Result:
        from simtviz.backends.lesson import run_probe

        return run_probe(request.probe, **request.params)

    def run_sim(self, request: LessonRequest, info: BackendInfo, progress: Progress | None) -> Result:
        from simtviz.backends.lesson import run_probe

        return run_probe(request.probe, **request.params)


LESSON: Experiment[LessonRequest, Result] = register(LessonExperiment())
