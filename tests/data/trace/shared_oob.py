"""A shared array indexed one past its end (tests/core/trace/test_trace_shared.py).
Read as text, never imported."""

from numba import cuda, float32


@cuda.jit
def shift(A, B):
    s = cuda.shared.array(32, float32)
    tx = cuda.threadIdx.x
    i = cuda.grid(1)
    s[tx] = A[i]
    if tx == 31:
        s[tx + 1] = -1.0  # past the end
    cuda.syncthreads()
    B[i] = s[tx + 1]  # lane 31 reads past the end
