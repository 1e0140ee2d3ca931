"""Run the guide's vecadd on whichever backend the process chose: GPU, simulator, or its child."""

from __future__ import annotations

from typing import Any

from simtviz.backends.base import Backend, Progress
from simtviz.core.vecadd import VecaddRequest, VecaddResult, estimate_sim_seconds

SIM_TARGET = "simtviz.backends.vecadd_sim:run_vecadd_sim"


def run_vecadd(backend: Backend, request: VecaddRequest, progress: Progress | None = None) -> VecaddResult:
    """Raise LaunchRejected / LaunchTooLarge before running; a kernel that raised is a result."""
    if backend.kind == "gpu":
        from simtviz.backends.vecadd_gpu import run_vecadd_gpu

        return run_vecadd_gpu(backend, request, progress)
    from simtviz.backends.vecadd_sim import check_sim_request, run_vecadd_sim

    check_sim_request(request, backend.limits())
    label = backend.info().label
    # The desktop app's simulator backend runs launches in a child process, never in the
    # window's process: the simulator's hundreds of Python threads would starve the GUI.
    call_in_child: Any = getattr(backend, "call_in_child", None)
    if call_in_child is not None:
        return call_in_child(
            SIM_TARGET,
            {"request": request, "label": label},
            estimate_s=estimate_sim_seconds(request),
            progress=progress,
        )
    return run_vecadd_sim(request, label, progress)
