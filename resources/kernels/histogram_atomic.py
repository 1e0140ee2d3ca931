"""Histogram with cuda.atomic.add: each increment is one indivisible read-modify-write."""

from numba import cuda


@cuda.jit
def histogram(data, bins):
    i = cuda.grid(1)
    if i < data.size:
        b = data[i] % bins.size
        cuda.atomic.add(bins, b, 1)
