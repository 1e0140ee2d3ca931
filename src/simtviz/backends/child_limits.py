"""What the student's kernel child may use: resource limits set in the child itself, and its
death with the app (Linux's parent-death signal). Not a sandbox: module-level code in the
student's file runs with the user's own rights (README, "What your file can do"); these limits
bound what a mistake can cost (memory, CPU time, open files, processes), and the parent kills the
child's whole process group at the time limit, on Cancel and when the window closes.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time
from pathlib import Path

PR_SET_PDEATHSIG = 1
GIB = 1 << 30
MIB = 1 << 20
# The simulator runs each thread of a block as an OS thread; Python's default stack is 8 MiB
# reserved per thread (1,024 threads: 8 GiB), and glibc gives threads up to 8 malloc arenas per
# core of 64 MiB each (16 cores: 8 GiB). On a 16-core GPU machine that passed 16 GiB and a
# 1,024-thread block failed with "can't start new thread". So the sim child's threads get 2 MiB
# stacks (the kernel's Python frames live on the heap; C calls need far less) and at most 8 arenas.
SIM_THREAD_STACK_BYTES = 2 * MIB
MALLOC_ARENAS = 8
MAX_BLOCK_THREADS = 1024
# Address space of a simulator or emulator child: numba, LLVM and the libraries (more on a machine
# with a GPU driver) about 2 GiB, malloc arenas 8 x 64 MiB, the traced arrays at most
# ARRAY_BUDGET_BYTES (core.trace.args, 4 GiB), room to spare: 14 GiB, plus 1,024 thread stacks
# (2 GiB): 16 GiB. A GPU child gets no address-space limit: CUDA reserves far more virtual memory
# than it uses.
ADDRESS_SPACE_BYTES = 14 * GIB + MAX_BLOCK_THREADS * SIM_THREAD_STACK_BYTES
OPEN_FILES = 1024
# Processes and threads the child may add to what the user already runs: the simulator needs one
# thread per thread of a block (up to 1,024) and numba a few; a fork bomb stops here.
EXTRA_TASKS = 2048


def die_with_parent(parent_pid: int) -> None:
    """SIGKILL this process when the thread that started it ends (Linux only; the parent starts
    children from one long-lived thread, ``isolated.spawn``). SIGKILL needs no Python: module
    code that holds the GIL cannot delay it. Elsewhere the stdin watchdog alone ends the child."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # its failure is ignored: the watchdog stays
    if parent_pid and os.getppid() != parent_pid:  # the parent died before the line above
        os._exit(3)


def _lower(which: int, soft: int, hard: int | None = None) -> None:
    """Lower a limit (never raise one a user or admin set lower)."""
    import resource

    old_soft, old_hard = resource.getrlimit(which)
    inf = resource.RLIM_INFINITY

    def lowest(a: int, b: int) -> int:
        return b if a == inf else a if b == inf else min(a, b)

    new_hard = lowest(old_hard, soft if hard is None else hard)
    new_soft = lowest(lowest(old_soft, soft), new_hard)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(which, (new_soft, new_hard))


def user_tasks() -> int | None:
    """Processes and threads of this user now (Linux /proc); None where it cannot be counted."""
    uid, count = os.getuid(), 0
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            text = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        uid_line = next((ln for ln in text.splitlines() if ln.startswith("Uid:")), "")
        if uid_line.split()[1:2] == [str(uid)]:
            threads = next((ln for ln in text.splitlines() if ln.startswith("Threads:")), "Threads: 1")
            count += int(threads.split()[1])
    return count


def apply_limits(kind: str) -> None:
    """Address space (not on a GPU), open files and processes; POSIX only."""
    try:
        import resource
    except ImportError:  # Windows: none of these exist
        return
    if kind != "gpu":
        _lower(resource.RLIMIT_AS, ADDRESS_SPACE_BYTES)
        _small_threads()
    _lower(resource.RLIMIT_NOFILE, OPEN_FILES)
    # RLIMIT_NPROC counts every process and thread of the user (not only this child's), so the
    # limit is what runs now plus room for the simulator's threads. Root is not held by it.
    tasks = user_tasks() if os.getuid() != 0 else None
    if tasks is not None:
        _lower(resource.RLIMIT_NPROC, tasks + EXTRA_TASKS)


def _small_threads() -> None:
    """Threads started from now on (the simulator's, one per thread of a block) reserve
    SIM_THREAD_STACK_BYTES of stack, and glibc's malloc keeps to MALLOC_ARENAS arenas."""
    import threading

    with contextlib.suppress(ValueError, RuntimeError):
        threading.stack_size(SIM_THREAD_STACK_BYTES)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            libc.mallopt(-8, MALLOC_ARENAS)  # M_ARENA_MAX (glibc; elsewhere a no-op or absent)


def limit_cpu(seconds: float) -> None:
    """A CPU-time backstop for this run (SIGXCPU, then SIGKILL 5 s later): the parent's wall-clock
    limit is the real one; this one holds even if the parent cannot act."""
    try:
        import resource
    except ImportError:
        return
    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = int(used.ru_utime + used.ru_stime) + 1
    soft = spent + int(seconds) + 1
    _lower(resource.RLIMIT_CPU, soft, soft + 5)


# CPU seconds a checker may use in all: a compile takes under a few; a pathological kernel that
# makes numba's typing run away must not spin on a student's laptop after its Run is long over.
CHECKER_CPU_SECONDS = 300


def end_with_parent(parent: int | None = None) -> None:
    """Exit when the process that started this checker is gone (its stdin alone is not enough: a
    compile can run for minutes before the next read notices the closed pipe), and never use
    more than CHECKER_CPU_SECONDS of CPU."""
    parent = parent or os.getppid()  # given by the parent: it may be gone before this line runs
    # SIGKILL from the kernel when the trace child ends (Linux; it starts us from its main
    # thread): needs no Python, so a compile holding the GIL cannot delay it. The watch below is
    # for the other systems.
    die_with_parent(parent)

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:  # re-parented: the trace child ended
                os._exit(3)

    threading.Thread(target=watch, name="simtviz-checker-watch", daemon=True).start()
    with contextlib.suppress(ImportError, ValueError, OSError):
        import resource

        hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
        _lower(resource.RLIMIT_CPU, CHECKER_CPU_SECONDS, hard)  # a lower soft limit kept, the hard one too
