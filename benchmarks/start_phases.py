"""Where the desktop app's start goes, phase by phase, in fresh processes (issue 21: start → ready
≤ 2.5 s on the GPU machine).

    python benchmarks/start_phases.py [--backend emu|sim|gpu] [--runs 5] [--profile] [--hide scipy]
    python benchmarks/start_phases.py --bare [--runs 2] [--profile]   (GPU machine: no window)

Window mode (default): each run is a new Python process that starts the app as ``simtviz`` does
(``qt.app.run_app``, offscreen, settings in a temporary file) and prints the seconds since the
process was started at which each phase ended: the modules that matter imported (on which
thread), the session started, the window built, shown and first painted, the backend ready for
Run (``session.can_run``), and a tab's module imported or page built later. The process quits
once the backend is ready and the window painted. Then the median of each phase over the runs.
The CPU column is the process's own CPU time (all threads) at each mark: steadier than the wall
time on a shared machine. ``--profile`` prints where the GUI thread spent its time until ready
(cProfile, by own time).

``--bare`` (the GPU machine): the no-window phases: the imports, the CUDA context, the GPU
backend, then its warm-up as the app does it: ``compile_once`` (the recording kernel, the
verifier, the hold kernel), the rest before ready (``warm_up`` less ``compile_once``: the three
ranks' launches, the default colouring, the first thread), "ready", then each after-ready step
(``warm_ups_after_ready``: the other colour fields per rank, the schedule kernels) with its own
time and their sum. Start → ready waits for the phases up to "ready" only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

# Imports whose end is a phase: (module, label).
WATCHED = (
    ("PySide6.QtWidgets", "PySide6 imported"),
    ("numpy", "NumPy imported"),
    ("pyqtgraph", "pyqtgraph imported"),
    ("numba", "numba imported"),
    ("numba.cuda", "numba.cuda imported"),
    ("cupy", "CuPy imported"),
    ("simtviz.qt.session", "session module imported"),
    ("simtviz.qt.main_window", "window modules imported"),
)

# --hide: packages the process cannot import, as on an install of simtviz's own dependencies (the
# GPU machine's image has scipy, which numba-cuda imports at its first kernel only to ask whether
# a BLAS is there: ≈0.45 s of the H200's start).
HIDE = r"""
import importlib.abc as _abc, os as _os, sys as _sys
class _Hide(_abc.MetaPathFinder):
    names = tuple(n for n in _os.environ.get("START_PHASES_HIDE", "").split(",") if n)
    def find_spec(self, name, path, target=None):
        if any(name == n or name.startswith(n + ".") for n in self.names):
            raise ModuleNotFoundError(f"No module named {name!r} (start_phases --hide)", name=name)
        return None
_sys.meta_path.insert(0, _Hide())
"""

WINDOW_CHILD_BODY = r"""
import importlib.abc, importlib.machinery, json, os, sys, threading, time
T0 = float(os.environ["START_PHASES_T0"])
marks = []

def mark(label):
    thread = threading.current_thread().name
    marks.append((label, time.time() - T0, "" if thread == "MainThread" else thread, time.process_time()))

mark("interpreter up")
WATCHED = dict(json.loads(os.environ["START_PHASES_WATCHED"]))

class Watch(importlib.abc.MetaPathFinder):
    # Marks the end of a watched module's import, and of every tab module's.
    def find_spec(self, name, path, target=None):
        if name not in WATCHED and not name.startswith("simtviz.qt.tabs."):
            return None
        # The finders after this one (numba-cuda's redirector provides numba.cuda: PathFinder
        # alone would import the wrong module, and the GPU backend would never be ready).
        spec = None
        for finder in sys.meta_path[sys.meta_path.index(self) + 1 :]:
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find is not None else None
            if spec is not None:
                break
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module
        label = WATCHED.get(name) or f"{name.removeprefix('simtviz.qt.tabs.')} imported"
        def exec_module(module, run=run, label=label):
            run(module)
            mark(label)
            AFTER.get(module.__name__, lambda m: None)(module)
        spec.loader.exec_module = exec_module
        return spec

def patch_window(mw):
    # The window's own steps, as marks, without importing its modules any earlier.
    make = mw.create_main_window
    def create_main_window(*args, **kwargs):
        window = make(*args, **kwargs)
        mark("window built")
        show = window.show
        def shown():
            show()
            mark("window shown")
        window.show = shown
        return window
    mw.create_main_window = create_main_window

def patch_session(module):
    start = module.RunSession.__init__
    def session_init(self, *args, **kwargs):
        start(self, *args, **kwargs)
        mark("session started")
    module.RunSession.__init__ = session_init

AFTER = {"simtviz.qt.main_window": patch_window, "simtviz.qt.session": patch_session}
sys.meta_path.insert(0, Watch())
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv[:1])
mark("QApplication")

profile = None
if os.environ.get("START_PHASES_PROFILE"):
    import cProfile
    profile = cProfile.Profile()
    profile.enable()

state = {"window": None, "painted": False, "ready": False}

class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.UpdateRequest and not state["painted"]:
            state["painted"] = True
            mark("window painted")
        return False

first_paint = FirstPaint()

def poll():
    window = state["window"]
    if window is None:
        window = next((w for w in app.topLevelWidgets() if w.objectName() == "mainWindow"), None)
        if window is not None:
            state["window"] = window
            window.installEventFilter(first_paint)
    session = window.session if window is not None else None
    if session is not None and not state["ready"] and session.info is not None and session.can_run:
        state["ready"] = True
        mark("backend ready")
        if profile is not None:
            profile.disable()
    if state["ready"] and state["painted"]:
        QTimer.singleShot(300, window.close)  # later work (hidden pages) is marked too
        return
    QTimer.singleShot(1, poll)

