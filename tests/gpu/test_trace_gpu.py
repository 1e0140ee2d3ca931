"""On a real GPU: the traced templates give the simulator's counts, and a faulting or endless
kernel ends only its own process.

Run as its own process: ``SIMTVIZ_BACKEND=gpu python -m pytest -m gpu tests/gpu/test_trace_gpu.py``.
Each run below is a child process of its own (``gpu`` or ``sim``), so both backends run here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simtviz.backends.isolated import run_isolated
from simtviz.core.errors import KernelFailed, TimeLimitReached
from simtviz.core.trace.model import BlockWindow, TraceRequest
from simtviz.core.trace.templates import template, templates

pytestmark = pytest.mark.gpu
DATA = (
    Path(__file__).parent.parent / "data" / "trace"
)  # kernels shared with tests/core/trace/test_trace_shared.py
SHARED_KEYS = ("shared_arrays", "shared_lines")  # present only for kernels with shared arrays

# The kernel's own shared arrays are traced (a wrong index is skipped, never performed); one
# inside a device function is not, so this one really writes 400 MB past its tile.
FAULT = """import numba
from numba import cuda


@cuda.jit(device=True)
def far(i, v):
    # the tracer logs the kernel's own shared arrays only, so this one's accesses stay unguarded
    tile = cuda.shared.array(32, numba.float32)
    tile[i + 100_000_000] = v
    # a neighbour's slot, not the one just stored: the compiler can neither forward the store
    # into this load nor drop the store as never read
    return tile[i + 100_000_001] + 1


@cuda.jit
def fault(A):
    i = cuda.grid(1)
    cuda.syncthreads()  # barriers belong in the kernel (the tracer refuses them in far())
    A[i] = far(i, A[i])
"""

ENDLESS = """from numba import cuda


@cuda.jit
def spin(A):
    i = cuda.grid(1)
    while A[0] == 0.0:
        i += 1
