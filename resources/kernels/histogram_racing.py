"""Histogram without atomics: a race.

Several threads read the same bin, add one and write it back; when they do so at the same
time, increments are lost. The trace shows each bin stored by more than one thread.
"""

from numba import cuda


@cuda.jit
def histogram(data, bins):
    i = cuda.grid(1)
    if i < data.size:
        b = data[i] % bins.size
        bins[b] += 1  # read, add, write back: not atomic
