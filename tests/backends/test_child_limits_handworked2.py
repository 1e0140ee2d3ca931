"""A child's death with its parent and what it asks of the C library (backends/child_limits.py):
a child whose only way out is the kernel's parent-death signal (its Python holds the GIL in one C
call, so no watch thread can run), and the calls made to libc, stood in for."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import simtviz
from simtviz.backends import child_limits as limits

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl, /proc")

HOLDER = (
    "import sys\n"
    "from simtviz.backends.child_limits import die_with_parent\n"
    "die_with_parent(int(sys.argv[1]))\n"
    "print('armed', flush=True)\n"
    "sum(range(10**13))  # one C call: holds the GIL for hours\n"
)
PARENT = f"""
import os, subprocess, sys
child = subprocess.Popen(
    [sys.executable, "-c", {HOLDER!r}, str(os.getpid())], stdout=subprocess.PIPE, text=True
)
print(child.stdout.readline().strip(), child.pid, flush=True)
os._exit(0)  # dies without a word to its child
"""


def running(pid: int) -> bool:
    try:
        return "\nState:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False


def test_a_child_holding_the_gil_dies_with_its_parent() -> None:
    src = str(Path(simtviz.__file__).resolve().parents[1])  # the simtviz under test
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-c", PARENT], capture_output=True, text=True, env=env, timeout=60)
    word, pid = done.stdout.split()
    assert word == "armed", done.stderr
    deadline = time.monotonic() + 5
    while running(int(pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    survived = running(int(pid))
    if survived:
        os.kill(int(pid), signal.SIGKILL)
    assert not survived, "the child outlived its parent, spinning"


@pytest.fixture
def libc(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """ctypes' libc stood in for: each load and call is noted."""
    calls: list[tuple[Any, ...]] = []

    class FakeLibc:
        def __init__(self, name: str | None, use_errno: bool = False) -> None:
            calls.append(("load", name))

        def prctl(self, *args: int) -> int:
            calls.append(("prctl", *args))
            return 0

        def mallopt(self, *args: int) -> int:
            calls.append(("mallopt", *args))
            return 1

    monkeypatch.setattr(limits.ctypes, "CDLL", FakeLibc)
    import threading

    monkeypatch.setattr(threading, "stack_size", lambda size: calls.append(("stack", size)))
    return calls


@pytest.mark.parametrize(
    ("found", "loaded"), [("libc.musl-x86_64.so.1", "libc.musl-x86_64.so.1"), (None, "libc.so.6")]
)
def test_the_death_signal_is_asked_of_the_c_library_found(
    libc: list[tuple[Any, ...]], monkeypatch: pytest.MonkeyPatch, found: str | None, loaded: str
) -> None:
    # The C library ctypes finds, else glibc's usual name; prctl(PR_SET_PDEATHSIG = 1, SIGKILL).
    monkeypatch.setattr(limits.ctypes.util, "find_library", lambda name: found)
    limits.die_with_parent(0)
    assert libc[0] == ("load", loaded)
    assert libc[1][:3] == ("prctl", 1, signal.SIGKILL)


@pytest.mark.parametrize(
    ("found", "loaded"), [("libc.musl-x86_64.so.1", "libc.musl-x86_64.so.1"), (None, "libc.so.6")]
)
def test_a_simulator_child_asks_for_2_mib_stacks_and_8_malloc_arenas(
    libc: list[tuple[Any, ...]], monkeypatch: pytest.MonkeyPatch, found: str | None, loaded: str
) -> None:
    # threading.stack_size(2 x 1,048,576 = 2,097,152); mallopt(M_ARENA_MAX, which glibc numbers -8, 8).
    monkeypatch.setattr(limits.ctypes.util, "find_library", lambda name: found)
    limits._small_threads()
    assert libc == [("stack", 2_097_152), ("load", loaded), ("mallopt", -8, 8)]
