"""The lesson's probes on a real GPU (numba-cuda + CuPy): each returns what it measured.

Only called when numba is not simulated and a GPU is present (see ``__init__``). Every kernel
here is the project's own (the chapter's vecadd, the hold kernel), never student code.
"""

from __future__ import annotations

import functools
import io
import time
import warnings
from typing import Any

import numpy as np

from simtviz.backends.lesson import chapter_code
from simtviz.backends.lesson.both import (  # noqa: F401  (the same code runs on both backends)
    ecosystem,
    error_checks,
    index_formula,
    thread_count,
    warps,
)
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
    # New argument types: numba compiles a second version (33.8 ms on the H200).
    a32, b32 = a.astype(cp.float32), b.astype(cp.float32)
    c32 = cp.zeros(n, dtype=cp.float32)
    versions = _versions(kernel)
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    kernel[grid, block](a32, b32, c32)
    result["float32_launch_ms"] = (time.perf_counter() - t0) * 1e3
    cp.cuda.Device().synchronize()
    after = _versions(kernel)
    if versions is not None and after is not None:
        again = after > versions
    else:  # no count of versions in this numba: a launch 10x the cached one compiled
        again = result["float32_launch_ms"] > 10 * result["second_launch_ms"]
    result["float32_compiled_again"] = "yes" if again else "no"
    result["verified"] = bool(np.allclose(cp.asnumpy(c), cp.asnumpy(a) + cp.asnumpy(b)))
    result.update(n=n, block=block, grid=grid)
    return result


def _versions(kernel: Any) -> int | None:
    """How many versions numba has compiled of ``kernel`` (one per set of argument types)."""
    for attr in ("overloads", "signatures"):
        found = getattr(kernel, attr, None)
        if found is not None:
            return len(found)
    return None


def array_dtypes() -> Result:
    """The dtypes CuPy really gives, and the chapter's §2.2.3.1 lines run one by one."""
    cp = _cupy()
    result = new_result("array_dtypes", gpu_backend_name())
    result["cupy_version"] = cp.__version__
    result["zeros_dtype"] = str(cp.zeros((2, 2)).dtype)
    result["uniform_dtype"] = str(cp.random.uniform(-1, 1, 4).dtype)
    result["random_dtype"] = str(cp.random.random((4,)).dtype)
    result["arange_dtype"] = str(cp.arange(4).dtype)
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
    pinned_gbps, pageable_gbps = result["d2h_pinned_GBps"], result["d2h_pageable_GBps"]
    result["faster_d2h"] = _faster(("pinned", 1 / pinned_gbps), ("pageable", 1 / pageable_gbps), "the same")
    result.update(bytes=nbytes, repeat=repeat)
    return result


def _faster(first: tuple[str, float], second: tuple[str, float], same: str) -> str:
    """The name of the quicker of two (name, time), or ``same`` within 20 %."""
    (name1, t1), (name2, t2) = first, second
    if t1 * 1.2 < t2:
        return name1
    if t2 * 1.2 < t1:
        return name2
    return same


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
    if result["raised"] is not None:
        result["outcome"] = "an error"
    else:
        result["outcome"] = "the right answer" if result["result_correct"] else "a wrong answer"
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
    try:
        _ = x + np.ones(4)
        result["mixed_raises"], result["mixed_error"] = False, None
    except TypeError as exc:
        result["mixed_raises"], result["mixed_error"] = True, exception_text(exc)
    # Each of these copies to the host without a word (and waits for the GPU first).
    silent = []
    for label, use in (
        ("float(x[0])", lambda: float(x[0])),
        ("x[0].item()", lambda: x[0].item()),
        ("bool(x[1])", lambda: bool(x[1])),
        ("print(x)", lambda: print(x, file=io.StringIO())),
        ("x.tolist()", lambda: x.tolist()),
    ):
        try:
            use()
            silent.append(label)
        except Exception:  # refused: not a silent copy
            continue
    result["silent_copies"] = silent
    result["float_outcome"] = "silent copy" if "float(x[0])" in silent else "TypeError"
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
    first: dict[str, Any] = runs[0]
    early = not first["kernel_done_at_launch_return"] and first["launch_return_ms"] < hold_ms / 2
    result["launch_returned"] = "right away" if early else "after the kernel"
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
    stage = "the launch line"
    try:
        vecadd[grid, block](a, b, c)
        stage = "synchronize()"
        cuda.synchronize()
        result["raised"], result["failed_at"], result["error_class"] = None, "nowhere", None
    except Exception as exc:  # the point is to show which exception, at which line
        result["raised"], result["failed_at"] = exception_text(exc), stage
        result["error_class"] = f"{type(exc).__module__}.{type(exc).__qualname__}"
    # Sticky? A good launch right after: it works when the error did not poison the context.
    try:
        vecadd[grid_for(n, 256), 256](a, b, c)
        cuda.synchronize()
        result["sticky"] = not bool(cp.allclose(c, a + b))
    except Exception as exc:
        result["sticky"] = True
        result["later_error"] = exception_text(exc)
    result["app_check"] = app_check(grid, block)
    result.update(n=n, block=block, grid=grid)
    missing(
        result,
        "this ran on a GPU, which checks the launch itself",
        "sim_ran_without_error",
        "unguarded_raised",
    )
    return result


