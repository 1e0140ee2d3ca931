"""The student's kernel child (issue 24, items 3 and 5): its own session, resource limits, dying
with its parent even while module code holds the GIL, the time limit and Cancel killing every
process it started, and its temporary folder removed on every path (stale ones at next start).

The kernel files here run code at import through default arguments, as a student's file can
(README, "What your file can do": imports, decorators and default values run in the child; other
top-level statements are left out); each writes what it saw into the file named by
$SIMTVIZ_TEST_MARK."""

from __future__ import annotations

import ast
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from repo_paths import SRC
from simtviz.backends.isolated import IsolatedChild, remove_stale_trace_temp, run_isolated
from simtviz.core.errors import Cancelled, TimeLimitReached
from simtviz.core.trace.model import TraceRequest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process groups, /proc")

KERNEL = """
@cuda.jit
def k(A):
    i = cuda.grid(1)
    if i < A.shape[0]:
        A[i] = 1.0
"""

BACKGROUND_SLEEP = (
    """
import os, subprocess, time
from numba import cuda


def _start(p=subprocess.Popen(["sleep", "300"])):
    return p


def _mark(w=open(os.environ["SIMTVIZ_TEST_MARK"], "w").write(str(_start.__defaults__[0].pid))):
    return w


def _wait(t=time.sleep(300)):  # top-level code that never ends
    return t
"""
    + KERNEL
)


def request(source: str, limit: float = 3.0) -> TraceRequest:
    return TraceRequest(source, (1, 1, 1), (32, 1, 1), {"A": "float32[32]"}, time_limit_s=limit)


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return "\nState:\tZ" in state  # a zombie has ended; only its exit status is left


def wait_for(predicate, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


@pytest.fixture
def mark(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "mark"
    monkeypatch.setenv("SIMTVIZ_TEST_MARK", str(path))
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads $TMPDIR again
    return path


def trace_folders(mark: Path) -> list[Path]:
    return list((mark.parent / "tmp").glob("simtviz-trace-*"))


def test_the_time_limit_ends_a_background_process_and_leaves_no_folder(mark: Path) -> None:
    started = time.monotonic()
    with pytest.raises(TimeLimitReached):
        run_isolated("sim", "trace", request(BACKGROUND_SLEEP, 3.0))
    # 3 s limit, plus the child's start (numba's import, ~1–3 s on a busy 2-core machine)
    assert time.monotonic() - started < 20
    pid = int(mark.read_text())
    assert wait_for(lambda: gone(pid), 3), "the kernel's background sleep survived the time limit"
    assert trace_folders(mark) == []


def test_cancel_ends_a_background_process_and_leaves_no_folder(mark: Path) -> None:
    cancel = threading.Event()
    threading.Thread(target=lambda: (wait_for(mark.exists, 60), cancel.set()), daemon=True).start()
    with pytest.raises(Cancelled):
        run_isolated("sim", "trace", request(BACKGROUND_SLEEP, 60.0), cancel=cancel)
    pid = int(mark.read_text())
    assert wait_for(lambda: gone(pid), 3), "the kernel's background sleep survived Cancel"
    assert trace_folders(mark) == []


def test_the_child_runs_in_its_own_session_with_limits(mark: Path) -> None:
    source = (
        """
import os, resource, threading
from numba import cuda


def _seen(w=open(os.environ["SIMTVIZ_TEST_MARK"], "w").write(repr({
    "session_leader": os.getsid(0) == os.getpid(),
    "stack": threading.stack_size(),
    "as": resource.getrlimit(resource.RLIMIT_AS)[0],
    "cpu": resource.getrlimit(resource.RLIMIT_CPU)[0],
    "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[0],
    "nproc": resource.getrlimit(resource.RLIMIT_NPROC)[0],
    "tmp": os.environ.get("TMPDIR", ""),
}))):
    return w
"""
        + KERNEL
    )
    import resource

    run_isolated("sim", "trace", request(source, 30.0))
    seen = ast.literal_eval(mark.read_text())
    inf = resource.RLIM_INFINITY
    assert seen["session_leader"]
    assert seen["as"] != inf and seen["as"] <= 16 << 30
    # the simulator's threads: 2 MiB stacks, so a 1,024-thread block reserves 1,024 x 2 MiB
    # = 2 GiB of the 16 GiB, 14 GiB left for the rest (at Python's default 8 MiB it was 8 GiB
    # of 16, and a 16-core GPU machine's malloc arenas took the rest: "can't start new thread")
    assert seen["stack"] == 2 << 20
    assert 1024 * seen["stack"] <= seen["as"] - (14 << 30)
    assert seen["cpu"] != inf
    assert seen["nofile"] <= 1024
    assert seen["nproc"] != inf or os.getuid() == 0  # root is not held by RLIMIT_NPROC anyway
    assert Path(seen["tmp"]).name.startswith(f"simtviz-trace-{os.getpid()}-")
    assert trace_folders(mark) == []


PARENT = """
import os, sys, threading
from simtviz.backends.isolated import IsolatedChild
from simtviz.core.trace.model import TraceRequest

holder = []
t = threading.Thread(target=lambda: holder.append(IsolatedChild("sim", "trace")))  # as the app's prewarm
t.start(); t.join()
child = holder[0]
print(child.pid, flush=True)
child.run(TraceRequest(sys.stdin.read(), (1, 1, 1), (32, 1, 1), {"A": "float32[32]"}, time_limit_s=300))
"""

GIL_HOLDER = (
    """
import os
from numba import cuda


def _mark(w=open(os.environ["SIMTVIZ_TEST_MARK"], "w").write("started")):
    return w


def _hold(x=sum(range(10**13))):  # one C call: holds the GIL for hours
    return x
"""
    + KERNEL
)


def test_the_child_dies_with_its_parent_even_while_module_code_holds_the_gil(mark: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")])),
    }
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True
    )
    assert parent.stdout is not None and parent.stdin is not None
    child_pid = int(parent.stdout.readline())
    parent.stdin.write(GIL_HOLDER)
    parent.stdin.close()
    # the child outlived the thread that started it, and its module code is running
    assert wait_for(mark.exists, 60)
    assert not gone(child_pid)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    assert wait_for(lambda: gone(child_pid), 5), "the trace child outlived its parent"


def test_stale_folders_of_dead_parents_are_removed_at_start(tmp_path: Path) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = tmp_path / f"simtviz-trace-{dead.pid}-abc"
    live = tmp_path / f"simtviz-trace-{os.getpid()}-def"
    for folder in (stale, live):
        (folder / "sub").mkdir(parents=True)
    other = tmp_path / "simtviz-trace-notapid"
    other.mkdir()
    removed = remove_stale_trace_temp(str(tmp_path))
    assert removed == [stale]
    assert not stale.exists() and live.exists() and other.exists()


def test_a_child_started_ahead_and_closed_leaves_no_folder(mark: Path) -> None:
    child = IsolatedChild("sim", "trace")
    assert wait_for(child.ready.is_set, 60)
    assert len(trace_folders(mark)) == 1
    child.kill()
    assert trace_folders(mark) == []
