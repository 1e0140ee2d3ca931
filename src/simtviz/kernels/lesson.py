"""Small kernels the lesson's probes run on both backends: counting threads, reading indices,
warps and lanes. Each is the smallest kernel that shows one claim of the chapter."""

from __future__ import annotations

from numba import cuda

COUNT_SIGNATURE = "void(int64[::1])"
INDEX_SIGNATURE = "void(int64[::1], int64[::1])"
WARP_SIGNATURE = "void(int32[::1], int32[::1])"


@cuda.jit
def count_threads(hits):
    # Every thread adds 1 once: the count is the number of threads that ran the body.
    cuda.atomic.add(hits, 0, 1)


@cuda.jit
def index_1d(formula, grid1):
    # 1-D launch: the chapter's formula and cuda.grid(1), stored by each thread at its own slot.
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    formula[i] = i
    grid1[i] = cuda.grid(1)


@cuda.jit
def index_2d(grid1, unused):
    # 2-D launch: each thread stores cuda.grid(1) at its own linear slot (x + y * width).
    x, y = cuda.grid(2)
    width = cuda.gridDim.x * cuda.blockDim.x
    grid1[x + y * width] = cuda.grid(1)


@cuda.jit
def warp_and_lane(warp, lane):
    t = cuda.threadIdx.x
    warp[t] = t // 32  # warps of 32 threads
    lane[t] = cuda.laneid  # the hardware's lane number


PTX_KERNELS = {
    "count_threads": COUNT_SIGNATURE,
    "index_1d": INDEX_SIGNATURE,
    "index_2d": INDEX_SIGNATURE,
    "warp_and_lane": WARP_SIGNATURE,
}
