"""Where a GPU start's time goes, phase by phase, in fresh processes (no window).

    python benchmarks/start_phases.py [runs]      (on a GPU machine)

Prints, for each run, the seconds since start at which each phase ended: the Qt and pyqtgraph
imports, numba and CuPy, the CUDA context, the GPU backend, the record warm-up and the occupancy
facts. The window's start -> ready (benchmarks/first_run_gpu.py) overlaps the first three with
building the window; the rest is the worker's.
"""

import subprocess
import sys

CHILD = r"""
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
from simtviz.backends.record.gpu import warm_up_record
warm_up_record(b); mark("warm_up_record")
from simtviz.backends.schedule.occupancy import gpu_occupancy_facts
gpu_occupancy_facts(); mark("occupancy facts")
"""
for i in range(int(sys.argv[1]) if len(sys.argv) > 1 else 2):
    print("--- run", i, flush=True)
    subprocess.run([sys.executable, "-W", "ignore", "-c", CHILD])
