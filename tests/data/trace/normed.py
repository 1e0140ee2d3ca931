import numpy as np
from numba import cuda


@cuda.jit
def normed(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] / np.linalg.norm(a)
