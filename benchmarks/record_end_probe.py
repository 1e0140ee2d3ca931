"""Probe: the recording kernel's GPU time, timed alone behind a hold kernel (as the app does) and
as the median of a back-to-back batch (GpuTimer.batch, as vecadd does), against the threads' own
clock from the first start to the last block's end.

    python benchmarks/record_end_probe.py      (GPU)
"""

from __future__ import annotations

import statistics

import cupy as cp
import numpy as np

from simtviz.backends.gpu_timing import GpuTimer
from simtviz.core.schema import RECORD_FIELDS, allocate
from simtviz.kernels.record import record_threads


def main() -> None:
    timer = GpuTimer(cp)
    head = ("threads", "alone µs", "batch µs", "starts", "ran", "alone/ran", "batch/ran")
    print(" ".join(f"{h:>10}" for h in head))
    for blocks in (4096, 16384, 65536):
        n = blocks * 256
        fields = allocate(n, cp)
        win = cp.asarray(np.array([0, 0, 0, n, 1, 1], dtype=np.int64))
        ended = cp.zeros(1, dtype=cp.int64)
        args = [*(fields[k] for k in RECORD_FIELDS), win, ended]

        def launch() -> None:
            record_threads[blocks, 256](*args)  # noqa: B023

        alone, starts, ran = [], [], []
        for _ in range(8):
            ended.fill(0)
            timer.hold(1_000_000)
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            launch()
            b.record()
            b.synchronize()
            alone.append(cp.cuda.get_elapsed_time(a, b) * 1000)
            t = fields["t_ns"]
            first = int(t.min().item())
            starts.append((int(t.max().item()) - first) / 1e3)
            ran.append((int(ended.get()[0]) - first) / 1e3)
        batch = timer.batch(launch, 5).median_ms * 1000
        al, st, rn = (statistics.median(c[1:]) for c in (alone, starts, ran))
        print(
            " ".join(
                f"{v:10.3f}" if isinstance(v, float) else f"{v:10d}"
                for v in (n, al, batch, st, rn, al / rn, batch / rn)
            )
        )


if __name__ == "__main__":
    main()
