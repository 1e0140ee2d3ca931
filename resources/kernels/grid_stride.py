"""Grid-stride loop: a fixed number of threads covers an array of any size.

Each thread starts at its global index and steps by the total number of threads in the grid,
so consecutive threads still touch consecutive elements on every pass (coalesced).
"""

from numba import cuda


@cuda.jit
def scale(X, Y, a):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, X.size, stride):
        Y[i] = a * X[i]
