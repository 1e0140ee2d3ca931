"""Isolated experiments through ``Backend.run`` on every kind: a fresh child process per run that
loads the experiment by name, the time limit and Cancel killing it, the emulator's way to the
simulator, and a backend that starts nothing in the calling process."""

from __future__ import annotations

import os
import threading
import time

import pytest

from isolated_toy import NAME, ToyRequest, on_child_path
from simtviz.backends import child_backend, info_for
from simtviz.backends.isolated import ChildBackend
from simtviz.core.errors import Cancelled, LaunchTooLarge, TimeLimitReached


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.fixture(autouse=True)
def _children_find_the_toy(monkeypatch: pytest.MonkeyPatch) -> None:
    on_child_path(monkeypatch)


@pytest.mark.parametrize("kind", ["sim", "emu"])
def test_each_run_is_a_fresh_child_process_of_the_backends_kind(kind: str) -> None:
    backend = ChildBackend(info_for(kind))
    seen: list[float] = []
    first = backend.run(NAME, ToyRequest(), seen.append)
    second = backend.run(NAME, ToyRequest())
    assert first[0] == second[0] == kind
    assert len({first[1], second[1], os.getpid()}) == 3  # two children, neither this process
    assert seen[0] == 0.5  # the child's progress crossed back


def test_the_time_limit_kills_the_child_and_says_so() -> None:
    pids: list[int] = []
    from simtviz.backends import isolated

    real = isolated.IsolatedChild.run

    def noting(self: isolated.IsolatedChild, *args: object, **kwargs: object) -> object:
        pids.append(self.pid)
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    isolated.IsolatedChild.run = noting  # type: ignore[method-assign]
    try:
        started = time.monotonic()
        with pytest.raises(TimeLimitReached) as info:
            child_backend("sim").run(NAME, ToyRequest(seconds=60, time_limit_s=0.5))
    finally:
        isolated.IsolatedChild.run = real  # type: ignore[method-assign]
    assert time.monotonic() - started < 20  # 0.5 s once ready, not the 60 s sleep
    assert info.value.seconds == 0.5
    assert len(pids) == 1 and gone(pids[0])


def test_cancel_from_another_thread_kills_the_child() -> None:
    backend = child_backend("sim")
    threading.Timer(1.0, backend.cancel).start()
    started = time.monotonic()
    with pytest.raises(Cancelled):
        backend.run(NAME, ToyRequest(seconds=60, time_limit_s=120))
    assert time.monotonic() - started < 30


def test_what_the_emulator_cannot_run_goes_to_a_simulator_child_after_one_line() -> None:
    backend = ChildBackend(info_for("emu"))
    lines: list[str] = []
    backend.notice_handler = lines.append
    kind, _pid = backend.run(NAME, ToyRequest(emulate=False))
    assert kind == "sim"
    assert lines == [
        "line 3: the CPU emulator cannot run cuda.toy; running it on the CUDA simulator instead (slower)"
    ]


def test_the_check_refuses_before_any_child_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    from simtviz.backends import isolated

    monkeypatch.setattr(isolated, "IsolatedChild", None)  # a child started now would fail loudly
    with pytest.raises(LaunchTooLarge):
        child_backend("sim").run(NAME, ToyRequest(threads=2000))


def test_a_child_backend_runs_isolated_experiments_only() -> None:
    # It opens no CUDA context (a GPU is described generically), so it cannot run in process.
    from simtviz.core.launch import LaunchConfig
    from simtviz.core.record import RecordRequest

    backend = ChildBackend(info_for("gpu"))
    assert backend.info().device_words == "the GPU" and backend.kind == "gpu"
    with pytest.raises(NotImplementedError, match="'record' does not run isolated"):
        backend.run("record", RecordRequest(LaunchConfig.of(1, 32)))


def test_a_child_started_for_its_request_gets_the_environment_the_experiment_asks_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The trace asks for no GPU-compile checker ahead when its verdict is cached (gpu_compile);
    # a child started ahead (prewarm), before any request is known, is asked for nothing.
    from isolated_toy import TOY
    from simtviz.backends import isolated

    asked: list[tuple[str, ToyRequest]] = []

    def child_env(kind: str, request: ToyRequest) -> dict[str, str]:
        asked.append((kind, request))
        return {"SIMTVIZ_TOY_NUMBER": "7"}

    monkeypatch.setattr(TOY, "child_env", child_env, raising=False)
    request = ToyRequest(env_number="SIMTVIZ_TOY_NUMBER")
    assert isolated.run_isolated("emu", NAME, request) == ("emu", 7)
    assert asked == [("emu", request)]
    ahead = isolated.IsolatedChild("emu", NAME)
    assert isolated.run_isolated("emu", NAME, request, child=ahead) == ("emu", 0)
    assert len(asked) == 1
