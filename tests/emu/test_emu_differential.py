"""The CPU emulator against numba's CUDA simulator, the reference: every trace template, the trace
tests' kernels and the chapter's vecadd give the same log (as a multiset, and per thread in
program order), the same counts (``arrays``, ``lines``, ``shared_lines``, ``oob``) and the same
final arrays. Where they legitimately differ it is a race, and the test says why.

The simulator runs in this process (tests/conftest.py chooses it before numba is imported); the
emulator needs no numba at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simtviz
from emu_compare import assert_same_trace, both
from repo_paths import DATA
from sim_templates import sim_template
from simtviz.core.trace.model import BlockWindow, TraceRequest
from simtviz.core.trace.templates import template, templates

pytestmark = pytest.mark.usefixtures("needs_sim")
DATA = DATA / "trace"
KERNELS = Path(simtviz.__file__).parent / "kernels"
# Templates whose final arrays differ, and why: the simulator runs a block's threads one after
# another, so a read-modify-write never overlaps another; the emulator (like a GPU) runs them in
# lockstep, so threads that read the same bin all store the same incremented value: lost updates.
RACES = {"histogram_racing": "bins[b] += 1 from 8 threads per bin at once: 7 of 8 increments lost"}


@pytest.fixture(scope="module")
def needs_sim(backend_kind: str) -> None:
    if backend_kind != "sim":
        pytest.skip("the simulator is the reference here")


def template_request(name: str, **changes: Any) -> TraceRequest:
    t = template(name)
    fields = {"grid": t.grid, "block": t.block, "args": t.args, "check": t.check, "filename": t.file}
    return TraceRequest(t.source, **(fields | changes))


@pytest.mark.parametrize("name", [t.name for t in templates()])
def test_every_template_traces_as_on_the_simulator(name: str) -> None:
    from simtviz.backends.trace.emu import run_trace_emu

    sim, emu = sim_template(name), run_trace_emu(template_request(name))  # sim: run once per process
    assert_same_trace(sim, emu, outputs=name not in RACES)
    if name in RACES:
        # The counts agree (64 loads, 64 stores, 8 bins with several writers); the bins do not.
        assert sim.check is not None and sim.check.passed
        assert emu.check is not None and not emu.check.passed


def test_racing_histogram_loses_seven_of_eight_increments_and_says_why() -> None:
    # data = 0..63, bins = 8: bin b is read by the 8 threads with data % 8 == b, all at once, all
    # reading 0 and storing 1. 64 stores, 8 survive: 56 lost; bins.sum() == 8, not 64.
    from simtviz.backends.trace.emu import run_trace_emu
    from simtviz.core.trace.report import findings

    emu = run_trace_emu(template_request("histogram_racing"))  # the simulator's: the test above
    assert emu.outputs["bins"].tolist() == [1] * 8
    text = "\n".join(findings(emu))
    assert "Check bins.sum() == data.size: FAILED" in text
    assert "line 15: 56 stores to bins" in text and "one store won" in text
    atomic = run_trace_emu(template_request("histogram_atomic"))
    assert atomic.outputs["bins"].tolist() == [8] * 8 and atomic.check is not None and atomic.check.passed
    assert not any("Lost updates" in n for n in atomic.notes)


def test_a_window_of_blocks_logs_the_same_rows() -> None:
    sim, emu = both(template_request("transpose_naive", window=BlockWindow(1, 2)))
    assert_same_trace(sim, emu)
    assert emu.summary()["window"] == sim.summary()["window"]


@pytest.mark.parametrize(
    ("file", "grid", "block", "args"),
    [
        ("shared_patterns.py", (1, 1, 1), (32, 1, 1), {"A": "float32[32]"}),
        ("shared_oob.py", (2, 1, 1), (32, 1, 1), {"A": "float32[64]:arange", "B": "float32[64]"}),
    ],
)
def test_the_trace_tests_kernels_trace_as_on_the_simulator(
    file: str, grid: tuple[int, int, int], block: tuple[int, int, int], args: dict[str, str]
) -> None:
    source = (DATA / file).read_text(encoding="utf-8")
    assert_same_trace(*both(TraceRequest(source, grid, block, args, filename=file)))


@pytest.mark.parametrize("kernel", ["vecadd", "vecadd_unguarded"])
def test_the_chapters_vecadd_traces_as_on_the_simulator(kernel: str) -> None:
    # N = 1000 with blocks of 256: 1024 threads, the unguarded kernel's 24 extra ones go past.
    source = (KERNELS / "vecadd.py").read_text(encoding="utf-8")
    args = {"A": "float64[1000]:random", "B": "float64[1000]:random", "C": "float64[1000]"}
    sim, emu = both(TraceRequest(source, (4, 1, 1), (256, 1, 1), args, kernel=kernel, filename="vecadd.py"))
    assert_same_trace(sim, emu)
    assert emu.summary()["oob_total"] == (72 if kernel == "vecadd_unguarded" else 0)


# Kernels that exercise what the templates do not: device functions, loops with break and
# continue, 3-D arrays, a 3-D launch, a shared-memory reduction with barriers in a loop.
EXTRA = {
    "device_functions_and_loops": (
        """
