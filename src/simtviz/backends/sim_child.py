"""``python -m simtviz.backends.sim_child FD WATCH_FD PARENT_PID``: the simulator's child process.

Started by ``sim_process.start_child``; serves requests on the socket ``FD`` until told to stop.
It must never outlive the app, however the app ends (closed, Ctrl+C, SIGTERM, a closed terminal,
SIGKILL): a watchdog thread reads the pipe ``WATCH_FD``, whose other end only the app holds, and
reads end-of-file the moment the app is gone; on Linux the kernel also sends SIGTERM then
(PR_SET_PDEATHSIG). Either way the child removes its temporary folder ($TMPDIR, made for it) and
exits at once, mid-launch or not.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import shutil
import signal
import sys
import threading
from multiprocessing.connection import Connection
from types import FrameType

PR_SET_PDEATHSIG = 1


def _exit_now(code: int) -> None:
    """Remove this child's own temporary folder and exit without waiting for the launch's threads."""
    temp = os.environ.get("TMPDIR", "")
    if os.path.basename(temp).startswith("simtviz-sim-"):
        shutil.rmtree(temp, ignore_errors=True)
    os._exit(code)


def die_with_parent(watch_fd: int, parent_pid: int) -> None:
    """Exit when the process ``parent_pid`` is gone: watchdog pipe, and PR_SET_PDEATHSIG on Linux."""

    def watch() -> None:
        with contextlib.suppress(OSError):
            while os.read(watch_fd, 4096):
                pass
        _exit_now(0)

    threading.Thread(target=watch, name="simtviz-watchdog", daemon=True).start()

    def on_term(_signo: int, _frame: FrameType | None) -> None:
        # PR_SET_PDEATHSIG fires when the parent *thread* that started us ends; while the parent
        # process lives on (getppid unchanged), that is not a reason to stop.
        if os.getppid() != parent_pid:
            _exit_now(128 + _signo)

    signal.signal(signal.SIGTERM, on_term)
    # Ctrl+C and a closed terminal reach the whole process group: the app decides what stops,
    # and its end is seen above. (No SIGHUP on Windows.)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)  # the kernel ignores arguments 3 to 5
    if os.getppid() != parent_pid:  # the app died before the line above took effect
        _exit_now(0)


def main(argv: list[str]) -> None:
    conn_fd, watch_fd, parent_pid = (int(a) for a in argv)
    die_with_parent(watch_fd, parent_pid)
    from simtviz.backends.selection import activate

    activate("sim")  # before numba is imported (serve imports it)
    parent_path = os.environ.pop("SIMTVIZ_PARENT_SYS_PATH", "")
    sys.path.extend(p for p in parent_path.split(os.pathsep) if p and p not in sys.path)
    from simtviz.backends.sim_process import serve

    try:
        serve(Connection(conn_fd))
    finally:
        _exit_now(0)


if __name__ == "__main__":
    main(sys.argv[1:])
