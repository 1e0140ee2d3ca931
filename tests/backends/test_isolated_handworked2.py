"""The isolated run's parent and child at their edges, hand-worked: the time limit and the
analysis's own clock on a stand-in clock (a child whose messages arrive at given seconds), what is
kept of a child's stderr, the thread that starts every child, the sweep of dead apps' folders, a
waiting child taken for a run, and the child process itself (``python -m``, as the app starts it):
its parent already gone, a run that prints, the simulator chosen by the child, the CPU backstop."""

from __future__ import annotations

import io
import os
import pickle
import queue
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from isolated_toy import NAME, ToyRequest, on_child_path
from simtviz.backends import isolated
from simtviz.backends.isolated import IsolatedChild, WarmChildren, _Spawner, remove_stale_trace_temp
from simtviz.core.errors import TimeLimitReached

# --- the time limit on a stand-in clock -------------------------------------------------------


class Script:
    """A child's messages, each arriving at a given second of a stand-in clock. Past the last
    one the child says nothing and the clock jumps ahead, so a run never waits for ever."""

    def __init__(self, clock: list[float], timed: list[tuple[float, Any]]) -> None:
        self.clock, self.timed = clock, list(timed)

    def get(self, timeout: float) -> Any:
        if not self.timed:
            self.clock[0] += 10_000.0
            raise queue.Empty
        at, message = self.timed.pop(0)
        self.clock[0] = at
        return message


