"""The lesson's probes in the CUDA simulator: what the simulator really does, and the gaps named.

The simulator runs kernels as Python threads on host memory. It can show indexing, results and
errors; it cannot show GPU time, copies, asynchrony or what CuPy does with a GPU array. Those
values are None, each with its reason; host wall times of the simulator are labelled as such.
"""

from __future__ import annotations

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
    NO_GPU,
    SIM_NO_ASYNC,
    SIM_NO_CLOCK,
    SIM_NO_COPY,
    SIM_NO_EVENTS,
    Result,
    app_check,
    cupy_usable,
    exception_text,
    import_cupy,
    missing,
    new_result,
)
from simtviz.core.estimates import format_duration
from simtviz.core.vecadd import grid_for

SIM_MAX_THREADS = 65_536  # about ten seconds of the simulator
SIM_NO_JIT = "the simulator compiles nothing: every launch runs the Python function as it is"


def _cupy_gap() -> tuple[Any, str]:
    """(cupy or None, why CuPy cannot make arrays here)."""
    cp, why = import_cupy()
    if cp is None:
        return None, why or "CuPy is not available"
    # CuPy's own words here name a missing driver; a student needs to read that there is no GPU.
    if cupy_usable(cp):
        return cp, f"CuPy needs a GPU: {NO_GPU}"
    return cp, "a simulator run does not use CuPy's GPU arrays"


def jit_timing(n: int = 512, block: int = 256) -> Result:
    from numba import cuda

    from simtviz.kernels.vecadd import vecadd

    result = new_result("jit_timing", "sim")
    kernel = cuda.jit(vecadd.py_func)
    rng = np.random.default_rng()  # any values: only their sum is checked
    a = rng.random(n)
    b = rng.random(n)
    c = np.zeros(n)
    grid = grid_for(n, block)
    for which in ("first", "second"):
        t0 = time.perf_counter()
        kernel[grid, block](a, b, c)
        # Host wall time of the simulator running n Python threads, not of a GPU.
        result[f"{which}_sim_launch_ms"] = (time.perf_counter() - t0) * 1e3
    result["verified"] = bool(np.allclose(c, a + b))
    missing(
        result,
        SIM_NO_JIT,
        "first_launch_ms",
        "second_launch_ms",
        "first_minus_second_ms",
        "float32_launch_ms",
        "float32_compiled_again",
    )
    missing(result, SIM_NO_EVENTS, "first_event_ms", "second_event_ms")
    result.update(n=n, block=block, grid=grid)
    return result


def array_dtypes() -> Result:
    result = new_result("array_dtypes", "sim")
    cp, gap = _cupy_gap()
    if cp is None:
        missing(result, gap, "cupy_version", "has_cp_rand", "has_cp_random_random", "chapter_lines")
    else:
        # Attributes of the CuPy module need no GPU: these answers are CuPy's own.
        result["cupy_version"] = cp.__version__
        result["has_cp_rand"] = hasattr(cp, "rand")
        result["has_cp_random_random"] = hasattr(cp.random, "random")
        # Line 1 fails for want of a GPU; lines 2 and 3 fail on a name before CuPy touches one.
        lines = chapter_code.run_lines(chapter_code.CREATING_ARRAYS, {"cp": cp, "np": np})
        for line in lines:  # CuPy's words for a missing GPU name the driver: say it plainly
            if line["error"] and ("CUDARuntimeError" in line["error"] or "CUDADriverError" in line["error"]):
                line["error"] = f"CuPy needs a GPU: {NO_GPU}"
        result["chapter_lines"] = lines
    missing(result, gap, "zeros_dtype", "uniform_dtype", "random_dtype", "arange_dtype")
    # NumPy's own defaults, shown as NumPy's: CuPy follows them, which only a GPU run proves.
    # No shape or range changes a dtype: the smallest array (0-d) answers.
    result["numpy_zeros_dtype"] = str(np.zeros(()).dtype)
    result["numpy_uniform_dtype"] = str(np.random.default_rng().uniform(size=()).dtype)
    return result


