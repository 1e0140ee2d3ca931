"""Live probes for the chapter lesson: each runs one of the chapter's claims and reports what happened.

``run_probe(name, **params)`` returns a plain dict (see ``common``): measured values, and None
with a reason for whatever this backend cannot measure. It picks the GPU or simulator version
from how numba was imported (decide the backend first, see ``backends.selection``), and never
raises: a probe that fails returns its error text as ``error``.

numba and CuPy are imported inside the probes, so importing this package imports neither.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from simtviz.backends.lesson.common import NO_GPU, Result, exception_text, missing, new_result, on_simulator


@dataclass(frozen=True)
class Probe:
    name: str
    what: str  # one line for the lesson panel
    keys: tuple[str, ...]  # the values a GPU run reports (None elsewhere)


PROBES: dict[str, Probe] = {
    p.name: p
    for p in (
        Probe(
            "ecosystem",
            "which package runs the chapter's kernels, and whether cuda.lang is installed",
            ("cuda_lang_importable", "numba_version", "numba_cuda_target", "kernel_package"),
        ),
        Probe(
            "library_vs_kernel",
            "cp.add against the hand-written vecadd: GPU time of one call each (CUDA events)",
            ("cp_add_ms", "vecadd_ms", "faster"),
        ),
        Probe(
            "thread_count",
            "how many threads ran the kernel's body (each adds 1 to a counter)",
            ("threads_ran",),
        ),
        Probe(
            "index_formula",
            "idx in every thread of a 1-D launch; cuda.grid(1) in a 1-D and a 2-D launch",
            ("idx_b2_t5", "grid1_equals_formula_1d", "distinct_grid1_2d"),
        ),
        Probe(
            "warps",
            "the warp and lane of every thread of a 48-thread block",
            ("warps", "second_warp_threads", "lane_is_tid_mod_32"),
        ),
        Probe(
            "jit_timing",
            "first launch (numba compiles) against the second, then float32 arrays",
            (
                "first_launch_ms",
                "second_launch_ms",
                "first_event_ms",
                "second_event_ms",
                "first_minus_second_ms",
                "float32_launch_ms",
                "float32_compiled_again",
                "verified",
            ),
        ),
        Probe(
            "array_dtypes",
            "the dtypes CuPy really gives; the chapter's §2.2.3.1 lines run one by one",
            (
                "zeros_dtype",
                "uniform_dtype",
                "random_dtype",
                "arange_dtype",
                "has_cp_rand",
                "has_cp_random_random",
                "chapter_lines",
            ),
        ),
        Probe(
            "copy_bandwidth",
            "host↔GPU copies from pageable and pinned memory, in GB/s",
            ("h2d_pageable_GBps", "h2d_pinned_GBps", "d2h_pageable_GBps", "d2h_pinned_GBps", "faster_d2h"),
        ),
        Probe(
            "host_array_to_kernel",
            "the vecadd kernel given NumPy arrays: error, warning, or right answer?",
            (
                "raised",
                "result_correct",
                "outcome",
                "warnings",
                "host_copy_warnings",
                "host_arrays_ms",
                "device_arrays_ms",
            ),
        ),
        Probe(
            "gpu_array_to_python",
            "a CuPy array given to NumPy, to NumPy arithmetic and to plain Python",
            (
                "asarray_error",
                "mixed_raises",
                "mixed_error",
                "np_sum_type",
                "np_sum_is_cupy",
                "np_sum_value",
                "loop_item_type",
                "loop_total",
                "float_outcome",
                "silent_copies",
            ),
        ),
        Probe(
            "async_timeline",
            "host time at launch return and at synchronize, against the kernel's GPU time",
            (
                "launch_return_ms",
                "sync_return_ms",
                "kernel_gpu_ms",
                "kernel_done_at_launch_return",
                "launch_returned",
                "runs",
                "cupy_has_synchronize",
            ),
        ),
        Probe(
            "bounds_check",
            "the unguarded vecadd: do surplus threads raise or write past the end?",
            ("raised", "oob_writes", "c_correct"),
        ),
        Probe(
            "timing_ways",
            "the vector add timed four ways: first launch, launch call, NumPy arrays, CUDA events",
            (
                "first_launch_ms",
                "launch_call_ms",
                "numpy_args_ms",
                "events_ms",
                "events_GBps",
                "first_vs_warm",
                "numpy_launch_waits",
            ),
        ),
        Probe(
            "launch_2048",
            "2048 threads per block: where the exception appears, and whether it is sticky",
            ("raised", "failed_at", "error_class", "sticky", "app_check", "unguarded_raised"),
        ),
        Probe(
            "error_checks",
            "§2.2.6's snippet as printed; a fault inside a kernel: where it surfaces, sticky or not",
            ("as_printed_output", "fault_surfaced_at", "fault_error", "fault_sticky"),
        ),
    )
}


def probe_names() -> list[str]:
    return list(PROBES)


def _implementation(name: str, simulated: bool) -> Callable[..., Result]:
    if simulated:
        from simtviz.backends.lesson import sim as module
    else:
        from simtviz.backends.lesson import gpu as module  # type: ignore[no-redef]
    fn: Callable[..., Result] = getattr(module, name)
    return fn


def run_probe(name: str, **params: Any) -> Result:
    """Run probe ``name`` on this process's backend; unknown names raise KeyError."""
    probe = PROBES[name]
    simulated = on_simulator()
    if not simulated:
        from numba import cuda

        if not cuda.is_available():
            result = new_result(name, "none")
            missing(result, NO_GPU + " and numba is not in simulator mode", *probe.keys)
            return result
    try:
        return _implementation(name, simulated)(**params)
    except Exception as exc:  # report, never crash the lesson: the text is what a teacher needs
        result = new_result(name, "sim" if simulated else "gpu")
        result["error"] = exception_text(exc)
        missing(result, f"the probe failed: {result['error']}", *probe.keys)
        return result


# Registers the ``lesson`` experiment (last: it reads PROBES above).
from simtviz.backends.lesson.experiment import LESSON, LessonRequest  # noqa: E402

__all__ = ["LESSON", "PROBES", "LessonRequest", "Probe", "Result", "probe_names", "run_probe"]