QTimer.singleShot(0, poll)
QTimer.singleShot(120000, app.quit)

from simtviz.qt.app import run_app
run_app(os.environ["SIMTVIZ_BACKEND"])
print("MARKS " + json.dumps(marks), flush=True)
if profile is not None:
    import pstats
    pstats.Stats(profile).sort_stats("tottime").print_stats(30)
"""


WINDOW_CHILD = HIDE + WINDOW_CHILD_BODY


def window_run(backend: str, profile: bool) -> list[tuple[str, float, str, float]]:
    """One fresh process: [(phase, seconds since the process started, thread, CPU seconds)]."""
    settings_home = tempfile.mkdtemp()
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "SIMTVIZ_BACKEND": backend,
        "START_PHASES_WATCHED": json.dumps(WATCHED),
        "XDG_CONFIG_HOME": settings_home,  # the app's own settings, fresh: no saved window
        "START_PHASES_T0": repr(time.time()),
    }
    if profile:
        env["START_PHASES_PROFILE"] = "1"
    proc = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", WINDOW_CHILD],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("MARKS ")]
    if not lines:
        raise RuntimeError(f"no result (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    if profile:
        print(proc.stdout.split("\n", 1)[1] if "\n" in proc.stdout else "")
    return [tuple(m) for m in json.loads(lines[-1][len("MARKS ") :])]  # (phase, s, thread, CPU s)


BARE_CHILD = (
    HIDE
    + r"""
import time, os, sys
t0 = time.perf_counter()
def mark(n):
    print(f"{n:28s} {time.perf_counter()-t0:6.3f}", flush=True)
import PySide6.QtWidgets; mark("PySide6")
import pyqtgraph; mark("pyqtgraph")
import numpy; mark("numpy")
from simtviz.backends.selection import activate
activate("gpu"); mark("activate")
import numba.cuda; mark("numba.cuda")
import cupy; mark("cupy")
from numba import cuda
cuda.current_context(); mark("context")
import cupy as cp; cp.zeros(1).sum(); mark("cupy first op")
from simtviz.backends import create_backend
b = create_backend("gpu", in_process=True); mark("create_backend")
from simtviz.backends.record import gpu as record_gpu
prof = None
if os.environ.get("START_PHASES_PROFILE"):
    import cProfile, pstats
    prof = cProfile.Profile(); prof.enable()
record_gpu.compile_once(b); mark("compile_once")
b.warm_up(); mark("warm_up (rest before ready)")  # compile_once is done: it returns at once
if prof is not None:
    prof.disable()
    for key in ("cumulative", "tottime"):
        pstats.Stats(prof).sort_stats(key).print_stats(35)
mark("ready")
steps = b.warm_ups_after_ready()
t_after = time.perf_counter()
for step in steps:
    t_step = time.perf_counter()
    step.run()
    print(f"  after ready: {step.name:40s} {time.perf_counter()-t_step:6.3f}", flush=True)
print(f"after-ready steps ({len(steps)}) in all      {time.perf_counter()-t_after:6.3f}", flush=True)
mark("after-ready steps done")
"""
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default=os.environ.get("SIMTVIZ_BACKEND", "emu"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="cProfile the GUI thread of one run")
    parser.add_argument("--bare", action="store_true", help="no window: the GPU backend's own phases")
    parser.add_argument("--hide", default="", help="packages not importable (comma-separated), e.g. scipy")
    args = parser.parse_args()
    os.environ["START_PHASES_HIDE"] = args.hide
    if args.hide:
        print(f"hidden from the app: {args.hide}")
    if args.bare:
        for i in range(args.runs):
            print("--- run", i, flush=True)
            # --profile: cProfile of the warm-up before ready (compile_once and the rest), last run only
            # (the first on a fresh machine fills the caches).
            env = dict(os.environ, START_PHASES_PROFILE="1" if args.profile and i == args.runs - 1 else "")
            subprocess.run([sys.executable, "-W", "ignore", "-c", BARE_CHILD], check=False, env=env)
        return
    load = os.getloadavg()[0]
    print(f"{os.cpu_count()} CPUs, load average {load:.1f}, backend {args.backend}, {args.runs} runs")
    if args.profile:
        window_run(args.backend, profile=True)
        return
    runs = [window_run(args.backend, profile=False) for _ in range(args.runs)]
    order: list[str] = []
    seen: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    threads: dict[str, str] = {}
    for marks in runs:
        for label, t, thread, used in marks:
            if label not in seen:
                order.append(label)
            seen.setdefault(label, []).append(t)
            cpu.setdefault(label, []).append(used)
            threads[label] = thread or threads.get(label, "")
    order.sort(key=lambda label: statistics.median(seen[label]))
    # CPU: the app process's own (all its threads), since it started: steadier on a busy machine.
    head = f"{'median':>7} {'min':>6} {'max':>6} {'CPU':>6}  thread"
    print(f"{'phase ends (s since the process started)':<44} {head}")
    for label in order:
        values = seen[label]
        median, low, high = statistics.median(values), min(values), max(values)
        used = statistics.median(cpu[label])
        print(f"{label:<44} {median:7.3f} {low:6.3f} {high:6.3f} {used:6.3f}  {threads[label]}")
    ready = [dict((m[0], m[1]) for m in marks).get("backend ready") for marks in runs]
    median = statistics.median(r for r in ready if r is not None)
    print(f"start → ready: median {median:.3f} s (goal ≤ 2.5 s on the GPU)")


if __name__ == "__main__":
    main()
