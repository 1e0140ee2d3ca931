"""On a real GPU: the CPU emulator gives the GPU's trace counts for every template, and records
what the GPU records (except the SM and the clock, which the emulator cannot know: -1).

Run as its own process: ``SIMTVIZ_BACKEND=gpu python -m pytest -m gpu tests/gpu/test_emu_gpu.py``.
The GPU side runs in the traced kernel's child process; the emulator runs here (no numba).
"""

from __future__ import annotations

import numpy as np
import pytest

from simtviz.backends.isolated import run_isolated
from simtviz.backends.trace.emu import run_trace_emu
from simtviz.core.trace.analysis import F_THREAD
from simtviz.core.trace.model import TraceRequest
from simtviz.core.trace.templates import template, templates

pytestmark = pytest.mark.gpu
COUNT_KEYS = ("accesses", "logged", "oob_total", "oob", "arrays", "lines", "shared_arrays", "shared_lines")


def request(name: str) -> TraceRequest:
    t = template(name)
    return TraceRequest(t.source, t.grid, t.block, t.args, check=t.check, filename=t.file, time_kernel=False)


@pytest.mark.parametrize("name", [t.name for t in templates()])
def test_every_template_gives_the_gpus_counts_on_the_emulator(name: str) -> None:
    gpu, emu = run_isolated("gpu", "trace", request(name)), run_trace_emu(request(name))
    g, e = gpu.summary(), emu.summary()
    for key in COUNT_KEYS:
        assert e.get(key) == g.get(key), key
    by_thread = [log[:, np.argsort(log[F_THREAD], kind="stable")] for log in (gpu.log, emu.log)]
    np.testing.assert_array_equal(by_thread[1], by_thread[0])
    if name == "histogram_racing":
        # Both lose updates (which ones on the GPU depends on its warps' timing): both checks fail.
        assert gpu.check is not None and emu.check is not None
        assert not gpu.check.passed and not emu.check.passed
        return
    for array, values in gpu.outputs.items():
        np.testing.assert_array_equal(emu.outputs[array], values, err_msg=array)


def test_the_emulator_records_what_the_gpu_records_but_the_sm_and_clock() -> None:
    from simtviz.backends.gpu import GpuBackend
    from simtviz.backends.record import RecordRequest
    from simtviz.backends.record.emu import record_in_emulator
    from simtviz.core.launch import Dim3, LaunchConfig

    config = LaunchConfig(Dim3(7, 3, 2), Dim3(32, 4, 2))
    backend = GpuBackend()
    gpu = backend.to_host(backend.record(config))
    emu = record_in_emulator(RecordRequest(config))
    for name, values in gpu.fields.items():
        if name in ("smid", "t_ns"):
            assert (emu.fields[name] == -1).all()
            continue
        np.testing.assert_array_equal(emu.fields[name], np.asarray(values), err_msg=name)


def test_float32_with_float64_literals_rounds_as_on_the_gpu() -> None:
    # numba computes float32 × 0.1 and float32 / 3 in float64 and rounds once into B (float32);
    # the emulator does the same (numba's simulator computes them in float32: NumPy 2's rule).
    source = (
        "from numba import cuda\n\n\n@cuda.jit\ndef k(A, B):\n    i = cuda.grid(1)\n"
        "    if i < A.size:\n        B[i] = A[i] * 0.1\n        C[i] = A[i] / 3\n"
    )  # no a * b + c: the GPU may fuse that into one FMA, rounded once
    source = source.replace("def k(A, B)", "def k(A, B, C)")
    args = {"A": "float32[1000]:arange", "B": "float32[1000]", "C": "float32[1000]"}
    req = TraceRequest(source, (4, 1, 1), (256, 1, 1), args)
    gpu, emu = run_isolated("gpu", "trace", req), run_trace_emu(req)
    np.testing.assert_array_equal(emu.outputs["B"], gpu.outputs["B"])
    np.testing.assert_array_equal(emu.outputs["C"], gpu.outputs["C"])
    assert emu.outputs["B"][9].view(np.uint32) == 0x3F666666  # 9 × 0.1 in float64, rounded once


def test_warp_shuffles_and_votes_give_the_gpus_values() -> None:
    # numba's simulator has no warp intrinsics; the emulator's must match the GPU's.
    source = """from numba import cuda


@cuda.jit
def k(A, B):
    i = cuda.grid(1)
    v = A[i]
    s = v
    d = 16
    while d > 0:
        s += cuda.shfl_down_sync(0xFFFFFFFF, s, d)
        d //= 2
    B[0, i] = s
    B[1, i] = cuda.shfl_xor_sync(0xFFFFFFFF, v, 3)
    B[2, i] = cuda.shfl_up_sync(0xFFFFFFFF, v, 2)
    B[3, i] = cuda.shfl_sync(0xFFFFFFFF, v, 7)
    B[4, i] = cuda.ballot_sync(0xFFFFFFFF, v % 3 == 0)
    B[5, i] = cuda.all_sync(0xFFFFFFFF, v < 100)
    B[6, i] = cuda.any_sync(0xFFFFFFFF, v == 70)
"""
    req = TraceRequest(source, (2, 1, 1), (64, 1, 1), {"A": "int64[128]:arange", "B": "int64[7,128]"})
    gpu, emu = run_isolated("gpu", "trace", req), run_trace_emu(req)
    np.testing.assert_array_equal(emu.outputs["B"], gpu.outputs["B"])