def library_vs_kernel(n: int = 2**24, repeat: int = 21) -> Result:
    """cp.add against the hand-written vecadd: median GPU time of one call, CUDA events around it."""
    from simtviz.kernels.vecadd import vecadd

    cp = _cupy()
    result = new_result("library_vs_kernel", gpu_backend_name())
    a = cp.random.uniform(-1, 1, n)
    b = cp.random.uniform(-1, 1, n)
    c = cp.empty_like(a)
    grid = grid_for(n, 256)
    vecadd[grid, 256](a, b, c)  # compiled outside the timing
    cp.add(a, b, out=c)
    cp.cuda.Device().synchronize()

    def gpu_ms(launch: Any) -> float:
        times = []
        for _ in range(repeat):
            start, end = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            launch()
            end.record()
            end.synchronize()
            times.append(float(cp.cuda.get_elapsed_time(start, end)))
        return sorted(times)[repeat // 2]

    result["cp_add_ms"] = gpu_ms(lambda: cp.add(a, b, out=c))
    result["vecadd_ms"] = gpu_ms(lambda: vecadd[grid, 256](a, b, c))
    timed = ("cp.add", result["cp_add_ms"]), ("vecadd", result["vecadd_ms"])
    result["faster"] = _faster(*timed, "about the same")
    result["verified"] = bool(cp.allclose(c, a + b))
    result.update(n=n, repeat=repeat)
    return result


def timing_ways(n: int = 2**24 + 11, block: int = 256, repeat: int = 20) -> Result:
    """The vector add timed three wrong ways and the right one."""
    from numba import cuda

    from simtviz.kernels.vecadd import vecadd

    cp = _cupy()
    result = new_result("timing_ways", gpu_backend_name())
    kernel = cuda.jit(vecadd.py_func)  # a fresh dispatcher: its first launch compiles
    a = cp.random.uniform(-1, 1, n)
    b = cp.random.uniform(-1, 1, n)
    c = cp.zeros_like(a)
    grid = grid_for(n, block)
    cp.cuda.Device().synchronize()

    def host_ms(launch: Any) -> float:
        t0 = time.perf_counter()
        launch()
        return (time.perf_counter() - t0) * 1e3

    result["first_launch_ms"] = host_ms(lambda: kernel[grid, block](a, b, c))
    cuda.synchronize()
    result["launch_call_ms"] = host_ms(lambda: kernel[grid, block](a, b, c))
    cuda.synchronize()
    a_h, b_h = cp.asnumpy(a), cp.asnumpy(b)
    c_h = np.zeros(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the host-array warning is §2.2.3.3's lesson
        result["numpy_args_ms"] = host_ms(lambda: kernel[grid, block](a_h, b_h, c_h))
    # No synchronize before this check: the result is already in host memory when the call returns.
    result["numpy_launch_waits"] = bool(np.array_equal(c_h, a_h + b_h))
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    for _ in range(repeat):
        kernel[grid, block](a, b, c)
    end.record()
    end.synchronize()
    ms = float(cp.cuda.get_elapsed_time(start, end)) / repeat
    result["events_ms"] = ms
    result["events_GBps"] = 3 * n * 8 / ms / 1e6  # two arrays read, one written, 8 bytes each
    result["first_vs_warm"] = "far longer" if result["first_launch_ms"] > 10 * ms else "about the same"
    result.update(n=n, block=block, grid=grid, repeat=repeat)
    return result
