"""Kernels for the schedule experiment: each block writes down its SM and when it started and ended.

Every thread spins on ``%globaltimer`` for ``work_ns`` so that blocks stay resident long enough
for residency and waves to show; then the block synchronises, thread 0 records (SM, start, end)
in the block's row, and the block synchronises again so that no warp leaves before the stamp.
Shared memory per block is the launch's dynamic shared memory (the 4th launch argument,
``kernel[grid, block, 0, smem]``): the driver reserves it for every block whether or not the
kernel touches it, so one kernel serves every size.

``schedule_blocks_heavy`` does the same while keeping many 64-bit values alive across the spin,
so it needs many more registers per thread: with it the register file, not the thread count,
limits how many blocks an SM holds. ``heavy_kernel(max_registers)`` caps its registers (ptxas
``-maxrregcount``) to get other register counts from the same source.

On the simulator the SM id and the clock read -1: the spin is skipped and the rows hold -1.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from numba import cuda

from simtviz.kernels.intrinsics import global_timer_ns, sm_id

# work_ns, smid (per block), start_ns, end_ns (per block)
SCHEDULE_SIGNATURE = "void(int64, int32[::1], int64[::1], int64[::1])"


@cuda.jit(cache=True)
def schedule_blocks(work_ns, smid, start_ns, end_ns):
    started = global_timer_ns()
    # A block's threads start within a few ns of each other (one warp = one instruction), so
    # thread 0's reading stands for the block's arrival on its SM.
    if started >= 0:  # the simulator's clock reads -1: nothing to wait for there
        while global_timer_ns() - started < work_ns:
            pass
    cuda.syncthreads()
    if cuda.threadIdx.x == 0 and cuda.threadIdx.y == 0 and cuda.threadIdx.z == 0:
        b = cuda.blockIdx.x + cuda.gridDim.x * (cuda.blockIdx.y + cuda.gridDim.y * cuda.blockIdx.z)
        smid[b] = sm_id()
        start_ns[b] = started
        end_ns[b] = global_timer_ns()
    # No warp leaves before the end is stamped: an SM frees each warp's registers as that warp
    # exits, so without this barrier the next block could start while thread 0's warp is still
    # stamping, and one more block than fits would look resident (measured: 5 where 4 fit).
    cuda.syncthreads()


@cuda.jit(cache=True)
def schedule_blocks_heavy(work_ns, smid, start_ns, end_ns):
    started = global_timer_ns()
    seed = started + cuda.threadIdx.x
    # Sixteen 64-bit values (two registers each) that all stay alive through the spin: each round
    # mixes every one into the next, so none can be computed late or folded away.
    a0 = seed * 3 + 1
    a1 = a0 * 5 + 2
    a2 = a1 * 7 + 3
    a3 = a2 * 11 + 4
    a4 = a3 * 13 + 5
    a5 = a4 * 17 + 6
    a6 = a5 * 19 + 7
    a7 = a6 * 23 + 8
    a8 = a7 * 29 + 9
    a9 = a8 * 31 + 10
    a10 = a9 * 37 + 11
    a11 = a10 * 41 + 12
    a12 = a11 * 43 + 13
    a13 = a12 * 47 + 14
    a14 = a13 * 53 + 15
    a15 = a14 * 59 + 16
    now = started
    spinning = started >= 0
    while spinning:
        a0 = a0 * 3 + a15
        a1 = a1 * 5 + a0
        a2 = a2 * 7 + a1
        a3 = a3 * 11 + a2
        a4 = a4 * 13 + a3
        a5 = a5 * 17 + a4
        a6 = a6 * 19 + a5
        a7 = a7 * 23 + a6
        a8 = a8 * 29 + a7
        a9 = a9 * 31 + a8
        a10 = a10 * 37 + a9
        a11 = a11 * 41 + a10
        a12 = a12 * 43 + a11
        a13 = a13 * 47 + a12
        a14 = a14 * 53 + a13
        a15 = a15 * 59 + a14
        now = global_timer_ns()
        spinning = now - started < work_ns
    total = a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7 ^ a8 ^ a9 ^ a10 ^ a11 ^ a12 ^ a13 ^ a14 ^ a15
    cuda.syncthreads()
    if cuda.threadIdx.x == 0 and cuda.threadIdx.y == 0 and cuda.threadIdx.z == 0:
        b = cuda.blockIdx.x + cuda.gridDim.x * (cuda.blockIdx.y + cuda.gridDim.y * cuda.blockIdx.z)
        smid[b] = sm_id()
        start_ns[b] = started
        end_ns[b] = global_timer_ns()
        # Never true in practice (a 64-bit hash hitting one value), but the compiler cannot know.
        if total == 0x5EED:
            end_ns[b] = -2
    cuda.syncthreads()  # as in schedule_blocks: no warp leaves before the end is stamped


@cache
def heavy_kernel(max_registers: int | None = None) -> Any:
    """The register-heavy kernel compiled with at most ``max_registers`` registers per thread."""
    if max_registers is None:
        return schedule_blocks_heavy
    return cuda.jit(max_registers=max_registers)(schedule_blocks_heavy.py_func)  # type: ignore[call-arg]


# For kernels.registry: CI compiles both to PTX without a GPU.
PTX_KERNELS = {"schedule_blocks": SCHEDULE_SIGNATURE, "schedule_blocks_heavy": SCHEDULE_SIGNATURE}
