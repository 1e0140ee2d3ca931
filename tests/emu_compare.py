"""Comparing a traced run on the CPU emulator with numba's simulator's (tests/test_emu_*.py)."""

from __future__ import annotations

import numpy as np

from simtviz.core.trace.analysis import F_THREAD
from simtviz.core.trace.model import TraceRequest, TraceResult

COUNT_KEYS = ("accesses", "logged", "oob_total", "oob", "arrays", "lines", "shared_arrays", "shared_lines")


def both(request: TraceRequest) -> tuple[TraceResult, TraceResult]:
    from simtviz.backends.trace.emu import run_trace_emu
    from simtviz.backends.trace.sim import run_trace_sim

    return run_trace_sim(request), run_trace_emu(request)


def by_thread(log: np.ndarray) -> np.ndarray:
    """Rows grouped by thread, each thread's in the order it logged them (its program order)."""
    return log[:, np.argsort(log[F_THREAD], kind="stable")]


def assert_same_trace(sim: TraceResult, emu: TraceResult, outputs: bool = True) -> None:
    s, e = sim.summary(), emu.summary()
    for key in COUNT_KEYS:
        assert e.get(key) == s.get(key), key
    np.testing.assert_array_equal(by_thread(emu.log), by_thread(sim.log))
    assert emu.backend == "emu" and e["kernel_ms"] is None and e["instrumented_ms"] is None
    if outputs:
        assert emu.outputs.keys() == sim.outputs.keys()
        for name in sim.outputs:
            np.testing.assert_array_equal(emu.outputs[name], sim.outputs[name], err_msg=name)
        assert (emu.check and emu.check.passed) == (sim.check and sim.check.passed)
