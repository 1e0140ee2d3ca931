"""Generated kernels on the CPU emulator and on numba's simulator: the same log, counts and
arrays. Hypothesis writes kernels from random index expressions (out of bounds included: the
tracer skips those accesses on both), guards, loops with per-thread bounds, ``break`` /
``continue``, device functions and shared tiles behind a barrier.

Values stay small integers (int32 arrays): no float rounding or overflow rule can differ, and
scattered updates go through ``cuda.atomic.add`` (commutative), so the final arrays do not
depend on the order of threads either.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emu_compare import assert_same_trace, both
from simtviz.core.trace.model import TraceRequest

pytestmark = pytest.mark.usefixtures("needs_sim")

N = 96  # elements of A and B
TPB = 32


@pytest.fixture(scope="module")
def needs_sim(backend_kind: str) -> None:
    if backend_kind != "sim":
        pytest.skip("the simulator is the reference here")


@st.composite
def index(draw: st.DrawFn, var: str = "i") -> str:
    """An integer index expression of thread values; may fall outside the arrays."""
    a = draw(st.integers(-2, 3))
    b = draw(st.integers(-3, 40))
    form = draw(st.sampled_from(["affine", "mod", "div", "tid", "min"]))
    if form == "affine":
        return f"{a} * {var} + {b}"
    if form == "mod":
        return f"({var} * {a or 1} + {b}) % {draw(st.integers(1, N + 8))}"
    if form == "div":
        return f"{var} // {draw(st.integers(1, 4))} + {b}"
    if form == "tid":
        return f"cuda.threadIdx.x + {b} * cuda.blockIdx.x"
    return f"min({var} + {b}, {draw(st.integers(0, N))})"


@st.composite
def statement(draw: st.DrawFn, depth: int = 0) -> list[str]:
    kinds = ["load", "atomic", "store_own"] + (["if", "for", "while"] if depth < 2 else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "load":
        return [f"acc += A[{draw(index())}] % 7"]
    if kind == "atomic":
        return [f"cuda.atomic.add(B, {draw(index())}, acc % 5 + 1)"]
    if kind == "store_own":
        return ["if i < C.size:", "    C[i] = acc + C[i]"]
    body = [f"    {line}" for s in draw(st.lists(statement(depth + 1), min_size=1, max_size=3)) for line in s]
    if kind == "if":
        cond = draw(
            st.sampled_from(["i < A.size", f"i % {draw(st.integers(2, 5))} == 0", "acc > 3", "i >= 17"])
        )
        lines = [f"if {cond}:", *body]
        if draw(st.booleans()):
            lines += ["else:", f"    acc += {draw(st.integers(0, 3))}"]
        return lines
    if kind == "for":
        var = f"j{depth}"
        bound = draw(st.sampled_from(["3", "i % 4", "cuda.threadIdx.x % 3 + 1"]))
        extra = draw(
            st.sampled_from(["", "    if acc > 20:\n        break", f"    if {var} == 1:\n        continue"])
        )
        lines = [f"for {var} in range({bound}):", *[e for e in extra.split("\n") if e], *body]
        return lines
    var = f"w{depth}"
    return [f"{var} = 0", f"while {var} < i % 3:", f"    {var} += 1", *body]


@st.composite
def kernel(draw: st.DrawFn) -> str:
    body = [line for s in draw(st.lists(statement(), min_size=1, max_size=5)) for line in s]
    # i: the thread's linear id in the grid, whatever the block's shape (each thread its own C[i])
    lines = [
        "t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)",
        "i = t + cuda.blockIdx.x * TPB",
        "acc = 0",
    ]
    if draw(st.booleans()):  # a shared tile behind a barrier
        lines += [
            "s = cuda.shared.array(TPB, int32)",
            f"s[t] = A[{draw(index())}]",
            "cuda.syncthreads()",
            f"acc += s[({draw(index('t'))}) % TPB]",
        ]
    if draw(st.booleans()):
        lines += ["acc = twice(acc)"]
    lines += body
    text = "\n".join(f"    {line}" for line in lines)
    return (
        "from numba import cuda, int32\n\nTPB = 32\n\n\n@cuda.jit(device=True)\ndef twice(v):\n"
        "    if v > 50:\n        return v\n    return 2 * v\n\n\n"
        f"@cuda.jit\ndef k(A, B, C):\n{text}\n"
    )


@settings(
    max_examples=int(os.environ.get("SIMTVIZ_EMU_EXAMPLES", "25")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    source=kernel(),
    blocks=st.integers(1, 4),
    block=st.sampled_from([(TPB, 1, 1), (8, 4, 1), (4, 4, 2)]),
)
def test_generated_kernels_trace_as_on_the_simulator(
    source: str, blocks: int, block: tuple[int, int, int]
) -> None:
    args = {"A": f"int32[{N}]:arange", "B": f"int32[{N}]", "C": f"int32[{N}]"}
    request = TraceRequest(source, (blocks, 1, 1), block, args, filename="generated.py")
    sim, emu = both(request)
    assert_same_trace(sim, emu)
    assert np.asarray(emu.outputs["B"]).dtype == np.int32
