"""The ``vecadd`` experiment: the guide's vector add (§2.2.5/§2.2.6), verified and timed.

``gpu`` runs the faithful program with CuPy and times it; ``sim`` runs it on numba's CUDA
simulator with NumPy. Neither imports the other: what both need lives in ``core.vecadd``.
"""

from __future__ import annotations

from simtviz.backends.base import Backend, BackendInfo, Progress, check_size, simulated_rejection
from simtviz.backends.experiment import Experiment, register
from simtviz.core.vecadd import VecaddRequest, VecaddResult


def check_sim_request(request: VecaddRequest, info: BackendInfo) -> None:
    """Refuse what a GPU would refuse (with the driver's text), then what would take too long
    (on the CPU: the simulator or the emulator, as ``info`` says)."""
    rejection = simulated_rejection(request.config, info.limits)
    if rejection is not None:
        rejection.launch_line = request.config.launch_line("vecadd", "a, b, c")
        raise rejection
    check_size(
        info,
        request.simulated_threads(),
        request.force,
        "vecadd",
        subject="vecadd",
        smaller="a smaller --n",
        detail=request.threads_in_words(),
    )


class VecaddExperiment:
    name = "vecadd"

    def check(self, request: VecaddRequest, info: BackendInfo) -> None:
        # On a GPU the launch goes to the driver, whose own error is the lesson.
        if info.speaks_for_driver:
            check_sim_request(request, info)

    def estimate_s(self, request: VecaddRequest, info: BackendInfo) -> float | None:
        if not info.speaks_for_driver:
            return None
        return info.estimate_seconds(request.simulated_threads(), "vecadd")

    def run_gpu(self, backend: Backend, request: VecaddRequest, progress: Progress | None) -> VecaddResult:
        from simtviz.backends.vecadd.gpu import run_vecadd_gpu

        return run_vecadd_gpu(backend, request, progress)

    def run_sim(self, request: VecaddRequest, info: BackendInfo, progress: Progress | None) -> VecaddResult:
        from simtviz.backends.vecadd.sim import run_vecadd_sim

        return run_vecadd_sim(request, info.label, progress)

    def run_emu(self, request: VecaddRequest, info: BackendInfo, progress: Progress | None) -> VecaddResult:
        from simtviz.backends.vecadd.emu import run_vecadd_emu

        # The emulator checks no limits either: it speaks for the driver, as the simulator does.
        rejection = simulated_rejection(request.config, info.limits) if info is not None else None
        if rejection is not None:
            rejection.launch_line = request.config.launch_line("vecadd", "a, b, c")
            raise rejection
        return run_vecadd_emu(request, info.label if info is not None else "emu", progress)


VECADD: Experiment[VecaddRequest, VecaddResult] = register(VecaddExperiment())


def run_vecadd(backend: Backend, request: VecaddRequest, progress: Progress | None = None) -> VecaddResult:
    """Raise LaunchRejected / LaunchTooLarge before running; a kernel that raised is a result."""
    return backend.run(VECADD, request, progress)
