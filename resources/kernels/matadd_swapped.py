"""2-D matrix add with x and y swapped (a bug to find).

cuda.grid(2) gives (x, y): x runs along a row (the column index), y down the columns (the row
index). The guard is right, the indexing is not: C[x, y] should be C[y, x]. With a matrix that
is wider than tall, threads with x >= rows index past the last row, and the columns from
rows onwards are never touched.
"""

from numba import cuda


@cuda.jit
def matadd(A, B, C):
    x, y = cuda.grid(2)
    if x < C.shape[1] and y < C.shape[0]:  # x walks the columns, y the rows
        C[x, y] = A[x, y] + B[x, y]  # bug: should be C[y, x] = A[y, x] + B[y, x]
