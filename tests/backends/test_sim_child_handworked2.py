"""The simulator child (backends/sim_child.py) as the app starts it: through its entry point
``python -m simtviz.backends.sim_child FD WATCH_FD PARENT_PID``, and with the kernel's
parent-death signal really armed (not sent by the test)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from multiprocessing.connection import Connection
from pathlib import Path

import pytest

CHILD = """
import os, signal, sys, time
from simtviz.backends.sim_child import die_with_parent
r, w = os.pipe()  # the child holds both ends: the watchdog never reads end-of-file
die_with_parent(r, os.getppid())
os.getppid = lambda: 1  # from now on the app counts as gone (the child was handed to init)
print('armed', flush=True)
time.sleep(5)
print('still here', flush=True)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_kernel_sends_sigterm_when_the_thread_that_started_the_child_ends() -> None:
    # prctl(PR_SET_PDEATHSIG, SIGTERM): when the app's thread that started the child ends, the
    # kernel sends SIGTERM; the app being gone (getppid changed), the child ends with
    # 128 + 15 = 143 at once, without its 5 s sleep, before printing "still here".
    started: dict[str, subprocess.Popen[str]] = {}

    def starter() -> None:
        proc = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True)
        started["proc"] = proc
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "armed"  # prctl done before this thread ends

    thread = threading.Thread(target=starter)
    thread.start()
    thread.join()
    with started["proc"] as proc:  # closes its stdout
        assert proc.stdout is not None
        rest = proc.stdout.read()
        proc.wait(timeout=20)
    assert (proc.returncode, rest) == (128 + signal.SIGTERM, "")


def test_the_entry_point_serves_until_the_app_says_stop_then_exits_0_without_its_folder(
    tmp_path: Path,
) -> None:
    # As start_child does: a socket for requests, a watchdog pipe whose write end the app keeps,
    # the app's pid, and $TMPDIR a folder of the child's own. The app sends None: stop.
    folder = tmp_path / "simtviz-sim-1-abc"
    folder.mkdir()
    (folder / "numba-cache.bin").write_bytes(b"x")
    ours, theirs = socket.socketpair()
    watch_r, watch_w = os.pipe()
    env = dict(os.environ, TMPDIR=str(folder), NUMBA_ENABLE_CUDASIM="1")
    args = [sys.executable, "-m", "simtviz.backends.sim_child", str(theirs.fileno()), str(watch_r)]
    try:
        proc = subprocess.Popen(
            [*args, str(os.getpid())], pass_fds=(theirs.fileno(), watch_r), env=env, stdin=subprocess.DEVNULL
        )
        theirs.close()
        os.close(watch_r)
        conn = Connection(ours.detach())
        conn.send(None)
        proc.wait(timeout=60)
        conn.close()
    finally:
        os.close(watch_w)
    assert proc.returncode == 0  # a clean stop, not a failure
    assert not folder.exists()  # its temporary folder went with it
