"""``_pid_alive``, which decides whether a stale temporary folder's app is gone (and its folder
removed at start), answers a plain bool: False for a process that has ended, True for this one."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from simtviz.backends.sim_process import _pid_alive


@pytest.mark.skipif(os.name != "posix", reason="os.kill(pid, 0) probes only on POSIX")
def test_an_ended_process_is_not_alive_and_this_one_is() -> None:
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()  # reaped: no process has its pid now (Linux hands pids out in rising order)
    assert _pid_alive(ended.pid) is False
    assert _pid_alive(os.getpid()) is True
