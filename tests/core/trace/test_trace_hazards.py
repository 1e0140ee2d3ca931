"""Hazards: accesses of one block to one element that no cuda.syncthreads() separates, found from
each access's barrier count (its epoch) on the simulator. Every expected number is worked out by
hand in the comments."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

from simtviz.core.trace.hazards import hazard_words, thread_words
from simtviz.core.trace.model import TraceRequest, TraceResult
from simtviz.core.trace.report import findings
from simtviz.core.trace.templates import template

pytestmark = pytest.mark.usefixtures("needs_sim")


@pytest.fixture(scope="module")
def needs_sim(backend_kind: str) -> None:
    if backend_kind != "sim":
        pytest.skip("runs the traced kernel in this process on the simulator")


def run(source: str, grid: int, block: int, args: dict[str, str]) -> TraceResult:
    from simtviz.backends.trace.sim import run_trace_sim

    request = TraceRequest(textwrap.dedent(source), (grid, 1, 1), (block, 1, 1), args, filename="k.py")
    return run_trace_sim(request)


def hazards(result: TraceResult) -> list[tuple[str, str, int, int, int]]:
    return [
        (h["array"], h["kind"], h["line_first"], h["line_second"], h["count"])
        for h in result.summary()["hazards"]
    ]


SHIFT = """\
from numba import cuda


@cuda.jit
def shift(A, B):
    i = cuda.threadIdx.x
    A[i] = i
    {sync}
    if i + 1 < A.size:
        B[i] = A[i + 1]
"""


def test_a_store_then_a_neighbours_load_without_a_barrier_is_read_after_write() -> None:
    r = run(SHIFT.format(sync="pass"), 1, 8, {"A": "float32[8]", "B": "float32[8]"})
    # thread i stores A[i] (line 7); thread i - 1 loads it (line 10) for i = 1..7: 7 elements
    assert hazards(r) == [("A", "read-after-write", 7, 10, 7)]
    ex = r.summary()["hazards"][0]["example"]
    # the first such element is A[1]: thread 1 writes it, thread 0 reads it
    assert (ex["index"], ex["writer"], ex["reader"]) == ([1], 1, 0)
    text = hazard_words(r.analysis.hazards[0], [1, 1, 1], [8, 1, 1])
    assert (
        "line 7" in text and "line 10" in text and "cuda.syncthreads() after line 7, before line 10" in text
    )
    assert any(line.startswith("Race (read-after-write) on A") for line in findings(r))


def test_the_barrier_between_them_removes_the_hazard() -> None:
    r = run(SHIFT.format(sync="cuda.syncthreads()"), 1, 8, {"A": "float32[8]", "B": "float32[8]"})
    assert hazards(r) == []
    assert r.log[7].max() == 1  # epoch: every access after the barrier carries 1


def test_blocks_are_never_compared() -> None:
    # every thread stores A[0]: 4 threads of block 0 collide, 4 of block 1 collide; no barrier
    # orders blocks, so the pairs are counted per block: 2 groups, one per block
    src = """\
    from numba import cuda


    @cuda.jit
    def one(A):
        A[0] = cuda.threadIdx.x
    """
    r = run(src, 2, 4, {"A": "int32[1]"})
    assert hazards(r) == [("A", "write-after-write", 6, 6, 2)]
    ex = r.summary()["hazards"][0]["example"]
    assert ex["threads"] == [0, 3]  # block 0's smallest and largest thread


def test_the_racing_histogram_and_the_atomic_one() -> None:
    t = template("histogram_racing")
    from simtviz.backends.trace.sim import run_trace_sim

    r = run_trace_sim(TraceRequest(t.source, t.grid, t.block, t.args, filename=t.file))
    line = next(n for n, text in enumerate(t.source.splitlines(), 1) if "+= 1" in text)
    # data = arange(64) into 8 bins: each bin is loaded and stored by 8 threads of the one block
    assert hazards(r) == [
        ("bins", "write-after-read", line, line, 8),
        ("bins", "write-after-write", line, line, 8),
    ]
    assert "cuda.atomic.add" in hazard_words(r.analysis.hazards[0], [1, 1, 1], [64, 1, 1])
    a = template("histogram_atomic")
    assert hazards(run_trace_sim(TraceRequest(a.source, a.grid, a.block, a.args, filename=a.file))) == []


LOOP = """\
from numba import cuda, float32


