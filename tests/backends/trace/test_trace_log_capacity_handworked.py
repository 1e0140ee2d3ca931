"""A kernel whose threads make many accesses each is logged whole on the simulator and the
emulator, up to the budget, as on the GPU: the log was once cut at 64 rows per thread, so a loop's
later accesses (and their out-of-bounds ones) went missing, in an order that differed between the
two backends, under a note that said raising the budget would help (it did not)."""

from __future__ import annotations

import pytest

from simtviz.core.trace.model import TraceRequest

# Each of 32 threads loads A 100 times (j = 0 .. 99) at A[i + j]: 3,200 loads, 50 per thread
# more than the 64-row cap allowed. A has 100 elements, so thread i's loads go out of bounds
# for j >= 100 - i: i of them per thread, 0 + 1 + … + 31 = 496 in all.
LOOP = """from numba import cuda


@cuda.jit
def k(A, B):
    i = cuda.threadIdx.x
    acc = 0.0
    for j in range(100):
        acc += A[i + j]
    B[i] = acc
"""


def request(budget: int | None = None) -> TraceRequest:
    extra = {} if budget is None else {"budget": budget}
    return TraceRequest(LOOP, (1, 1, 1), (32, 1, 1), {"A": "float32[100]", "B": "float32[32]"}, **extra)


def run(kind: str, req: TraceRequest):  # type: ignore[no-untyped-def]
    if kind == "sim":
        from simtviz.backends.trace.sim import run_trace_sim

        return run_trace_sim(req)
    from simtviz.backends.trace.emu import run_trace_emu

    return run_trace_emu(req)


@pytest.mark.parametrize("kind", ["sim", "emu"])
def test_every_access_of_a_long_loop_is_logged(kind: str, backend_kind: str) -> None:
    if kind == "sim" and backend_kind != "sim":
        pytest.skip("numba's simulator runs in a simulated process only")
    result = run(kind, request())
    s = result.summary()
    # 3,200 loads + 32 stores of B = 3,232 accesses, all logged; 496 loads out of bounds
    assert s["accesses"] == 3232 and s["logged"] == 3232
    assert s["oob_total"] == 496
    assert not any("raise the budget" in note for note in result.notes)


@pytest.mark.parametrize("kind", ["sim", "emu"])
def test_a_budget_below_the_accesses_still_stops_the_log_and_says_so(kind: str, backend_kind: str) -> None:
    if kind == "sim" and backend_kind != "sim":
        pytest.skip("numba's simulator runs in a simulated process only")
    result = run(kind, request(budget=1000))
    s = result.summary()
    assert s["accesses"] == 3232 and s["logged"] == 1000
    assert any("1,000 of 3,232" in note for note in result.notes)
