import random

from numba import cuda


@cuda.jit
def noisy(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = random.random()
