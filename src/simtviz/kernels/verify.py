"""The oracle on the device: one pass over a GPU record, checking every thread against the formulas.

``simtviz.core.oracle`` is the reference (NumPy or CuPy, ~70 array operations); on a GPU that
costs ~13 ms for 2^24 threads, so the GPU backend runs this fused kernel instead (one read of the
record, ~1 ms). ``tests/gpu`` checks that both agree, on good records and on corrupted ones.
"""

from __future__ import annotations

from numba import cuda

from simtviz.core import schema
from simtviz.core.launch import WARP_SIZE

# Order of the per-field mismatch counters in ``bad``: the checked fields of the record schema,
# in the order the kernel's parameters take them (tests/kernels/test_ptx.py checks the names).
VERIFY_FIELDS = schema.CHECKED_FIELDS
# After them in ``bad``: the number of wrong rows, and the lowest wrong row (set it to n first).
BAD_ROWS = len(VERIFY_FIELDS)
FIRST_BAD_ROW = BAD_ROWS + 1
COUNTERS = FIRST_BAD_ROW + 1

VERIFY_SIGNATURE = schema.VERIFY_SIGNATURE


@cuda.jit(cache=True)
def verify_records(threadIdx, blockIdx, grid1, grid2, grid3, laneid, warp, window, block_dim, rows, bad):
    """Check rows 0..rows-1 against the formulas; bad[f] counts the rows where field f is wrong.

    The kernel also counts the wrong rows and finds the lowest one itself (atomics touched only by
    wrong rows), so the host needs no CuPy reduction: on a fresh machine each new reduction kernel
    costs CuPy seconds of NVRTC compiling.
    """
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    wx = window[3]
    wy = window[4]
    bx = block_dim[0]
    by = block_dim[1]
    bz = block_dim[2]
    for row in range(start, rows, stride):
        gx = row % wx + window[0]
        gy = (row // wx) % wy + window[1]
        gz = row // (wx * wy) + window[2]
        tx = gx % bx
        ty = gy % by
        tz = gz % bz
        linear = tx + ty * bx + tz * bx * by
        good = True
        if threadIdx[row, 0] != tx or threadIdx[row, 1] != ty or threadIdx[row, 2] != tz:
            cuda.atomic.add(bad, 0, 1)
            good = False
        if blockIdx[row, 0] != gx // bx or blockIdx[row, 1] != gy // by or blockIdx[row, 2] != gz // bz:
            cuda.atomic.add(bad, 1, 1)
            good = False
        if grid1[row] != gx:
            cuda.atomic.add(bad, 2, 1)
            good = False
        if grid2[row, 0] != gx or grid2[row, 1] != gy:
            cuda.atomic.add(bad, 3, 1)
            good = False
        if grid3[row, 0] != gx or grid3[row, 1] != gy or grid3[row, 2] != gz:
            cuda.atomic.add(bad, 4, 1)
            good = False
        if laneid[row] != linear % WARP_SIZE:
            cuda.atomic.add(bad, 5, 1)
            good = False
        if warp[row] != linear // WARP_SIZE:
            cuda.atomic.add(bad, 6, 1)
            good = False
        if not good:
            cuda.atomic.add(bad, BAD_ROWS, 1)
            cuda.atomic.min(bad, FIRST_BAD_ROW, row)