@cuda.jit
def smooth(A):
    tile = cuda.shared.array(8, float32)
    i = cuda.threadIdx.x
    for step in range(2):
        tile[i] = A[i] + step
        cuda.syncthreads()
        A[i] = tile[(i + 1) % 8]
        {end}
"""


def test_a_loop_without_its_closing_barrier_is_write_after_read_across_passes() -> None:
    r = run(LOOP.format(end="pass"), 1, 8, {"A": "float32[8]"})
    # pass 1's store (line 9) meets pass 0's load (line 11) in the same epoch (1): thread i
    # stores tile[i], thread i - 1 read it; all 8 elements (the wrap-around included)
    assert hazards(r) == [("tile", "write-after-read", 11, 9, 8)]
    h = r.summary()["hazards"][0]
    assert h["loop_carried"] is True
    assert "after line 11" in hazard_words(r.analysis.hazards[0], [1, 1, 1], [8, 1, 1])
    fixed = run(LOOP.format(end="cuda.syncthreads()"), 1, 8, {"A": "float32[8]"})
    assert hazards(fixed) == []


def test_stencil_template_without_its_barrier_names_both_lines() -> None:
    from simtviz.backends.trace.sim import run_trace_sim

    t = template("stencil_shared")
    src = t.source.replace("    cuda.syncthreads()\n", "    pass\n")
    r = run_trace_sim(TraceRequest(src, t.grid, t.block, t.args, filename=t.file))
    lines = t.source.splitlines()
    store = next(n for n, text in enumerate(lines, 1) if "tile[t] = X[i]" in text)
    load = next(n for n, text in enumerate(lines, 1) if "total = tile" in text)
    first: dict[str, Any] = r.summary()["hazards"][0]
    # 4 blocks × 128 tile elements written at the store line and read by a neighbour
    assert (first["array"], first["kind"], first["line_first"], first["line_second"], first["count"]) == (
        "tile", "read-after-write", store, load, 512,
    )  # fmt: skip
    assert first["space"] == "shared"
    ok = run_trace_sim(TraceRequest(t.source, t.grid, t.block, t.args, filename=t.file))
    assert ok.summary()["hazards"] == []


def test_thread_words_name_blockidx_and_threadidx() -> None:
    # thread 37 of blocks of 16: block 2, threadIdx 5
    assert thread_words(37, [4, 1, 1], [16, 1, 1]) == "thread 37 (blockIdx 2, threadIdx 5)"
    # 2-D: blocks of 4×2 = 8 threads, grid 3×2: thread 29 is block 3 = (0, 1), inner 5 = (1, 1)
    assert thread_words(29, [3, 2, 1], [4, 2, 1]) == "thread 29 (blockIdx (0, 1), threadIdx (1, 1))"


def test_every_syncthreads_statement_counts_and_a_hidden_one_is_refused() -> None:
    from simtviz.core.trace.rewrite import rewrite_kernel
    from simtviz.core.trace.source import TraceUnsupported

    src = textwrap.dedent(
        """\
        from numba import cuda
        from numba.cuda import syncthreads


        @cuda.jit
        def k(A):
            cuda.syncthreads()
            A[0] = 1
            syncthreads()
        """
    )
    rw = rewrite_kernel(src, arrays={"A": 1})
    assert rw.barrier_lines == (7, 9)
    assert rw.source.count("_tv_epoch = _tv_sync(_tv_epoch)") == 2
    hidden = textwrap.dedent(
        """\
        from numba import cuda


        @cuda.jit(device=True)
        def wait():
            cuda.syncthreads()


        @cuda.jit
        def k(A):
            A[0] = 1
            wait()
        """
    )
    with pytest.raises(TraceUnsupported, match=r"line 12: wait\(\) calls cuda.syncthreads\(\) \(line 6\)"):
        rewrite_kernel(hidden, arrays={"A": 1})
