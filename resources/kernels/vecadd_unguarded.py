"""The chapter's vector add as printed: no guard, so the last block's extra threads go past the end.

Launch more threads than elements (the grid is rounded up to whole blocks) and look at the
out-of-bounds accesses: three per extra thread (two loads, one store). On a GPU nothing stops
them; here they are recorded and skipped.
"""

from numba import cuda


@cuda.jit
def vecadd(A, B, C):
    i = cuda.grid(1)
    C[i] = A[i] + B[i]
