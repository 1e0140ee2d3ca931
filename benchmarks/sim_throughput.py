"""Simulator throughput: simtviz's sim backends against a bare NUMBA_ENABLE_CUDASIM launch.

    python benchmarks/sim_throughput.py [threads]

The bare launch runs the same kernel on NumPy arrays with nothing around it. simtviz adds the
limit checks, -1 filling, verification against the oracle and, for the desktop app's backend,
the child process and sending the record back over a pipe. Target: overhead ≤ 10 %.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"


from simtviz.backends.record.sim import window_array
from simtviz.backends.sim import SimBackend
from simtviz.backends.sim_process import SimProcessBackend
from simtviz.core.launch import LaunchConfig
from simtviz.core.schema import RECORD_FIELDS, allocate
from simtviz.core.window import Window


def bare(config: LaunchConfig) -> float:
    from simtviz.kernels.record import record_threads

    window = Window.full(config)
    fields = allocate(window.threads)
    args = [fields[name] for name in RECORD_FIELDS] + [window_array(window), np.zeros(1, dtype=np.int64)]
    start = time.perf_counter()
    record_threads[config.grid.as_tuple(), config.block.as_tuple()](*args)
    return time.perf_counter() - start


def timed(fn, config: LaunchConfig) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    recording = fn(config)
    assert recording.verification.ok
    return time.perf_counter() - start


def main() -> None:
    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
    config = LaunchConfig.of(max(1, threads // 256), 256)
    in_process = SimBackend()
    child = SimProcessBackend()
    child.warm_up()
    bare(LaunchConfig.of(1, 32))
    in_process.record(LaunchConfig.of(1, 32))
    child.record(LaunchConfig.of(1, 32))
    rows = {
        "bare NUMBA_ENABLE_CUDASIM launch": [],
        "simtviz sim (in process, CLI)": [],
        "simtviz sim (child process, app)": [],
    }
    for _ in range(5):  # interleaved, so drift in the machine's load hits all three alike
        rows["bare NUMBA_ENABLE_CUDASIM launch"].append(bare(config))
        rows["simtviz sim (in process, CLI)"].append(timed(in_process.record, config))
        rows["simtviz sim (child process, app)"].append(timed(child.record, config))
    child.shutdown()
    base = statistics.median(rows["bare NUMBA_ENABLE_CUDASIM launch"])
    print(f"{config.total_threads:,} threads ({config.launch_line()}), medians of 5, {os.cpu_count()} CPUs")
    print(f"{'':36} {'seconds':>8} {'threads/s':>10} {'overhead':>9}")
    for name, values in rows.items():
        med = statistics.median(values)
        print(f"{name:36} {med:8.3f} {config.total_threads / med:10,.0f} {100 * (med / base - 1):8.1f}%")


if __name__ == "__main__":
    main()
