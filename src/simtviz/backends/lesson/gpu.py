"""The lesson's probes on a real GPU (numba-cuda + CuPy): each returns what it measured.

Only called when numba is not simulated and a GPU is present (see ``__init__``). Every kernel
here is the project's own (the chapter's vecadd, the hold kernel), never student code.
"""

from __future__ import annotations

import functools
import time
import warnings
from typing import Any

import numpy as np

from simtviz.backends.lesson import chapter_code
from simtviz.backends.lesson.common import (
    Result,
    app_check,
    exception_text,
    gpu_backend_name,
    median_seconds,
    missing,
    new_result,
)
from simtviz.core.vecadd import grid_for


def _cupy() -> Any:
    import cupy

    return cupy


def jit_timing(n: int = 2**20, block: int = 256) -> Result:
    """First launch (numba compiles the kernel then) against the second, same arguments."""
    from numba import cuda

    from simtviz.kernels.vecadd import vecadd

    cp = _cupy()
    result = new_result("jit_timing", gpu_backend_name())
    # A fresh dispatcher from the same Python function: nothing compiled yet, whatever ran before.
    kernel = cuda.jit(vecadd.py_func)
    a = cp.random.uniform(-1, 1, n)
    b = cp.random.uniform(-1, 1, n)
    c = cp.zeros_like(a)
    grid = grid_for(n, block)
    cp.cuda.Device().synchronize()
    for which in ("first", "second"):
        start_ev, end_ev = cp.cuda.Event(), cp.cuda.Event()
        t0 = time.perf_counter()
        start_ev.record()
        kernel[grid, block](a, b, c)
        end_ev.record()
        t1 = time.perf_counter()
        end_ev.synchronize()
        t2 = time.perf_counter()
        result[f"{which}_launch_ms"] = (t1 - t0) * 1e3  # host: until the launch call returned
        result[f"{which}_total_ms"] = (t2 - t0) * 1e3  # host: until the kernel had finished
        # The GPU sits idle between the events while the host compiles: events see the JIT too.
        result[f"{which}_event_ms"] = float(cp.cuda.get_elapsed_time(start_ev, end_ev))
    result["first_minus_second_ms"] = result["first_launch_ms"] - result["second_launch_ms"]
    result["verified"] = bool(np.allclose(cp.asnumpy(c), cp.asnumpy(a) + cp.asnumpy(b)))
    result.update(n=n, block=block, grid=grid)
    return result


def array_dtypes() -> Result:
    """The dtypes CuPy really gives, and the chapter's §2.2.3.1 lines run one by one."""
    cp = _cupy()
    result = new_result("array_dtypes", gpu_backend_name())
    result["cupy_version"] = cp.__version__
    result["zeros_dtype"] = str(cp.zeros((2, 2)).dtype)
    result["uniform_dtype"] = str(cp.random.uniform(-1, 1, 4).dtype)
    result["random_dtype"] = str(cp.random.random((4,)).dtype)
    result["has_cp_rand"] = hasattr(cp, "rand")
    result["has_cp_random_random"] = hasattr(cp.random, "random")
    result["chapter_lines"] = chapter_code.run_lines(chapter_code.CREATING_ARRAYS, {"cp": cp, "np": np})
    result["numpy_zeros_dtype"] = str(np.zeros((2, 2)).dtype)
    return result


