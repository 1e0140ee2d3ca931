"""The simulator's rate table (core/estimates.py) against measured runs, and the 1 M-thread estimate.

    python benchmarks/sim_rates.py [threads ...]    (default: 8192 32768)

Runs the index map's recording kernel and the guide's vector add on numba's CUDA simulator at
each size, in this process (as the CLI does), and prints measured threads per second next to
what ``core.estimates`` predicts. The simulator runs one Python thread per CUDA thread, block
after block, so its time grows linearly with threads: a rate that holds from 8,192 to 32,768
threads extrapolates to 2^20 (~1 M) threads as threads / rate. The last lines print both
experiments' estimates for 2^20 threads and the extrapolated measurement, which must agree.
"""

from __future__ import annotations

import os
import sys
import time

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

from simtviz.backends.sim import SimBackend
from simtviz.backends.vecadd.sim import run_vecadd_sim
from simtviz.core.estimates import estimate_seconds, format_duration, threads_per_second
from simtviz.core.launch import LaunchConfig
from simtviz.core.vecadd import VecaddRequest

MILLION = 1 << 20


def record_seconds(threads: int) -> float:
    backend = SimBackend()
    config = LaunchConfig.of(max(1, threads // 256), 256)
    t0 = time.perf_counter()
    recording = backend.record(config, force=True)
    assert recording.verification is not None and recording.verification.ok
    return time.perf_counter() - t0


def vecadd_seconds(threads: int) -> float:
    request = VecaddRequest(n=threads, block=256, repeat=1, force=True)
    t0 = time.perf_counter()
    result = run_vecadd_sim(request)
    assert result.ok
    return time.perf_counter() - t0


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [8192, 32768]
    record_seconds(256)  # numba's simulator imports and first-launch costs, paid once
    vecadd_seconds(256)
    print(f"{os.cpu_count()} CPUs; rates in simulated threads per second")
    print(f"{'experiment':10} {'threads':>8} {'seconds':>8} {'measured':>9} {'table':>7} {'estimate':>9}")
    measured: dict[str, float] = {}
    for name, fn in (("record", record_seconds), ("vecadd", vecadd_seconds)):
        for threads in sizes:
            seconds = fn(threads)
            rate = threads / seconds
            measured[name] = rate  # the largest size's rate extrapolates best
            estimate = estimate_seconds("sim", threads, name)
            print(
                f"{name:10} {threads:8,} {seconds:8.2f} {rate:9,.0f} "
                f"{threads_per_second('sim', name):7,.0f} {estimate:8.1f}s"
            )
    print(f"\n2^20 = {MILLION:,} simulated threads:")
    for name, rate in measured.items():
        print(
            f"  {name:8} estimate {format_duration(estimate_seconds('sim', MILLION, name)):>7}, "
            f"measured here (extrapolated, {rate:,.0f}/s) {format_duration(MILLION / rate):>7}"
        )


if __name__ == "__main__":
    main()