from numba import cuda, float32
import math

@cuda.jit(device=True)
def clamp(v, lo, hi):
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v

@cuda.jit
def k(A, B, n):
    i = cuda.grid(1)
    if i >= A.size:
        return
    acc = 0.0
    for j in range(i % 7, n):
        if j % 3 == 0:
            continue
        if acc > 4.5:
            break
        acc += A[(i + j) % A.size] * 0.5
    k2 = 0
    while k2 < i % 5:
        k2 += 1
    B[i] = clamp(acc, 0.25, 3.0) + math.sqrt(float(k2)) + (1.5 if i % 2 else A[i] / 3)
""",
        # float64 arrays: with float32 ones the simulator computes float32 * 0.5 in float32
        # (NumPy 2's rule for a Python float), numba in float64; the emulator follows numba
        # (tests/emu/test_emu_lockstep.py shows the difference).
        (3, 1, 1),
        (64, 1, 1),
        {"A": "float64[150]:random", "B": "float64[150]", "n": "int64:20"},
    ),
    "three_d": (
        """
from numba import cuda

@cuda.jit
def k(A, B):
    x, y, z = cuda.grid(3)
    if x < A.shape[2] and y < A.shape[1] and z < A.shape[0]:
        B[z, y, x] = A[z, y, x] * 2 + A[z, (y + 1) % A.shape[1], x] // 3 - A[z, y, x] % 4
""",
        (2, 2, 2),
        (4, 3, 2),
        {"A": "int32[3,5,7]:arange", "B": "int32[3,5,7]"},
    ),
    "shared_tile_sum": (
        """
from numba import cuda, float64

@cuda.jit
def k(A, out):
    s = cuda.shared.array(64, float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = A[i] if i < A.size else 0.0
    cuda.syncthreads()
    step = 32
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]
""",
        (3, 1, 1),
        (64, 1, 1),
        {"A": "float64[170]:random", "out": "float64[3]"},
    ),
    "atomics_2d_and_shared": (
        """
from numba import cuda, int32

