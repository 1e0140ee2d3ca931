"""A test-only isolated experiment: no numba, a child process per run that can be made to sleep,
to refuse the emulator, or to ask before a long run. The child imports this module by name, so
its folder (tests/) must be on the child's PYTHONPATH (``on_child_path``)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

import pytest

from repo_paths import TESTS
from simtviz.backends.experiment import register
from simtviz.core.errors import EmulatorUnsupported, LaunchTooLarge

NAME = "test-isolated-toy"


@dataclass(frozen=True)
class ToyRequest:
    seconds: float = 0.0  # how long the run sleeps in its child
    time_limit_s: float = 30.0
    emulate: bool = True  # False: the emulator half says it cannot run it
    threads: int = 0  # over 1,000 without force: LaunchTooLarge (estimated 1 ms a thread)
    force: bool = False
    env_number: str = ""  # the run returns this environment variable's number in place of its pid
    say: str = ""  # printed by the run (as a student's print would be)


class ToyExperiment:
    name = NAME
    isolated = True

    def check(self, request: ToyRequest, info: Any) -> None:
        if request.threads > 1000 and not request.force:
            raise LaunchTooLarge(request.threads, request.threads / 1000, 1000, info.device_words)

    def estimate_s(self, request: ToyRequest, info: Any) -> float | None:
        return None

    def _run(self, kind: str, request: ToyRequest, progress: Any) -> tuple[str, int]:
        if progress is not None:
            progress(0.5)
        if request.say:
            print(request.say)
        time.sleep(request.seconds)
        if request.env_number:
            return kind, int(os.environ.get(request.env_number, "0"))
        return kind, os.getpid()

    def run_gpu(self, backend: Any, request: ToyRequest, progress: Any) -> tuple[str, int]:
        return self._run("gpu", request, progress)

    def run_sim(self, request: ToyRequest, info: Any, progress: Any) -> tuple[str, int]:
        return self._run("sim", request, progress)

    def run_emu(self, request: ToyRequest, info: Any, progress: Any) -> tuple[str, int]:
        if not request.emulate:
            raise EmulatorUnsupported("cuda.toy", 3)
        return self._run("emu", request, progress)


TOY = register(ToyExperiment())


def on_child_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let the children import this module (``isolated_child`` loads it by name)."""
    path = (str(TESTS), os.environ.get("PYTHONPATH"))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in path if p))