def copy_bandwidth(mbytes: int = 64, repeat: int = 5) -> Result:
    result = new_result("copy_bandwidth", "sim")
    keys = [f"{d}_{m}_{u}" for d in ("h2d", "d2h") for m in ("pageable", "pinned") for u in ("ms", "GBps")]
    missing(result, SIM_NO_COPY, *keys, "faster_d2h")
    result.update(bytes=mbytes * 2**20, repeat=repeat)
    return result


def host_array_to_kernel(n: int = 256, block: int = 256) -> Result:
    from numba import cuda

    from simtviz.kernels.vecadd import vecadd

    result = new_result("host_array_to_kernel", "sim")
    grid = grid_for(n, block)
    a = np.arange(n, dtype=np.float64)
    b = np.ones(n)  # any values: only the sum is checked
    c = np.zeros(n)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            vecadd[grid, block](a, b, c)
            cuda.synchronize()
            result["raised"] = None
        except Exception as exc:
            result["raised"] = exception_text(exc)
    result["result_correct"] = result["raised"] is None and bool(np.array_equal(c, a + b))
    result["outcome"] = _outcome(result)
    # What the simulator itself said (nothing, as measured): not what numba-cuda says on a GPU.
    result["sim_warnings"] = [f"{type(w.message).__name__}: {w.message}" for w in caught]
    missing(
        result,
        SIM_NO_COPY + "; numba-cuda's copy warning appears only on a GPU",
        "warnings",
        "host_copy_warnings",
    )
    missing(result, SIM_NO_CLOCK, "host_arrays_ms", "device_arrays_ms")
    result.update(n=n, block=block, grid=grid)
    return result


def _outcome(result: Result) -> str:
    if result["raised"] is not None:
        return "an error"
    return "the right answer" if result["result_correct"] else "a wrong answer"


def gpu_array_to_python() -> Result:
    result = new_result("gpu_array_to_python", "sim")
    _, gap = _cupy_gap()
    missing(
        result,
        gap,
        "asarray_error",
        "np_sum_type",
        "np_sum_is_cupy",
        "np_sum_value",
        "loop_item_type",
        "loop_item_shape",
        "loop_total",
        "mixed_raises",
        "mixed_error",
        "float_outcome",
        "silent_copies",
    )
    return result


def async_timeline(hold_ms: float = 50.0) -> Result:
    from numba import cuda

    from simtviz.kernels.vecadd import vecadd

    result = new_result("async_timeline", "sim")
    cp, why = import_cupy()
    if cp is None:
        missing(result, why or "CuPy is not available", "cupy_has_synchronize", "cp_synchronize_error")
    else:
        result["cupy_has_synchronize"] = hasattr(cp, "synchronize")
        result["cp_synchronize_error"] = None
        if not result["cupy_has_synchronize"]:
            try:
                cp.synchronize()
            except AttributeError as exc:
                result["cp_synchronize_error"] = exception_text(exc)
    # The hold kernel spins on %globaltimer, which the simulator lacks (-1 forever): a small
    # vecadd instead, to show that the launch call returns only when the kernel is done.
    n, block = 256, 128
    a = np.arange(n, dtype=np.float64)
    c = np.zeros(n)
    t0 = time.perf_counter()
    vecadd[grid_for(n, block), block](a, a, c)
    t1 = time.perf_counter()
    result["kernel_done_at_launch_return"] = bool(np.array_equal(c, 2.0 * a))
    result["launch_returned"] = "after the kernel" if result["kernel_done_at_launch_return"] else "right away"
    cuda.synchronize()
    t2 = time.perf_counter()
    result["sim_launch_return_ms"] = (t1 - t0) * 1e3
    result["sim_sync_return_ms"] = (t2 - t0) * 1e3
    result["numba_has_synchronize"] = hasattr(cuda, "synchronize")
    missing(result, SIM_NO_ASYNC, "launch_return_ms", "sync_return_ms", "runs")
    missing(result, SIM_NO_EVENTS, "kernel_gpu_ms")
    result["hold_ms"] = hold_ms
    return result