def scripted(
    monkeypatch: pytest.MonkeyPatch,
    timed: list[tuple[float, Any]],
    analysis_from: float | None = None,
    stderr: str = "",
) -> IsolatedChild:
    clock = [0.0]
    monkeypatch.setattr(isolated, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    made = IsolatedChild.__new__(IsolatedChild)
    made.kind, made.experiment, made.analysis_from = "sim", "trace", analysis_from
    made.proc = SimpleNamespace(stdin=io.BytesIO(), returncode=None)
    made.messages = Script(clock, [(0.0, ("ready", 1)), *timed])  # type: ignore[assignment]
    made.phase, made._stderr, made._lock = "ready", [stderr], threading.Lock()
    made.kill = lambda: None  # type: ignore[method-assign]
    return made


def request(limit: float) -> Any:
    return SimpleNamespace(time_limit_s=limit, kernel="double")


def test_a_run_still_going_at_exactly_its_limit_is_ended(monkeypatch: pytest.MonkeyPatch) -> None:
    # The limit is 2 s from the request (sent at second 0): a message at second 2.0 is read, then
    # 2.0 >= 2.0 ends the run; the "ok" after it is never read.
    child = scripted(monkeypatch, [(2.0, ("phase", "kernel")), (2.0, ("ok", "late"))])
    with pytest.raises(TimeLimitReached) as info:
        child.run(request(2.0))
    assert str(info.value) == (
        "the kernel 'double' was still running after 2 s and its process was ended; the app keeps running"
    )


def test_the_analysis_gets_180_s_of_its_own_from_progress_0_4(monkeypatch: pytest.MonkeyPatch) -> None:
    # A 2 s limit. The kernel's run ends at progress 0.4 (exactly where the analysis starts) at
    # second 1: the analysis may go on until 1 + max(2, 180) = 181 s. At second 100 the old
    # clock (2 s) would have ended it; the result at second 170 comes back.
    seen: list[float] = []
    child = scripted(
        monkeypatch,
        [(1.0, ("progress", 0.4)), (100.0, ("progress", 0.7)), (170.0, ("ok", "result"))],
        analysis_from=0.4,
    )
    assert child.run(request(2.0), seen.append) == "result"
    assert seen == [0.4, 0.7]


def test_the_analysis_clock_starts_once_not_at_each_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    # Analysis from second 1: until 181 s. Progress at 170 s does not move it to 170 + 180 = 350;
    # the message at 185 s is read, then 185 >= 181 ends the run, blamed on the analysis.
    child = scripted(
        monkeypatch,
        [
            (1.0, ("progress", 0.4)),
            (170.0, ("progress", 0.9)),
            (185.0, ("progress", 0.95)),
            (190.0, ("ok", "result")),
        ],
        analysis_from=0.4,
    )
    with pytest.raises(TimeLimitReached) as info:
        child.run(request(2.0))
    assert info.value.phase == "analysis"
    assert str(info.value) == (
        "the analysis of the log (the kernel had finished) was still going after 2 s and the "
        "process was ended; the app keeps running"
    )


def test_what_the_kernel_printed_is_a_note_only_on_a_result_with_notes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with_notes = SimpleNamespace(notes=[])
    assert (
        scripted(monkeypatch, [(0.5, ("ok", with_notes))], stderr="hello\n").run(request(2.0)) is with_notes
    )
    assert with_notes.notes == ["the kernel printed:\nhello"]
    quiet = SimpleNamespace(notes=[])
    scripted(monkeypatch, [(0.5, ("ok", quiet))]).run(request(2.0))
    assert quiet.notes == []  # nothing printed: no note
    # a result without notes (an exercise's tuple) comes back as it is, printing or not
    assert scripted(monkeypatch, [(0.5, ("ok", ("emu", 7)))], stderr="hello\n").run(request(2.0)) == (
        "emu",
        7,
    )


# --- what is kept of the child's stderr -------------------------------------------------------


def bare_child() -> IsolatedChild:
    made = IsolatedChild.__new__(IsolatedChild)
    made._stderr = []
    return made


def test_the_last_20000_characters_of_stderr_are_kept() -> None:
    child = bare_child()
    child._stderr = ["X", "y" * 19_999]  # 20,000 characters: all kept
    assert child.stderr_text() == "X" + "y" * 19_999
    child._stderr = ["X", "y" * 20_000]  # 20,001: the X (the oldest) goes
    assert child.stderr_text() == "y" * 20_000


def test_2000_lines_are_kept_and_the_2001st_drops_the_oldest_1000() -> None:
    child = bare_child()
    child._drain(io.BytesIO(b"".join(b"%d\n" % i for i in range(2000))))  # type: ignore[arg-type]
    lines = child.stderr_text().splitlines()
    assert (len(lines), lines[0], lines[-1]) == (2000, "0", "1999")
    child = bare_child()
    child._drain(io.BytesIO(b"".join(b"%d\n" % i for i in range(2001))))  # type: ignore[arg-type]
    lines = child.stderr_text().splitlines()  # lines 0-999 went: 1,000 to 2,000 are left
    assert (len(lines), lines[0], lines[-1]) == (1001, "1000", "2000")


# --- the thread that starts every child -------------------------------------------------------


def on_a_worker(call: Any) -> Any:
    out: list[Any] = []
    worker = threading.Thread(target=lambda: out.append(call()))
    worker.start()
    worker.join(30)
    return out[0]


def serving() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "simtviz-trace-spawner"]


def test_children_started_from_workers_share_one_daemon_thread() -> None:
    spawn = _Spawner()
    before = len(serving())
    first = on_a_worker(lambda: spawn(threading.current_thread))
    second = on_a_worker(lambda: spawn(threading.current_thread))
    assert first.name == second.name == "simtviz-trace-spawner"
    assert len(serving()) == before + 1  # one thread, not one per child
    assert first.daemon  # it never keeps the app from exiting


def test_a_child_that_cannot_start_raises_on_the_asking_thread() -> None:
    spawn = _Spawner()

    def refuse() -> None:
        raise OSError("[Errno 11] Resource temporarily unavailable")

    def ask() -> str:
        try:
            spawn(refuse)
        except OSError as exc:
            return f"raised {exc}"
        return "returned"

    assert on_a_worker(ask) == "raised [Errno 11] Resource temporarily unavailable"


# --- processes: the sweep of dead apps' folders, exiting with a child still waiting ------------


