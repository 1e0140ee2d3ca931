"""A one-thread kernel that keeps the GPU busy for a set time (GPU only: the simulator has no clock).

Timing a numba launch with CUDA events around it measures the host's launch cost too (≈94 µs
with CuPy arguments, more than the kernel itself). Queued behind this kernel, the launches and
their events pile up in the stream while the GPU is still busy, so the events then time only the
GPU's work, back to back.
"""

from __future__ import annotations

from numba import cuda

from simtviz.kernels.intrinsics import global_timer_ns

HOLD_SIGNATURE = "void(int64)"


@cuda.jit(cache=True)
def hold_gpu(duration_ns):
    # %globaltimer is read through volatile inline PTX, so the loop cannot be optimised away.
    start = global_timer_ns()
    while global_timer_ns() - start < duration_ns:
        pass


# For kernels.registry: CI compiles it to PTX without a GPU.
PTX_KERNELS = {"hold_gpu": HOLD_SIGNATURE}
