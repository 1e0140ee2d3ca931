"""Each trace template run once per test process on numba's CUDA simulator, for the test files that
read its result (tests/core/trace/, tests/emu/test_emu_differential.py). A tile transpose's two
1,024-thread blocks take seconds there, and five tests read it. Each caller gets its own deep copy,
so no test sees what another changed."""

from __future__ import annotations

import copy
from functools import cache

from simtviz.core.trace.model import TraceRequest, TraceResult
from simtviz.core.trace.templates import template


def template_request(name: str) -> TraceRequest:
    """The template's own launch, arguments, check and file name: what the Your kernel tab runs."""
    t = template(name)
    return TraceRequest(t.source, t.grid, t.block, t.args, check=t.check, filename=t.file)


@cache
def _run(name: str) -> TraceResult:
    from simtviz.backends.trace.sim import run_trace_sim

    return run_trace_sim(template_request(name))


def sim_template(name: str) -> TraceResult:
    return copy.deepcopy(_run(name))
