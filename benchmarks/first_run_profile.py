"""Where the first Run → map spends its time, in a fresh process (issue 10, item 12).

    SIMTVIZ_BACKEND=gpu python benchmarks/first_run_profile.py

Runs benchmarks/first_run_gpu.py's child once, with a sampling profiler (every thread's stack
every 0.5 ms) between pressing Run and the map holding the image, for the first and the second
Run. Prints, per thread, the time line of what it was doing (consecutive samples with the same
simtviz frame and leaf frame merged), so the first Run's extra time has a name.
"""

from __future__ import annotations

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from first_run_gpu import CHILD  # noqa: E402

SAMPLER = r"""
import sys as _sys, threading as _threading, time as _time, traceback as _tb
_SAMPLES = []
_SAMPLING = _threading.Event()

def _where(frame):
    stack = _tb.extract_stack(frame)
    ours = [f for f in stack if "simtviz" in f.filename]
    leaf = stack[-1]
    mine = ours[-1] if ours else None
    a = f"{mine.filename.split('simtviz/')[-1]}:{mine.lineno} {mine.name}" if mine else "-"
    return f"{a} | {leaf.filename.split('/')[-1]}:{leaf.lineno} {leaf.name}"

def _sample():
    me = _threading.get_ident()
    names = {}
    while True:
        _SAMPLING.wait()
        t = _time.perf_counter()
        for ident, frame in _sys._current_frames().items():
            if ident == me:
                continue
            if ident not in names:
                names = {th.ident: th.name for th in _threading.enumerate()}
            _SAMPLES.append((t, names.get(ident, str(ident)), _where(frame)))
        _time.sleep(0.0005)

_threading.Thread(target=_sample, daemon=True, name="sampler").start()

def _report(label, t0, t1):
    print(f"==== {label}: {1000 * (t1 - t0):.1f} ms")
    by_thread = {}
    for t, name, where in _SAMPLES:
        if t0 <= t <= t1:
            by_thread.setdefault(name, []).append((t, where))
    for name, rows in by_thread.items():
        segs = []
        for t, where in rows:
            if segs and segs[-1][2] == where:
                segs[-1][1] = t
            else:
                segs.append([t, t, where])
        shown = [s for s in segs if s[1] - s[0] >= 0.004]
        if not shown:
            continue
        print(f"  -- thread {name}")
        for a, b, where in shown:
            print(f"    {1000 * (a - t0):7.1f} +{1000 * (b - a):6.1f} ms  {where}")
    _SAMPLES.clear()
"""

PATCHED = SAMPLER + CHILD.replace(
    "def start_run():\n",
    "def start_run():\n    _SAMPLES.clear(); _SAMPLING.set()\n",
).replace(
    'state["runs"].append(time.perf_counter() - state["t0"])',
    'state["runs"].append(time.perf_counter() - state["t0"]); _SAMPLING.clear(); '
    '_report("run %d" % len(state["runs"]), state["t0"], time.perf_counter())',
)


def main() -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    env.setdefault("SIMTVIZ_BACKEND", "gpu")
    proc = subprocess.run(
        [sys.executable, "-c", PATCHED], env=env, timeout=300, text=True, capture_output=True
    )
    print(proc.stdout)
    if proc.returncode:
        print(proc.stderr[-3000:])


if __name__ == "__main__":
    main()
