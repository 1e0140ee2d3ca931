"""The instrumented kernel: every thread writes down what it sees, the way the chapter reads it."""

from __future__ import annotations

from numba import cuda

from simtviz.core import schema
from simtviz.core.launch import WARP_SIZE
from simtviz.kernels.intrinsics import SIMULATED, global_timer_ns, sm_id

# Argument types, for compiling to PTX without a GPU (CI): derived from the record schema, whose
# order the kernel's parameters follow (tests/kernels/test_ptx.py checks the names).
RECORD_SIGNATURE = schema.RECORD_SIGNATURE

# cache=True (here and in verify, busy, schedule: the kernels the GPU warm-up launches): numba keeps
# the compiled kernel on disk, so every start after the first skips NVVM (H200: start -> ready
# 4.6 s -> 3.5 s, docs/BENCHMARKS.md). The simulator and the emulator ignore it.


@cuda.jit(cache=True)
def record_threads(threadIdx, blockIdx, grid1, grid2, grid3, laneid, warp, smid, t_ns, window, ended):
    """Record threadIdx, blockIdx, cuda.grid(1/2/3), lane, warp, SM and start time.

    ``window`` holds origin (x, y, z) and size (x, y, z) in cuda.grid(3) coordinates; only the
    threads inside it record, each into the row its own coordinates give (x fastest).
    ``ended[0]``: on a GPU, raised (atomic max) to the %globaltimer at which each block with a
    recorded thread finished, so the threads' own clock spans their whole run, not only starts.
    """
    started = global_timer_ns()
    x, y, z = cuda.grid(3)
    # Widen before subtracting: a 1-D grid of 2^31 - 1 blocks of 1024 threads overflows int32.
    rx = x - window[0]
    ry = y - window[1]
    rz = z - window[2]
    inside = not (rx < 0 or ry < 0 or rz < 0 or rx >= window[3] or ry >= window[4] or rz >= window[5])
    if inside:
        row = rx + ry * window[3] + rz * window[3] * window[4]

        threadIdx[row, 0] = cuda.threadIdx.x
        threadIdx[row, 1] = cuda.threadIdx.y
        threadIdx[row, 2] = cuda.threadIdx.z
        blockIdx[row, 0] = cuda.blockIdx.x
        blockIdx[row, 1] = cuda.blockIdx.y
        blockIdx[row, 2] = cuda.blockIdx.z

        grid1[row] = cuda.grid(1)
        gx, gy = cuda.grid(2)
        grid2[row, 0] = gx
        grid2[row, 1] = gy
        grid3[row, 0] = x
        grid3[row, 1] = y
        grid3[row, 2] = z

        linear = (
            cuda.threadIdx.x
            + cuda.threadIdx.y * cuda.blockDim.x
            + cuda.threadIdx.z * cuda.blockDim.x * cuda.blockDim.y
        )
        laneid[row] = cuda.laneid
        # WARP_SIZE (32) rather than cuda.warpsize: numba lowers that attribute through a device
        # function that needs a current GPU, and CI compiles this kernel to PTX with none.
        warp[row] = linear // WARP_SIZE
        smid[row] = sm_id()
        t_ns[row] = started
    # Every thread of the block reaches the barrier (no early return above), then one stamps.
    # The simulator has no clock to stamp, and a barrier there only slows every thread down.
    recorded_here = not SIMULATED and cuda.syncthreads_or(1 if inside else 0) != 0
    if recorded_here and cuda.threadIdx.x == 0 and cuda.threadIdx.y == 0 and cuda.threadIdx.z == 0:
        cuda.atomic.max(ended, 0, global_timer_ns())