@cuda.jit
def k(data, H, T):
    h = cuda.shared.array((2, 4), int32)
    t = cuda.threadIdx.x
    if t < 8:
        h[t // 4, t % 4] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < data.size:
        v = data[i]
        cuda.atomic.add(H, (v % 3, v % 5), 1)
        cuda.atomic.add(h, (v % 2, v % 4), v)
    cuda.syncthreads()
    if t < 8:
        cuda.atomic.add(T, (cuda.blockIdx.x, t // 4, t % 4), h[t // 4, t % 4])
""",
        (3, 1, 1),
        (64, 1, 1),
        {"data": "int32[150]:arange", "H": "int32[3,5]", "T": "int32[3,2,4]"},
    ),
}


@pytest.mark.parametrize("name", list(EXTRA))
def test_more_kernels_trace_as_on_the_simulator(name: str) -> None:
    source, grid, block, args = EXTRA[name]
    assert_same_trace(*both(TraceRequest(source, grid, block, args, filename=f"{name}.py")))


def test_the_record_kernel_records_what_the_simulator_records() -> None:
    from simtviz.backends.record import RecordRequest
    from simtviz.backends.record.emu import record_in_emulator
    from simtviz.backends.record.sim import record_in_simulator
    from simtviz.core.launch import Dim3, LaunchConfig

    request = RecordRequest(LaunchConfig(Dim3(3, 2, 2), Dim3(5, 3, 2)))
    sim, emu = record_in_simulator(request, None), record_in_emulator(request, None)  # type: ignore[arg-type]
    assert emu.backend == "emu" and emu.verification.matched == emu.verification.total == 360
    assert emu.fields.keys() == sim.fields.keys()
    for name, values in sim.fields.items():
        np.testing.assert_array_equal(emu.fields[name], values, err_msg=name)
    assert (emu.fields["smid"] == -1).all() and (emu.fields["t_ns"] == -1).all()


def test_the_trace_child_process_runs_the_emulator() -> None:
    # The app runs a student's kernel in a killable child: for emu it imports no numba there.
    from simtviz.backends.isolated import run_isolated
    from simtviz.backends.trace.emu import run_trace_emu

    request = template_request("histogram_racing")
    child = run_isolated("emu", "trace", request)
    here = run_trace_emu(request)
    assert child.backend == "emu" and child.summary()["arrays"] == here.summary()["arrays"]
    assert child.outputs["bins"].tolist() == [1] * 8
    assert any(n.startswith("Lost updates (line 15: 56 stores to bins)") for n in child.notes)


def test_a_construct_the_emulator_cannot_run_comes_back_from_the_child_with_its_line() -> None:
    from simtviz.backends.isolated import run_isolated
    from simtviz.core.errors import EmulatorUnsupported

    source = "from numba import cuda\n\n\n@cuda.jit\ndef k(A):\n    i = cuda.grid(1)\n"
    source += "    A[i] = cuda.popc(i)\n"
    with pytest.raises(EmulatorUnsupported) as info:
        run_isolated("emu", "trace", TraceRequest(source, (1, 1, 1), (32, 1, 1), {"A": "int32[32]"}))
    assert (info.value.construct, info.value.line) == ("cuda.popc", 7)


def test_threads_storing_one_flag_collide_without_an_update_being_lost() -> None:
    # 64 threads store flag[0] = 1 and nobody reads it: 63 stores lose to one, all with the
    # same value, so the note says the stores collided, not that updates were lost.
    from simtviz.backends.trace.emu import run_trace_emu

    source = "from numba import cuda\n\n\n@cuda.jit\ndef k(flag):\n    flag[0] = 1\n"
    r = run_trace_emu(TraceRequest(source, (1, 1, 1), (64, 1, 1), {"flag": "int32[1]"}))
    assert r.outputs["flag"].tolist() == [1]
    (note,) = [n for n in r.notes if "store" in n]
    assert note.startswith("Colliding stores (line 6: 63 to flag)") and "Lost updates" not in note


def test_an_integer_division_by_zero_fails_on_its_line_as_on_the_simulator() -> None:
    from simtviz.backends.trace.emu import run_trace_emu
    from simtviz.core.errors import KernelFailed

    source = "from numba import cuda\n\n@cuda.jit\ndef k(A):\n    i = cuda.grid(1)\n    A[i] = 1 // (i - i)\n"
    with pytest.raises(KernelFailed, match="line 6: ZeroDivisionError"):
        run_trace_emu(TraceRequest(source, (1, 1, 1), (4, 1, 1), {"A": "int32[4]"}))
