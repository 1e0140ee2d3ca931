"""Shared-memory access patterns, one warp: rows, broadcasts and strides of float32 and float64
(tests/core/trace/test_trace_shared.py works out their bank conflicts by hand).
Read as text, never imported."""

from numba import cuda, float32, float64


@cuda.jit
def patterns(A):
    f = cuda.shared.array(64, float32)
    d = cuda.shared.array(64, float64)
    tx = cuda.threadIdx.x
    f[tx] = tx  # f row
    f[tx + 32] = tx  # f upper row
    d[tx] = tx  # d row
    d[tx + 32] = tx  # d upper row
    cuda.syncthreads()
    a = f[0]  # f broadcast
    b = f[2 * tx]  # f stride 2
    c = d[0]  # d broadcast
    e = d[2 * tx]  # d stride 2
    A[tx] = a + b + c + e