def copy_bandwidth(mbytes: int = 64, repeat: int = 5) -> Result:
    """Host↔GPU copies of ``mbytes`` MiB: from/to pageable NumPy memory and pinned memory."""
    cp = _cupy()
    result = new_result("copy_bandwidth", gpu_backend_name())
    nbytes = mbytes * 2**20
    n = nbytes // 8
    device = cp.empty(n, dtype=cp.float64)
    pageable = np.ones(n)  # written, so its pages exist before the first copy
    pinned = np.frombuffer(cp.cuda.alloc_pinned_memory(nbytes), dtype=np.float64, count=n)
    pinned[:] = 1.0
    sync = cp.cuda.Device().synchronize

    def h2d(src: np.ndarray) -> None:
        device.set(src)
        sync()

    def d2h(dst: np.ndarray) -> None:
        device.get(out=dst)
        sync()

    for name, host in (("pageable", pageable), ("pinned", pinned)):
        for direction, copy in (("h2d", h2d), ("d2h", d2h)):
            copy(host)  # warm: the first copy pays for mapping and driver set-up
            seconds = median_seconds(functools.partial(copy, host), repeat)
            result[f"{direction}_{name}_ms"] = seconds * 1e3
            result[f"{direction}_{name}_GBps"] = nbytes / seconds / 1e9
    result.update(bytes=nbytes, repeat=repeat)
    return result


def host_array_to_kernel(n: int = 2**22, block: int = 256) -> Result:
    """The chapter's vecadd given NumPy arrays: does it raise, warn, give the right answer?"""
    from numba import cuda

    from simtviz.kernels.vecadd import vecadd

    cp = _cupy()
    result = new_result("host_array_to_kernel", gpu_backend_name())
    grid = grid_for(n, block)
    a = np.arange(n, dtype=np.float64)
    b = 2.0 * a
    c = np.zeros(n)
    # Compile first, with device arrays, so the timings below compare copies, not the JIT.
    da, db, dc = cp.asarray(a), cp.asarray(b), cp.zeros(n)
    vecadd[grid, block](da, db, dc)
    cuda.synchronize()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        try:
            vecadd[grid, block](a, b, c)
            cuda.synchronize()
            result["raised"] = None
        except Exception as exc:  # the chapter says this is an error: show the error if there is one
            result["raised"] = exception_text(exc)
        result["host_arrays_ms"] = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter()
    vecadd[grid, block](da, db, dc)
    cuda.synchronize()
    result["device_arrays_ms"] = (time.perf_counter() - t0) * 1e3
    # a + b of integer-valued float64s below 2^53 is exact: equality, not closeness.
    result["result_correct"] = result["raised"] is None and bool(np.array_equal(c, a + b))
    texts = [f"{type(w.message).__name__}: {w.message}" for w in caught]
    result["warnings"] = texts
    result["host_copy_warnings"] = [t for t in texts if "Host array" in t]
    result.update(n=n, block=block, grid=grid)
    return result


def gpu_array_to_python() -> Result:
    """A CuPy array given to NumPy and to a plain Python function."""
    cp = _cupy()
    result = new_result("gpu_array_to_python", gpu_backend_name())
    x = cp.arange(4, dtype=cp.float64)  # 0, 1, 2, 3
    try:
        np.asarray(x)
        result["asarray_error"] = None
    except Exception as exc:
        result["asarray_error"] = exception_text(exc)
    total = np.sum(x)
    result["np_sum_type"] = f"{type(total).__module__}.{type(total).__name__}"
    result["np_sum_is_cupy"] = isinstance(total, cp.ndarray)
    result["np_sum_value"] = float(total)

    def plain_total(values: Any) -> Any:  # an ordinary Python function, no NumPy, no CuPy
        s = 0.0
        for v in values:
            s = s + v
        return s

    first = next(iter(x))
    result["loop_item_type"] = f"{type(first).__module__}.{type(first).__name__}"
    result["loop_item_shape"] = list(first.shape)
    result["loop_total"] = float(plain_total(x))
    return result


