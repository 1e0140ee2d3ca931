"""Tracing the student's kernel: plain functions the child process calls by name.

``run_trace_sim(request, progress)`` on numba's CUDA simulator and ``run_trace_gpu(request,
progress)`` on a GPU both return a ``simtviz.core.trace_model.TraceResult``. They run the
student's code, so they are meant for a killable child process (see ``RUNNERS``).
"""

from __future__ import annotations

# Names the child-process wiring imports and calls: "module:function".
RUNNERS = {
    "sim": "simtviz.backends.trace.sim:run_trace_sim",
    "gpu": "simtviz.backends.trace.gpu:run_trace_gpu",
}
