"""The app's side of the simulator child, worked by hand: how often the progress bar moves, how a
run ends when the app closes under it, which stale folders go at start (and which processes are
left alone), the child's simtviz, and the spawn path of platforms without fd passing.

The progress and closing tests drive ``execute`` with a child and a clock written here, so each
moment is exact; the others start real processes, as the app does.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import simtviz
from simtviz.backends import experiment, sim_process
from simtviz.backends.base import Backend, BackendInfo, Progress
from simtviz.backends.sim_process import SimProcessBackend, remove_stale_temp
from simtviz.core.errors import Cancelled, KernelFailed

# --- a child and a clock written by hand ------------------------------------------------------


class ScriptedChild:
    """The socket to a child that sends ``script`` (arrival time, message), one by one, and a
    process that stays alive. ``on_recv(i)`` runs while message i is being received."""

    def __init__(self, clock: list[float], script: list[tuple[float, Any]], on_recv: Any = None) -> None:
        self.clock, self.script, self.on_recv = clock, list(script), on_recv
        self.sent: list[Any] = []
        self.received = 0

    # the connection
    def send(self, message: Any) -> None:
        self.sent.append(message)

    def poll(self, timeout: float) -> bool:
        if not self.script:
            raise AssertionError("the parent waited past the end of the script")
        self.clock[0] = self.script[0][0]  # the next message arrives now
        return True

    def recv(self) -> Any:
        if self.on_recv is not None:
            self.on_recv(self.received)
        self.received += 1
        return self.script.pop(0)[1]

    def close(self) -> None:
        pass

    # the process
    pid = 4321

    def is_alive(self) -> bool:
        return True

    def join(self, timeout: float) -> None:
        pass

    def kill(self) -> None:
        pass

    def cleanup(self) -> None:
        pass


class Quick:
    """An experiment the scripted child "runs"; no estimate, so only the child's reports count."""

    name = "test-quick"

    def estimate_s(self, request: Any, info: BackendInfo) -> float | None:
        return None