def async_timeline(hold_ms: float = 50.0) -> Result:
    """A kernel that spins ``hold_ms`` on the GPU clock: when does the host get control back?"""
    from numba import cuda

    from simtviz.kernels.busy import hold_gpu

    cp = _cupy()
    result = new_result("async_timeline", gpu_backend_name())
    hold_gpu[1, 1](0)  # compile outside the timeline
    cuda.synchronize()
    syncs: dict[str, Any] = {
        "cp.cuda.Device().synchronize()": lambda: cp.cuda.Device().synchronize(),
        "cp.cuda.runtime.deviceSynchronize()": cp.cuda.runtime.deviceSynchronize,
        "cuda.synchronize()": cuda.synchronize,
    }
    result["cupy_has_synchronize"] = hasattr(cp, "synchronize")
    if result["cupy_has_synchronize"]:
        syncs["cp.synchronize()"] = cp.synchronize
        result["cp_synchronize_error"] = None
    else:
        try:
            cp.synchronize()
            result["cp_synchronize_error"] = None
        except AttributeError as exc:
            result["cp_synchronize_error"] = exception_text(exc)
    runs = []
    for label, sync in syncs.items():
        start_ev, end_ev = cp.cuda.Event(), cp.cuda.Event()
        t0 = time.perf_counter()
        start_ev.record()
        hold_gpu[1, 1](int(hold_ms * 1e6))
        end_ev.record()
        t1 = time.perf_counter()
        done_at_return = bool(end_ev.done)
        sync()
        t2 = time.perf_counter()
        runs.append(
            {
                "sync": label,
                "launch_return_ms": (t1 - t0) * 1e3,
                "sync_return_ms": (t2 - t0) * 1e3,
                # The idle GPU reaches start_ev when the host records it: kernel ≈ [0, this] on the host axis.
                "kernel_gpu_ms": float(cp.cuda.get_elapsed_time(start_ev, end_ev)),
                "kernel_done_at_launch_return": done_at_return,
                "kernel_done_after_sync": bool(end_ev.done),
            }
        )
    result["runs"] = runs
    for key in ("launch_return_ms", "sync_return_ms", "kernel_gpu_ms", "kernel_done_at_launch_return"):
        result[key] = runs[0][key]
    result["hold_ms"] = hold_ms
    return result


def bounds_check(n: int = 1000, block: int = 256) -> Result:
    """The chapter's unguarded vecadd: do the surplus threads raise, or write past the end of C?"""
    from numba import cuda

    from simtviz.kernels.vecadd import vecadd_unguarded

    cp = _cupy()
    result = new_result("bounds_check", gpu_backend_name())
    grid = grid_for(n, block)
    slack = block  # room for every surplus thread's write, all inside memory we own
    a_buf = cp.ones(n + slack)
    b_buf = cp.full(n + slack, 2.0)
    c_buf = cp.full(n + slack, -7.0)  # -7 is no sum of the inputs: a changed tail is a stray write
    try:
        vecadd_unguarded[grid, block](a_buf[:n], b_buf[:n], c_buf[:n])
        cuda.synchronize()
        result["raised"] = None
    except Exception as exc:
        result["raised"] = exception_text(exc)
    host = cp.asnumpy(c_buf)
    result["oob_writes"] = int(np.count_nonzero(host[n:] != -7.0))
    result["c_correct"] = bool(np.all(host[:n] == 3.0))
    result.update(n=n, block=block, grid=grid, surplus_threads=grid * block - n)
    return result


def launch_2048(n: int = 2**20 + 11, block: int = 2048) -> Result:
    """§2.2.6: the vecadd launched with 2048 threads per block, the exception caught."""
    from numba import cuda

    from simtviz.kernels.vecadd import vecadd

    cp = _cupy()
    result = new_result("launch_2048", gpu_backend_name())
    grid = grid_for(n, block)
    a = cp.random.uniform(-1, 1, n)
    b = cp.random.uniform(-1, 1, n)
    c = cp.zeros_like(a)
    try:
        vecadd[grid, block](a, b, c)
        cuda.synchronize()
        result["raised"] = None
    except Exception as exc:
        result["raised"] = exception_text(exc)
    result["app_check"] = app_check(grid, block)
    result.update(n=n, block=block, grid=grid)
    missing(result, "this ran on a GPU, which checks the launch itself", "sim_ran_without_error")
    return result
