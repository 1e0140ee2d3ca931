"""The shared-memory tile transpose with one float of padding per row: no bank conflicts.

With rows of 33 floats, tile[r, c] sits in bank (r * 33 + c) % 32 = (r + c) % 32. Reading the
column tile[tx, ty], lane tx hits bank (tx + ty) % 32: 32 lanes, 32 different banks, 1 wavefront.
Writing the row tile[ty, tx] stays conflict-free. The 32 extra floats per block cost 128 bytes
of shared memory and are never used.
"""

from numba import cuda, float32

TILE = 32  # launch with 32×32 threads per block
# A module constant may be computed (numba reads its value); inside the kernel,
# cuda.shared.array((TILE, TILE + 1), ...) would not compile on a GPU.
PADDED = TILE + 1


@cuda.jit
def transpose_tile_padded(A, B):
    tile = cuda.shared.array((TILE, PADDED), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    if y < A.shape[0] and x < A.shape[1]:
        tile[ty, tx] = A[y, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y = cuda.blockIdx.x * TILE + ty
    if y < B.shape[0] and x < B.shape[1]:
        B[y, x] = tile[tx, ty]  # a column of the tile, now across all 32 banks