def scripted(monkeypatch: pytest.MonkeyPatch, script: list[tuple[float, Any]], on_recv: Any = None) -> Any:
    clock = [0.0]
    monkeypatch.setattr(sim_process, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    backend = SimProcessBackend()
    child = ScriptedChild(clock, script, on_recv)
    backend._proc, backend._conn = child, child
    return backend, child


def test_the_bar_moves_at_most_every_100_ms_and_exactly_at_100_ms(monkeypatch: pytest.MonkeyPatch) -> None:
    # The run starts at t = 0 s. Reports arrive at 0.0625 (62.5 ms after the last update at 0:
    # too soon), 0.1 (0.1 - 0 = 100 ms: shown, 50 %), 0.15 (50 ms: too soon), 0.2 (0.2 - 0.1 =
    # 100 ms: shown, 80 %, the latest report), then the result at 0.25 and 1.0 for the end.
    backend, child = scripted(
        monkeypatch,
        [
            (0.0625, ("progress", 0.25)),
            (0.1, ("progress", 0.5)),
            (0.15, ("progress", 0.75)),
            (0.2, ("progress", 0.8)),
            (0.25, ("ok", "the result")),
        ],
    )
    seen: list[float] = []
    assert backend.execute(Quick(), "request", seen.append) == "the result"
    assert seen == [0.5, 0.8, 1.0]
    assert child.sent == [(__name__, "test-quick", "request", backend.info())]


def test_the_app_closing_as_a_report_arrives_ends_the_run_cancelled(monkeypatch: pytest.MonkeyPatch) -> None:
    # The window's close (shutdown()) runs on the GUI thread while the worker is receiving the
    # child's first report: the worker finds the child already gone and the run Cancelled.
    def close_the_app(i: int) -> None:
        if i == 0:
            backend.shutdown()

    backend, child = scripted(monkeypatch, [(0.05, ("progress", 0.5))], close_the_app)
    with pytest.raises(Cancelled, match="run cancelled"):
        backend.execute(Quick(), "request", None)
    assert backend.child_pid is None
    assert child.sent[-1] is None  # shutdown asked the child to stop first


def test_a_child_gone_while_a_report_arrives_after_the_app_closed_is_a_kernel_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The app closes (shutdown) while the worker waits; the killed child's socket then reads
    # end-of-file: the run ends as a KernelFailed in words, not an error about a missing process.
    class Gone(ScriptedChild):
        def recv(self) -> Any:
            backend.shutdown()
            raise EOFError

    clock = [0.0]
    monkeypatch.setattr(sim_process, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    backend = SimProcessBackend()
    child = Gone(clock, [(0.05, None)])
    backend._proc, backend._conn = child, child
    with pytest.raises(KernelFailed, match="the simulator process ended unexpectedly"):
        backend.execute(Quick(), "request", None)


# --- stale folders at start --------------------------------------------------------------------

GONE_PID = 999_999_999  # above any pid_max (at most 2^22 on Linux): no such process


def test_the_folder_of_a_live_app_is_kept_and_that_app_gets_no_signal(tmp_path: Path) -> None:
    other_app = subprocess.Popen(["sleep", "60"])
    try:
        live = tmp_path / f"simtviz-sim-{other_app.pid}-abc"
        live.mkdir()
        (live / "kernel.py").write_text("x")
        assert remove_stale_temp(str(tmp_path)) == []
        assert (live / "kernel.py").read_text() == "x"
    finally:
        other_app.terminate()
        other_app.wait(10)
    # Our SIGTERM ended it: nothing (a SIGHUP, say) reached it first.
    assert other_app.returncode == -signal.SIGTERM


def test_another_users_live_apps_folder_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Signalling another user's process is refused (EPERM): it is alive, its folder stays.
    real_kill = os.kill

    def kill(pid: int, signo: int) -> None:
        if pid == 4242:
            raise PermissionError(1, "Operation not permitted")
        real_kill(pid, signo)

    monkeypatch.setattr(os, "kill", kill)
    theirs = tmp_path / "simtviz-sim-4242-abc"
    theirs.mkdir()
    stale = tmp_path / f"simtviz-sim-{GONE_PID}-def"
    stale.mkdir()
    assert remove_stale_temp(str(tmp_path)) == [stale]
    assert theirs.is_dir() and not stale.exists()


def test_a_stale_name_that_cannot_be_removed_is_left_without_an_error(tmp_path: Path) -> None:
    # A file (not a folder) of a gone app's name: rmtree fails on it; the run must start anyway.
    odd = tmp_path / f"simtviz-sim-{GONE_PID}-file"
    odd.write_text("not a folder")
    remove_stale_temp(str(tmp_path))
    assert odd.read_text() == "not a folder"


# --- the child's simtviz -----------------------------------------------------------------------


class WhereExperiment:
    """Answers with the file the child imported simtviz from."""

    name = "test-where-is-simtviz"

    def check(self, request: Any, info: BackendInfo) -> None:
        return None

    def estimate_s(self, request: Any, info: BackendInfo) -> float | None:
        return None

    def run_gpu(self, backend: Backend, request: Any, progress: Progress | None) -> Any:
        raise NotImplementedError

    def run_sim(self, request: Any, info: BackendInfo, progress: Progress | None) -> Any:
        import simtviz as child_simtviz

        return child_simtviz.__file__


WHERE = experiment.register(WhereExperiment())


def test_the_child_runs_the_apps_simtviz_even_when_pythonpath_does_not_name_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An app started from a checkout (its own sys.path, no PYTHONPATH): the child imports simtviz
    # from the same folder, not from another installed copy.
    monkeypatch.delenv("PYTHONPATH", raising=False)
    backend = SimProcessBackend()
    try:
        assert backend.run(WHERE, None) == simtviz.__file__
    finally:
        backend.shutdown()


# --- multiprocessing's spawn (platforms without fd passing) ----------------------------------

SPAWNED = """
import multiprocessing, types
import simtviz.backends.sim_process as sp
from simtviz.core.launch import LaunchConfig

sp.os = types.SimpleNamespace(name="nt")  # as on Windows: multiprocessing's spawn
backend = sp.SimProcessBackend()
first = backend.record(LaunchConfig.of(2, 4))
pid = backend.child_pid
second = backend.record(LaunchConfig.of(3, 2))
print(first.threads, second.threads, pid == backend.child_pid, flush=True)
# The app ends without shutdown() (an exception on its way out): the child must not hold it.
"""


def test_on_spawn_platforms_one_child_serves_every_run_and_never_keeps_the_app_open() -> None:
    # 2 blocks of 4 = 8 threads, then 3 blocks of 2 = 6, both in the same child.
    done = subprocess.run(
        [sys.executable, "-c", SPAWNED], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["8", "6", "True"]


def test_the_app_closing_while_the_worker_waits_for_a_report_ends_the_run_cancelled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # shutdown() on the GUI thread forgets the child while the worker's poll is waiting; the poll
    # then times out with nothing to read. The worker must not look the child up again (it is
    # None by then: an AttributeError in the worker) but find the run Cancelled.
    class ClosedDuringPoll(ScriptedChild):
        def poll(self, timeout: float) -> bool:
            backend.shutdown()
            return False

    clock = [0.0]
    monkeypatch.setattr(sim_process, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    backend = SimProcessBackend()
    child = ClosedDuringPoll(clock, [])
    backend._proc, backend._conn = child, child
    with pytest.raises(Cancelled, match="run cancelled"):
        backend.execute(Quick(), "request", None)
    assert backend.child_pid is None
