"""Naive matrix transpose: the loads are coalesced, the stores are not.

A warp of a 16×16 block is two rows of 16 threads. Reading A[y, x], each row of the warp reads
16 neighbouring floats (64 bytes, 2 sectors): 4 sectors per request. Writing B[x, y], the 32
threads write into 16 different rows of B: 16 sectors per request, a quarter of each used.
"""

from numba import cuda


@cuda.jit
def transpose(A, B):
    x, y = cuda.grid(2)
    if y < A.shape[0] and x < A.shape[1]:
        B[x, y] = A[y, x]
