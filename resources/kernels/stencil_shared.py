"""1-D stencil with shared memory: each block loads its tile (plus a halo) once, then every
thread sums its neighbours from the tile. cuda.syncthreads() makes the whole tile visible
before anyone reads it. Neighbouring lanes touch neighbouring words: no bank conflicts.
"""

from numba import cuda, float32

TPB = 128  # threads per block: the tile size (launch with this block size)
RADIUS = 1
# TPB + 2 * RADIUS, written out: on a GPU numba needs a shared array's size as one plain
# constant (an expression of globals fails to type), although the simulator accepts either.
TILE = 130


@cuda.jit
def stencil(X, Y):
    tile = cuda.shared.array(TILE, float32)
    i = cuda.grid(1)
    t = cuda.threadIdx.x + RADIUS
    if i < X.size:
        tile[t] = X[i]
        if cuda.threadIdx.x < RADIUS:
            if i >= RADIUS:
                tile[t - RADIUS] = X[i - RADIUS]
            else:
                tile[t - RADIUS] = 0
            if i + TPB < X.size:
                tile[t + TPB] = X[i + TPB]
            else:
                tile[t + TPB] = 0
    cuda.syncthreads()
    if i < X.size:
        total = tile[t - 1] + tile[t] + tile[t + 1]
        Y[i] = total