"""


def request(name: str, **changes) -> TraceRequest:
    t = template(name)
    fields = dict(grid=t.grid, block=t.block, args=t.args, check=t.check, filename=t.file) | changes
    return TraceRequest(t.source, **fields)


@pytest.mark.parametrize("name", [t.name for t in templates()])
def test_gpu_counts_equal_the_simulators(name: str) -> None:
    gpu = run_isolated("gpu", "trace", request(name)).summary()
    sim = run_isolated("sim", "trace", request(name, time_kernel=False)).summary()
    assert gpu["backend"].startswith("gpu:") and sim["backend"] == "sim"
    for key in ("threads", "accesses", "logged", "oob_total", "oob", "arrays", "lines"):
        if name == "histogram_racing" and key == "arrays":
            # Lost updates make the final bins differ, never the accesses: compare those.
            for a in ("data", "bins"):
                for k in ("loads", "stores", "untouched", "multi_writer"):
                    assert gpu[key][a][k] == sim[key][a][k], (a, k)
            continue
        assert gpu[key] == sim[key], key
    for key in SHARED_KEYS:
        assert gpu.get(key) == sim.get(key), key
    assert gpu["kernel_ms"] is not None and gpu["instrumented_ms"] is not None


@pytest.mark.parametrize(("name", "read_waves"), [("transpose_tile", 32.0), ("transpose_tile_padded", 1.0)])
def test_tile_transposes_on_the_gpu_have_the_simulators_bank_conflicts(name: str, read_waves: float) -> None:
    # Hand-worked in tests/core/trace/test_trace_shared.py: 64 requests per line; the unpadded column read
    # takes 32 wavefronts per request, the padded one 1; the row writes 1.
    r = run_isolated("gpu", "trace", request(name))
    rows = {row["kind"]: row for row in r.summary()["shared_lines"]}
    assert rows["load"]["requests"] == rows["store"]["requests"] == 64
    assert rows["load"]["wavefronts_per_request"] == read_waves
    assert rows["store"]["wavefronts_per_request"] == 1.0
    assert r.check is not None and r.check.passed


@pytest.mark.parametrize(
    ("file", "grid", "block", "args"),
    [
        ("shared_patterns.py", (1, 1, 1), (32, 1, 1), {"A": "float32[32]"}),
        ("shared_oob.py", (2, 1, 1), (32, 1, 1), {"A": "float32[64]:arange", "B": "float32[64]"}),
    ],
)
def test_shared_patterns_and_out_of_bounds_give_the_simulators_counts(
    file: str, grid: tuple, block: tuple, args: dict
) -> None:
    source = (DATA / file).read_text(encoding="utf-8")
    gpu = run_isolated("gpu", "trace", TraceRequest(source, grid, block, args, filename=file))
    sim = run_isolated(
        "sim", "trace", TraceRequest(source, grid, block, args, filename=file, time_kernel=False)
    )
    g, s = gpu.summary(), sim.summary()
    for key in ("accesses", "logged", "oob_total", "oob", "arrays", "lines", *SHARED_KEYS):
        assert g[key] == s[key], key
    for name, values in sim.outputs.items():
        np.testing.assert_array_equal(gpu.outputs[name], values)  # the skipped accesses too
    if file == "shared_oob.py":
        # shared memory has no guard: the kernel as written is not timed, the traced one is
        assert g["oob_total"] == 4 and g["kernel_ms"] is None and g["instrumented_ms"] is not None
        assert any("was not timed" in note for note in gpu.notes)


def test_transpose_on_the_gpu_has_4_and_16_sectors_per_request() -> None:
    lines = {
        (r["array"], r["kind"]): r
        for r in run_isolated("gpu", "trace", request("transpose_naive")).summary()["lines"]
    }
    assert lines[("A", "load")]["sectors_per_request"] == 4.0
    assert lines[("B", "store")]["sectors_per_request"] == 16.0


def test_an_illegal_address_fails_the_run_and_the_next_run_works() -> None:
    bad = TraceRequest(FAULT, (4, 1, 1), (32, 1, 1), {"A": "float32[128]"})
    with pytest.raises(KernelFailed) as info:
        run_isolated("gpu", "trace", bad)
    assert not info.value.needs_restart
    s = run_isolated("gpu", "trace", request("vecadd_unguarded")).summary()
    assert s["oob_total"] == 72


def test_an_endless_loop_stops_at_the_time_limit_and_the_next_run_works() -> None:
    spin = TraceRequest(ENDLESS, (1, 1, 1), (32, 1, 1), {"A": "float32[4]"}, time_limit_s=3)
    with pytest.raises(TimeLimitReached):
        run_isolated("gpu", "trace", spin)
    assert run_isolated("gpu", "trace", request("vecadd_guarded")).summary()["oob_total"] == 0


def test_unguarded_vecadd_issue_size_logs_735_out_of_bounds() -> None:
    # N = 2^20 + 11, block 256: grid 4097 → 1,048,832 threads, 245 past the end, 3 accesses each.
    n = (1 << 20) + 11
    req = request(
        "vecadd_unguarded",
        grid=(4097, 1, 1),
        args={"A": f"float32[{n}]:random", "B": f"float32[{n}]:random", "C": f"float32[{n}]"},
        budget=1 << 22,
    )
    r = run_isolated("gpu", "trace", req)
    assert r.summary()["oob_total"] == 735 and r.check is not None and r.check.passed


# (template, window, accesses of the launch, logged, out of bounds), worked out by hand in
# tests/backends/trace/test_trace_window.py: the last block of vecadd and of the 2-D swapped add,
# one transpose block.
WINDOWS = [
    ("vecadd_unguarded", BlockWindow(3, 1), 3072, 768, 72),
    ("matadd_swapped", BlockWindow(3, 1), 180, 12, 12),
    ("transpose_naive", BlockWindow(1, 1), 2048, 512, 0),
]


@pytest.mark.parametrize(("name", "window", "accesses", "logged", "oob"), WINDOWS)
def test_a_window_gives_the_simulators_counts(
    name: str, window: BlockWindow, accesses: int, logged: int, oob: int
) -> None:
    gpu = run_isolated("gpu", "trace", request(name, window=window)).summary()
    sim = run_isolated("sim", "trace", request(name, window=window, time_kernel=False)).summary()
    assert (gpu["accesses"], gpu["logged"], gpu["oob_total"]) == (accesses, logged, oob)
    assert gpu["window"]["accesses"] == logged
    for key in ("threads", "accesses", "logged", "oob_total", "oob", "arrays", "lines", "window"):
        assert gpu[key] == sim[key], key
    for key in SHARED_KEYS:
        assert gpu.get(key) == sim.get(key), key
    assert gpu["kernel_ms"] is not None and gpu["instrumented_ms"] is not None  # timed with the window


def test_issue_size_vecadd_window_on_the_last_block_logs_its_245_surplus_threads() -> None:
    # N = 2^20 + 11, grid 4097 × 256 = 1,048,832 threads, 3 accesses each = 3,146,496 (more than
    # the default budget of 2,097,152). Block 4096 (threads 1,048,576 .. 1,048,831) makes 768;
    # its 245 threads past N make all 735 out-of-bounds accesses.
    n = (1 << 20) + 11
    req = request(
        "vecadd_unguarded",
        grid=(4097, 1, 1),
        args={"A": f"float32[{n}]:random", "B": f"float32[{n}]:random", "C": f"float32[{n}]"},
        window=BlockWindow(4096, 1),
    )
    r = run_isolated("gpu", "trace", req)
    s = r.summary()
    assert (s["accesses"], s["logged"], s["oob_total"]) == (3_146_496, 768, 735)
    assert r.check is not None and r.check.passed
    head = "logged 768 of 3,146,496 accesses: threads in window: block 4,096 of 4,097 (256 threads); "
    assert any(note.startswith(head) for note in r.notes), r.notes