def bounds_check(n: int = 1000, block: int = 256) -> Result:
    from simtviz.kernels.vecadd import vecadd_unguarded

    result = new_result("bounds_check", "sim")
    grid = grid_for(n, block)
    if grid * block > SIM_MAX_THREADS:
        # ≈6,600 simulated threads a second: 2^24 threads would take about 42 minutes; one
        # unit chosen for a person ("10 s" just past the line, never "about 0 minutes").
        seconds = grid * block / 6600
        reason = (
            f"{grid * block:,} threads would take the simulator about {format_duration(seconds)} "
            "(one Python thread at a time); a GPU runs them in a fraction of a millisecond"
        )
        missing(result, reason, "raised", "oob_writes", "c_correct")
        result.update(n=n, block=block, grid=grid, surplus_threads=grid * block - n)
        return result
    a = np.ones(n)
    b = np.full(n, 2.0)
    c = np.full(n, -7.0)
    try:
        vecadd_unguarded[grid, block](a, b, c)
        result["raised"] = None
    except Exception as exc:  # the simulator indexes like NumPy: IndexError
        result["raised"] = exception_text(exc)
    missing(
        result,
        "the simulator checks indices like NumPy and raises; a GPU checks nothing (only a GPU run shows it)",
        "oob_writes",
        "c_correct",
    )
    result.update(n=n, block=block, grid=grid, surplus_threads=grid * block - n)
    return result


def launch_2048(n: int = 2048 + 11, block: int = 2048) -> Result:
    """The simulator checks no launch limits: the 2048-thread launch just runs (small n: 4,096 threads)."""
    from numba import cuda

    from simtviz.kernels.vecadd import vecadd

    result = new_result("launch_2048", "sim")
    grid = grid_for(n, block)
    a = np.ones(n)
    c = np.zeros(n)
    try:
        vecadd[grid, block](a, a, c)
        cuda.synchronize()
        result["sim_ran_without_error"] = True
        result["failed_at"] = "nowhere"
    except Exception as exc:
        result["sim_ran_without_error"] = False
        result["sim_error"] = exception_text(exc)
        result["failed_at"] = "the launch line"  # the simulator runs the kernel inside the launch
    # The chapter's kernel has no guard: here its surplus threads raise IndexError, which is easy
    # to mistake for the launch limit. It is not: the guarded launch above ran.
    from simtviz.kernels.vecadd import vecadd_unguarded

    try:
        vecadd_unguarded[grid, block](a, a, np.zeros(n))
        result["unguarded_error"] = None
    except Exception as exc:  # IndexError, as NumPy indexing raises
        result["unguarded_error"] = exception_text(exc)
    result["unguarded_raised"] = type_name(result["unguarded_error"])
    result["app_check"] = app_check(grid, block)
    no_limits = "only a GPU's driver rejects the launch; the simulator checks no limits"
    missing(result, no_limits, "raised", "error_class", "sticky")
    result.update(n=n, block=block, grid=grid)
    return result


def type_name(text: str | None) -> str | None:
    """``IndexError`` from ``builtins.IndexError: ...`` (None stays None)."""
    return None if text is None else text.split(":")[0].split(".")[-1]


def library_vs_kernel(n: int = 2**24) -> Result:
    result = new_result("library_vs_kernel", "sim")
    missing(result, SIM_NO_CLOCK + "; and CuPy needs a GPU: " + NO_GPU, "cp_add_ms", "vecadd_ms", "faster")
    result["n"] = n
    return result


def timing_ways(n: int = 2**24 + 11, block: int = 256) -> Result:
    result = new_result("timing_ways", "sim")
    missing(
        result,
        SIM_NO_CLOCK,
        "first_launch_ms",
        "launch_call_ms",
        "numpy_args_ms",
        "events_ms",
        "events_GBps",
        "first_vs_warm",
        "numpy_launch_waits",
    )
    result.update(n=n, block=block)
    return result
