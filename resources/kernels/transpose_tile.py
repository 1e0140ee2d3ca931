"""Transpose through a 32×32 shared-memory tile: global loads and stores both coalesced, but
the tile's columns are read with a 32-way bank conflict.

Shared memory has 32 banks of 4 bytes: float tile[r, c] sits in bank (r * 32 + c) % 32 = c.
A warp is one row of the 32×32 block (threadIdx.y fixed, threadIdx.x = 0..31). Writing
tile[ty, tx], its 32 lanes hit 32 different banks: 1 wavefront. Reading tile[tx, ty], all 32
lanes hit bank ty, each a different word: 32 wavefronts, one after another. Compare the padded
template, whose rows are 33 floats long.
"""

from numba import cuda, float32

TILE = 32  # launch with 32×32 threads per block


@cuda.jit
def transpose_tile(A, B):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    if y < A.shape[0] and x < A.shape[1]:
        tile[ty, tx] = A[y, x]  # a row of the tile: conflict-free
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx  # the transposed block
    y = cuda.blockIdx.x * TILE + ty
    if y < B.shape[0] and x < B.shape[1]:
        B[y, x] = tile[tx, ty]  # a column of the tile: 32 lanes, one bank
