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
            "jit_timing",
            "first launch (numba compiles) against the second launch",
            (
                "first_launch_ms",
                "second_launch_ms",
                "first_event_ms",
                "second_event_ms",
                "first_minus_second_ms",
            ),
        ),
        Probe(
            "array_dtypes",
            "the dtypes CuPy really gives; the chapter's §2.2.3.1 lines run one by one",
            (
                "zeros_dtype",
                "uniform_dtype",
                "random_dtype",
                "has_cp_rand",
                "has_cp_random_random",
                "chapter_lines",
            ),
        ),
        Probe(
            "copy_bandwidth",
            "host↔GPU copies from pageable and pinned memory, in GB/s",
            ("h2d_pageable_GBps", "h2d_pinned_GBps", "d2h_pageable_GBps", "d2h_pinned_GBps"),
        ),
        Probe(
            "host_array_to_kernel",
            "the vecadd kernel given NumPy arrays: error, warning, or right answer?",
            (
                "raised",
                "result_correct",
                "warnings",
                "host_copy_warnings",
                "host_arrays_ms",
                "device_arrays_ms",
            ),
        ),
        Probe(
            "gpu_array_to_python",
            "a CuPy array given to NumPy and to a plain Python function",
            (
                "asarray_error",
                "np_sum_type",
                "np_sum_is_cupy",
                "np_sum_value",
                "loop_item_type",
                "loop_total",
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
            "launch_2048",
            "2048 threads per block: the exception, and the limit it breaks",
            ("raised", "app_check"),
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