def python(code: str, tmp_path: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = isolated.child_env("emu")  # imports this simtviz
    env["TMPDIR"] = str(tmp_path)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=timeout
    )


def test_dead_apps_folders_are_swept_once_at_this_app_s_first_child(tmp_path: Path) -> None:
    # The first child's start removes simtviz-trace-<dead pid>-a; a folder of a dead app that
    # appears later (b) stays until the next app. A start that fails leaves no folder of its own.
    dead = subprocess.Popen(["true"])
    dead.wait()
    code = f"""
import os
from simtviz.backends import isolated

def refuse(make):
    raise OSError("no more processes")

isolated.spawn = refuse
for folder in ("a", "b"):
    os.mkdir(os.path.join({str(tmp_path)!r}, "simtviz-trace-{dead.pid}-" + folder))
    try:
        isolated.IsolatedChild("emu", "trace")
    except OSError as exc:
        print(exc)
    print(sorted(os.listdir({str(tmp_path)!r})))
"""
    done = python(code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "no more processes",
        "[]",
        "no more processes",
        f"['simtviz-trace-{dead.pid}-b']",
    ]


def test_the_app_exits_while_a_child_started_ahead_still_waits(tmp_path: Path) -> None:
    # The threads that read the child's pipes must not hold the app open: it exits at once (the
    # child then dies with it), rather than wait for a child that waits for it.
    code = 'from simtviz.backends import isolated\nisolated.IsolatedChild("emu", "trace")\nprint("done")\n'
    try:
        done = python(code, tmp_path, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("the app did not exit while its child waited")
    assert (done.returncode, done.stdout) == (0, "done\n"), done.stderr


def test_a_stale_folder_exactly_a_day_old_goes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Old naming (no pid): kept while younger than 86,400 s; at 86,400 s exactly it goes.
    then = 1_000_000_000
    for name in ("simtviz-trace-day", "simtviz-trace-younger"):
        (tmp_path / name).mkdir()
    os.utime(tmp_path / "simtviz-trace-day", (then, then))
    os.utime(tmp_path / "simtviz-trace-younger", (then + 1, then + 1))
    monkeypatch.setattr(isolated, "time", SimpleNamespace(time=lambda: then + 86_400.0))
    assert [p.name for p in remove_stale_trace_temp(str(tmp_path))] == ["simtviz-trace-day"]
    assert [p.name for p in tmp_path.iterdir()] == ["simtviz-trace-younger"]


def test_a_folder_another_app_removes_first_is_no_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two apps start at once and both sweep a dead app's folder: the second finds it gone.
    folder = tmp_path / "simtviz-trace-999999999-x"
    folder.mkdir()
    from simtviz.backends import sim_process

    def gone_meanwhile(pid: int) -> bool:
        folder.rmdir()  # the other app was faster
        return False

    monkeypatch.setattr(sim_process, "_pid_alive", gone_meanwhile)
    assert remove_stale_trace_temp(str(tmp_path)) == [folder]


# --- a waiting child taken for a run ----------------------------------------------------------


def waiting(alive: bool) -> Any:
    made = IsolatedChild.__new__(IsolatedChild)
    made.kind, made.experiment = "sim", "trace"
    made.killed = False  # type: ignore[attr-defined]
    made.alive = lambda: alive  # type: ignore[method-assign]
    made.kill = lambda: setattr(made, "killed", True)  # type: ignore[method-assign]
    return made


def test_a_waiting_child_is_taken_once_and_a_dead_one_is_ended() -> None:
    warm = WarmChildren()
    ready = waiting(alive=True)
    warm._children["trace"] = ready
    assert warm.take("sim", "trace") is ready and not ready.killed  # type: ignore[attr-defined]
    assert warm.take("sim", "trace") is None  # taken: nothing waits now
    dead = waiting(alive=False)
    warm._children["trace"] = dead
    assert warm.take("sim", "trace") is None
    assert dead.killed  # type: ignore[attr-defined]


# --- the child process itself -----------------------------------------------------------------


def child_process(*argv: str, req: Any, env: dict[str, str]) -> tuple[int, list[Any], str]:
    """``python -m simtviz.backends.isolated_child ARGV`` (or ``python -c`` when argv[0] is
    "-c"), sent ``req`` with its stdin kept open until the reply; its messages and stderr."""
    from simtviz.backends.isolated_child import HEADER, read_message

    cmd = (
        [sys.executable, *argv]
        if argv[0] == "-c"
        else [sys.executable, "-m", "simtviz.backends.isolated_child", *argv]
    )
    proc = subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    body = pickle.dumps(req)
    proc.stdin.write(HEADER.pack(len(body)) + body)
    proc.stdin.flush()
    messages: list[Any] = []
    try:
        while True:
            messages.append(read_message(proc.stdout))
            if messages[-1][0] in ("ok", "error"):
                break
    except EOFError:
        pass
    code = proc.wait(timeout=60)  # before closing its stdin, which would end it with status 3
    proc.stdin.close()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    return code, messages, err


@pytest.fixture
def toy_env(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    on_child_path(monkeypatch)
    return isolated.child_env("emu")  # no NUMBA_ENABLE_CUDASIM in it


def test_a_child_whose_app_died_before_it_started_ends_with_status_3(toy_env: dict[str, str]) -> None:
    # The app's pid comes fourth; 999999999 is past any pid Linux gives: that app is gone.
    code, messages, _ = child_process("emu", "isolated_toy", NAME, "999999999", req=ToyRequest(), env=toy_env)
    assert (code, messages) == (3, [])


def test_a_run_that_prints_still_sends_its_result(toy_env: dict[str, str]) -> None:
    # print() goes to stderr, never into the messages on stdout.
    code, messages, err = child_process("emu", "isolated_toy", NAME, req=ToyRequest(say="hello"), env=toy_env)
    assert code == 0 and [m[0] for m in messages] == ["ready", "progress", "ok"], messages
    assert messages[-1][1][0] == "emu" and err == "hello\n"


def test_a_simulator_child_chooses_the_simulator_itself(toy_env: dict[str, str]) -> None:
    # Started without NUMBA_ENABLE_CUDASIM, a "sim" child sets it to 1 before its run.
    code, messages, _ = child_process(
        "sim", "isolated_toy", NAME, req=ToyRequest(env_number="NUMBA_ENABLE_CUDASIM"), env=toy_env
    )
    assert code == 0 and messages[-1] == ("ok", ("sim", 1)), messages


@pytest.mark.parametrize(("cores", "seconds"), [(4, 1000.0), (None, 250.0)])
def test_the_cpu_backstop_is_the_limit_plus_240_s_on_every_core(
    toy_env: dict[str, str], cores: int | None, seconds: float
) -> None:
    # A 10 s run: 4 cores x (10 + 240) = 1,000 CPU seconds; cores unknown: 1 x 250 = 250.
    code = f"""
import os, sys
from simtviz.backends import child_limits
child_limits.limit_cpu = lambda s: sys.stderr.write(f"cpu {{s!r}}\\n")
child_limits.apply_limits = lambda kind: None
os.cpu_count = lambda: {cores!r}
from simtviz.backends.isolated_child import main
main(["emu", "isolated_toy", {NAME!r}])
"""
    status, messages, err = child_process("-c", code, req=ToyRequest(time_limit_s=10.0), env=toy_env)
    assert status == 0 and messages[-1][0] == "ok", (messages, err)
    assert err == f"cpu {seconds!r}\n"


def test_the_gpu_half_runs_run_gpu_on_the_child_s_backend() -> None:
    from simtviz.backends.isolated_child import PlainSession

    experiment = SimpleNamespace(run_gpu=lambda backend, req, progress: ("gpu", backend, req))
    session = PlainSession(experiment, "gpu")
    session.backend = "the child's GpuBackend"
    assert session.run("req", print, print) == ("gpu", "the child's GpuBackend", "req")
