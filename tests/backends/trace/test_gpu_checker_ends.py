"""The GPU-compile checker never outlives the trace child that started it.

Found after a session's test runs: four checker processes, their trace children long gone, kept
two cores busy for 40 minutes. A checker now watches its parent and has a CPU-time ceiling.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from repo_paths import SRC

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and re-parenting")

# A checker busy compiling (here: spinning) when its trace child dies; its stdin's EOF is not
# read until the compile ends, which for a pathological kernel was never.
BUSY_CHECKER = (
    "from simtviz.backends import child_limits as limits\n"
    "import sys\n"
    "getattr(limits, 'end_with_parent', lambda p: None)(int(sys.argv[1]))\n"
    "while True:\n"
    "    pass\n"
)
PARENT = f"""
import subprocess, sys, os
child = subprocess.Popen([sys.executable, "-c", {BUSY_CHECKER!r}, str(os.getpid())], stdin=subprocess.PIPE,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(child.pid, flush=True)
os._exit(0)  # dies the way a killed trace child does: no close(), the pipes left open
"""


def alive(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status")
    try:
        return "\nState:\tZ" not in status.read_text()
    except OSError:
        return False


def test_a_busy_checker_ends_when_its_trace_child_dies() -> None:
    src = str(SRC)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    out = subprocess.run([sys.executable, "-c", PARENT], capture_output=True, text=True, env=env, timeout=60)
    pid = int(out.stdout.split()[0])
    deadline = time.monotonic() + 30  # numba's import may take a while on a busy machine
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    gone = not alive(pid)
    if not gone:
        os.kill(pid, 9)
    assert gone, "the checker outlived the process that started it"


def test_a_checker_has_a_cpu_ceiling() -> None:
    from simtviz.backends.child_limits import CHECKER_CPU_SECONDS

    # A compile takes seconds; five minutes of CPU is far past any real one.
    assert 60 <= CHECKER_CPU_SECONDS <= 600
