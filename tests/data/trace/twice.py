from numba import cuda


@cuda.jit
def twice(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = 2 * a[i]
