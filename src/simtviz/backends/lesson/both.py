"""Probes that run the same code on the GPU and in the simulator: each shows a claim that needs
no GPU clock (counting threads, indices, warps and lanes, where an error surfaces).

Arrays go through ``cuda.to_device`` so a GPU run copies nothing behind the student's back.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np

from simtviz.backends.lesson.common import Result, gpu_backend_name, new_result, on_simulator


def _backend() -> str:
    return "sim" if on_simulator() else gpu_backend_name()


def ecosystem() -> Result:
    """Which package runs the kernels: numba.cuda; is cuda.lang installed beside it?"""
    import numba
    from numba import cuda

    result = new_result("ecosystem", _backend())
    try:
        import cuda.lang as _lang  # noqa: F401  (an "as" name: `cuda` stays numba.cuda)

        result["cuda_lang_importable"] = True
    except ImportError:
        result["cuda_lang_importable"] = False
    result["numba_version"] = numba.__version__
    result["numba_cuda_target"] = cuda.__name__
    result["kernel_package"] = "numba.cuda"  # the package whose @cuda.jit every example uses
    try:
        import cupy

        result["cupy_version"] = cupy.__version__
    except Exception as exc:  # not installed, or a broken CUDA install
        result["cupy_version"] = None
        result["unavailable"]["cupy_version"] = f"CuPy cannot be imported here ({type(exc).__name__})"
    return result


def _dims(value: Any) -> Any:
    return tuple(int(v) for v in value) if isinstance(value, (list, tuple)) else int(value)


def _grid_block(pair: Any) -> tuple[Any, Any]:
    grid, block = pair
    return _dims(grid), _dims(block)


def thread_count(launches: Any = ((2, 4),)) -> Result:
    """Launch ``count_threads`` with each (grid, block) into one counter: how many threads ran."""
    from numba import cuda

    from simtviz.kernels.lesson import count_threads

    result = new_result("thread_count", _backend())
    hits = cuda.to_device(np.array([0], dtype=np.int64))  # one counter, from 0
    shown = []
    for pair in launches:
        grid, block = _grid_block(pair)
        count_threads[grid, block](hits)
        shown.append([grid, block])
    cuda.synchronize()
    result["threads_ran"] = int(hits.copy_to_host()[0])
    result["launches"] = shown
    return result


def index_formula() -> Result:
    """idx in a 1-D launch of 4 × 32 threads; cuda.grid(1) in it and in a 2-D launch (3, 2) × (8, 4)."""
    from numba import cuda

    from simtviz.kernels.lesson import index_1d, index_2d

    result = new_result("index_formula", _backend())
    n = 4 * 32
    formula = cuda.to_device(np.full(n, -1, dtype=np.int64))
    grid1 = cuda.to_device(np.full(n, -1, dtype=np.int64))
    index_1d[4, 32](formula, grid1)
    f, g = formula.copy_to_host(), grid1.copy_to_host()
    result["idx_b2_t5"] = int(f[2 * 32 + 5])  # the thread stored at slot 69 is thread 5 of block 2
    result["grid1_equals_formula_1d"] = bool(np.array_equal(f, g))
    threads_2d = 3 * 2 * 8 * 4
    values = cuda.to_device(np.full(threads_2d, -1, dtype=np.int64))
    index_2d[(3, 2), (8, 4)](values, values)
    v = values.copy_to_host()
    result["threads_2d"] = threads_2d
    result["distinct_grid1_2d"] = len(set(v.tolist()))
    return result


def warps(block: int = 48) -> Result:
    """Warp and lane of every thread of one block."""
    from numba import cuda

    from simtviz.kernels.lesson import warp_and_lane

    result = new_result("warps", _backend())
    warp = cuda.to_device(np.full(block, -1, dtype=np.int32))
    lane = cuda.to_device(np.full(block, -1, dtype=np.int32))
    warp_and_lane[1, block](warp, lane)
    w, ln = warp.copy_to_host(), lane.copy_to_host()
    result["block"] = block
    result["warps"] = len(set(w.tolist()))
    result["second_warp_threads"] = int(np.count_nonzero(w == 1))
    result["lane_is_tid_mod_32"] = bool(np.array_equal(ln, np.arange(block) % 32))
    result["warp_of_thread"] = w.tolist()
    result["lane_of_thread"] = ln.tolist()
    return result


# §2.2.6 exactly as printed: its imports and kernel are not part of the snippet.
AS_PRINTED = textwrap.dedent(
    """\
    try:
        vector_size = 2**24 + 11

        device = cp.cuda.Device()
        a = cp.random.uniform(-1, 1, vector_size)
        b = cp.random.uniform(-1, 1, vector_size)
        c = cp.zeros_like(a)

        ## this block size is too large for any current GPUs
        block_size = 2048
        grid_size = int(np.ceil(vector_size/block_size))
        # Error: launching kernel with invalid block size
        vecadd[grid_size, block_size](a, b, c)

        device.synchronize()
        print("Test did not encounter any errors")

    except Exception as e:
        print(f"Exception occurred: {e}")
    """
)

# A write far past the end of C: where does the error surface, and is it sticky?
FAULT = textwrap.dedent(
    """\
    import numpy as np
    from numba import cuda

    @cuda.jit
    def far_write(C):
        C[cuda.grid(1) + 2**40] = 1.0

    C = cuda.to_device(np.zeros(16))
    stage = "the launch line"
    try:
        far_write[1, 1](C)
        stage = "synchronize()"
        cuda.synchronize()
        print("SURFACED nowhere")
    except Exception as e:
        print("SURFACED", stage)
        print("ERROR", type(e).__name__ + ":", str(e).splitlines()[0] if str(e) else "")
    try:
        x = cuda.to_device(np.ones(4))
        cuda.synchronize()
        print("STICKY", "no" if x.copy_to_host().sum() == 4 else "yes")
    except Exception as e:
        print("STICKY yes")
        print("LATER", type(e).__name__ + ":", str(e).splitlines()[0] if str(e) else "")
    """
)


def _child(code: str, simulated: bool) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh Python: a sticky fault must not break this process's CUDA context."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    if simulated:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300, check=False
    )


def _line(stdout: str, tag: str) -> str | None:
    for line in stdout.splitlines():
        if line.startswith(tag + " "):
            return line[len(tag) + 1 :].strip()
    return None


def error_checks() -> Result:
    """§2.2.6's snippet as printed, and a fault inside a kernel, each in a child process."""
    simulated = on_simulator()
    result = new_result("error_checks", _backend())
    printed = _child(AS_PRINTED, simulated)
    result["as_printed_output"] = printed.stdout.strip()
    fault = _child(FAULT, simulated)
    result["fault_surfaced_at"] = _line(fault.stdout, "SURFACED")
    result["fault_error"] = _line(fault.stdout, "ERROR")
    sticky = _line(fault.stdout, "STICKY")
    result["fault_sticky"] = None if sticky is None else sticky == "yes"
    result["later_error"] = _line(fault.stdout, "LATER")
    if fault.returncode != 0 or sticky is None:
        result["fault_stderr"] = fault.stderr[-1500:]
    return result
