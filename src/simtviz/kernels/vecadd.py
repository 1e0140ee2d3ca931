"""The chapter's vector add (§2.2.5), written as the guide writes it, with and without the guard.

``vecadd`` is the one to teach: the grid is rounded up to whole blocks, so the last block has
threads past the end of the arrays, and ``if work_index < C.size`` keeps them from writing.
``vecadd_unguarded`` is the kernel exactly as printed in the guide. On a GPU nothing checks its
indices (numba-cuda disables bounds checking, CuPy arrays included): the surplus threads write
past the end of C. The simulator bounds-checks like NumPy and raises IndexError instead.
"""

from __future__ import annotations

from numba import cuda

# Argument types, for compiling to PTX without a GPU (CI): float64 in, as cp.random.uniform gives.
VECADD_SIGNATURE = "void(float64[::1], float64[::1], float64[::1])"


# Defines a CUDA kernel to perform C = A + B vector addition
@cuda.jit
def vecadd(A, B, C):
    work_index = cuda.grid(1)
    if work_index < C.size:
        C[work_index] = A[work_index] + B[work_index]


# As printed in the guide: no guard, so threads past the end of C write there anyway
@cuda.jit
def vecadd_unguarded(A, B, C):
    work_index = cuda.grid(1)
    C[work_index] = A[work_index] + B[work_index]


def kernel_for(guarded: bool):  # -> numba Dispatcher
    return vecadd if guarded else vecadd_unguarded


# For kernels.registry: CI compiles each to PTX without a GPU.
PTX_KERNELS = {"vecadd": VECADD_SIGNATURE, "vecadd_unguarded": VECADD_SIGNATURE}
