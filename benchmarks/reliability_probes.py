"""Timings of issue 24's probes: how fast each bad input is refused, and what it costs.

- a 3 MB-class zip bomb record (a member claiming 18 GB): time to refusal and peak allocation;
- Open… of a FIFO and of a symlink to /dev/zero (``read_user_text``): time to refusal;
- a kernel file whose defaults start ``sleep 300`` and then wait forever, 2 s time limit: time
  from Run to the stop, and whether the ``sleep`` survived; the same with Cancel after 1 s;
- the child's limits as the child sees them.

Usage: ``python benchmarks/reliability_probes.py`` (the simulator; about 30 s on 2 cores).
"""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import threading
import time
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np

KERNEL = """
@cuda.jit
def k(A):
    i = cuda.grid(1)
    if i < A.shape[0]:
        A[i] = 1.0
"""
SLEEPER = (
    """
import os, subprocess, time
from numba import cuda


def _start(p=subprocess.Popen(["sleep", "300"])):
    return p


def _mark(w=open(os.environ["PROBE_MARK"], "w").write(str(_start.__defaults__[0].pid))):
    return w


def _wait(t=time.sleep(300)):
    return t
"""
    + KERNEL
)


def bomb(folder: Path) -> Path:
    buf = io.BytesIO()
    header = {"descr": "<i4", "fortran_order": False, "shape": (1_500_000_000, 3)}
    np.lib.format.write_array_header_1_0(buf, header)
    path = folder / "bomb.npz"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("threadIdx.npy", buf.getvalue() + b"\0" * (3 << 20))
    return path


def gone(pid: int) -> bool:
    try:
        return "\nState:\tZ" in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True


def main() -> None:
    from simtviz.backends.isolated import run_isolated
    from simtviz.core import load_npz
    from simtviz.core.files import read_user_text
    from simtviz.core.trace.model import TraceRequest

    folder = Path(tempfile.mkdtemp(prefix="probes-"))
    path = bomb(folder)
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        load_npz(path)
    except Exception as exc:
        outcome = type(exc).__name__
    dt = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    size_kb = path.stat().st_size / 1e3
    print(f"zip bomb ({size_kb:.0f} KB file, 18 GB claimed): {outcome} in {dt * 1e3:.1f} ms, "
          f"peak allocation {peak / 1e6:.2f} MB")  # fmt: skip

    fifo = folder / "k.py"
    os.mkfifo(fifo)
    link = folder / "z.py"
    link.symlink_to("/dev/zero")
    for name, target in (("FIFO", fifo), ("symlink to /dev/zero", link)):
        t0 = time.perf_counter()
        try:
            read_user_text(target)
        except OSError as exc:
            print(f"Open… of a {name}: refused in {(time.perf_counter() - t0) * 1e3:.2f} ms ({exc})")

    mark = folder / "mark"
    os.environ["PROBE_MARK"] = str(mark)
    request = TraceRequest(SLEEPER, (1, 1, 1), (32, 1, 1), {"A": "float32[32]"}, time_limit_s=2.0)
    t0 = time.perf_counter()
    try:
        run_isolated("sim", "trace", request)
    except Exception as exc:
        words = str(exc)
    dt = time.perf_counter() - t0
    pid = int(mark.read_text())
    time.sleep(0.5)
    print(f"time limit 2 s, module code starting 'sleep 300' then waiting: stopped after {dt:.1f} s "
          f"(child start included); sleep alive after 0.5 s: {not gone(pid)}")  # fmt: skip
    print(f"  words: {words}")
    mark.unlink()
    cancel = threading.Event()
    threading.Timer(1.0, cancel.set).start()
    request = TraceRequest(SLEEPER, (1, 1, 1), (32, 1, 1), {"A": "float32[32]"}, time_limit_s=60.0)
    t0 = time.perf_counter()
    try:
        run_isolated("sim", "trace", request, cancel=cancel)
    except Exception as exc:
        kind = type(exc).__name__
    print(f"Cancel at 1 s: {kind} after {time.perf_counter() - t0:.2f} s")
    left = list(Path(tempfile.gettempdir()).glob(f"simtviz-trace-{os.getpid()}-*"))
    print(f"trace folders of this process left: {len(left)}")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
