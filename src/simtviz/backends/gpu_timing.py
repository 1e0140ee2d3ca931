"""GPU time of a kernel without the host's launch cost, for every experiment that reports one.

A numba launch with CuPy arguments costs ≈94 µs of host time, about as long as a small kernel,
so CUDA events around one launch time the host too. Here a hold kernel keeps the GPU busy while
the host queues all launches with an event between each; the GPU then runs them back to back
and each event interval is one kernel's GPU time. The host's cost per launch is measured too.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

HOLD_START_NS = 2_000_000
HOLD_PER_LAUNCH_NS = 400_000  # generous: a numba launch costs ≈30–100 µs of host time, an event ≈5 µs
HOLD_ATTEMPTS = 4


@dataclass
class BatchTiming:
    """Per-launch GPU times (ms) and host times (µs) of one batch queued behind the hold kernel."""

    gpu_ms: list[float]
    host_us: list[float]
    gpu_stayed_busy: bool

    @property
    def median_ms(self) -> float:
        return statistics.median(self.gpu_ms)

    @property
    def host_median_us(self) -> float:
        return statistics.median(self.host_us)


class GpuTimer:
    """Times GPU work with events while a hold kernel keeps the GPU busy (see the module doc)."""

    def __init__(self, cp: Any) -> None:
        from simtviz.kernels.busy import hold_gpu

        self._cp = cp
        self._hold = hold_gpu
        self._hold[1, 1](0)  # compile now, not inside a timed batch
        cp.cuda.Device().synchronize()
        self.hold_ns_per_launch = HOLD_PER_LAUNCH_NS

    def hold(self, duration_ns: int) -> None:
        """Queue the hold kernel: the GPU stays busy for ``duration_ns`` while the host queues more."""
        self._hold[1, 1](duration_ns)

    def batch(self, launch: Callable[[], Any], count: int) -> BatchTiming:
        cp = self._cp
        events = [cp.cuda.Event() for _ in range(count + 1)]
        launch()  # warm: first calls compile (numba's JIT, CuPy's elementwise kernels)
        cp.cuda.Device().synchronize()
        timing = BatchTiming([], [], False)
        for _ in range(HOLD_ATTEMPTS):
            self._hold[1, 1](HOLD_START_NS + count * self.hold_ns_per_launch)
            events[0].record()
            host = []
            for event in events[1:]:
                t0 = time.perf_counter()
                launch()
                host.append((time.perf_counter() - t0) * 1e6)
                event.record()
            # Still waiting at the first event once everything is queued: the GPU never idled.
            busy = not events[0].done
            events[-1].synchronize()
            gpu = [cp.cuda.get_elapsed_time(events[i], events[i + 1]) for i in range(count)]
            timing = BatchTiming(gpu, host, busy)
            if busy:
                break
            self.hold_ns_per_launch *= 4
        return timing
