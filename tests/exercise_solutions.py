"""Reference solutions of every exercise (tests only: never shipped to the student's view) and,
for each of its checks, a wrong solution that fails exactly that check."""

from __future__ import annotations

HEAD = "from numba import cuda, float32, int32\n\n"

REFERENCE: dict[str, str] = {
    "vecadd-guard": HEAD
    + """
@cuda.jit
def add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]
""",
    "matadd-2d": HEAD
    + """
@cuda.jit
def matadd(A, B, C):
    x, y = cuda.grid(2)
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = A[y, x] + B[y, x]
""",
    "grid-stride": HEAD
    + """
@cuda.jit
def scale(a, out, factor):
    start = cuda.grid(1)
    for i in range(start, out.size, cuda.gridsize(1)):
        out[i] = a[i] * factor
""",
    "histogram-atomic": HEAD
    + """
@cuda.jit
def hist(data, bins):
    i = cuda.grid(1)
    if i < data.size:
        cuda.atomic.add(bins, data[i], 1)
""",
    "tile-sync": HEAD
    + """TILE = 130


@cuda.jit
def blur(a, out):
    tile = cuda.shared.array(TILE, float32)
    i = cuda.grid(1)
    t = cuda.threadIdx.x + 1
    tile[t] = a[i] if i < a.size else 0.0
    if t == 1:
        tile[0] = a[i - 1] if i >= 1 and i - 1 < a.size else 0.0
    if t == cuda.blockDim.x:
        tile[t + 1] = a[i + 1] if i + 1 < a.size else 0.0
    cuda.syncthreads()
    if i < out.size:
        out[i] = (tile[t - 1] + tile[t] + tile[t + 1]) / 3
""",
    "transpose-coalesced": HEAD
    + """TILE = 32
PADDED = 33


@cuda.jit
def transpose(A, B):
    tile = cuda.shared.array((TILE, PADDED), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    bx, by = cuda.blockIdx.x, cuda.blockIdx.y
    tile[ty, tx] = A[by * TILE + ty, bx * TILE + tx]
    cuda.syncthreads()
    B[bx * TILE + ty, by * TILE + tx] = tile[tx, ty]
""",
    "saxpy": HEAD
    + """
@cuda.jit
def saxpy(alpha, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = alpha * x[i] + y[i]
""",
    "reverse": HEAD
    + """
@cuda.jit
def reverse(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[a.size - 1 - i]
""",
    "colsum": HEAD
    + """
@cuda.jit
def colsum(A, sums):
    c = cuda.grid(1)
    if c < A.shape[1]:
        total = 0.0
        for r in range(A.shape[0]):
            total += A[r, c]
        sums[c] = total
""",
    "block-sum": HEAD
    + """TPB = 128


@cuda.jit
def block_sum(a, sums):
    tile = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    tile[t] = a[i] if i < a.size else 0.0
    cuda.syncthreads()
    s = 64
    while s > 0:
        if t < s:
            tile[t] += tile[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        sums[cuda.blockIdx.x] = tile[0]
""",
    "dot-atomic": HEAD
    + """
@cuda.jit
def dot(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        cuda.atomic.add(out, 0, a[i] * b[i])
""",
    "histogram-shared": HEAD
    + """BINS = 100


@cuda.jit
def hist_shared(data, bins):
    sbins = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if t < BINS:
        sbins[t] = 0
    cuda.syncthreads()
    if i < data.size:
        cuda.atomic.add(sbins, data[i], 1)
    cuda.syncthreads()
    if t < BINS:
        cuda.atomic.add(bins, t, sbins[t])
""",
}


def _edit(exercise: str, *pairs: str) -> str:
    source = REFERENCE[exercise]
    for old, new in zip(pairs[::2], pairs[1::2], strict=True):
        assert old in source, (exercise, old)
        source = source.replace(old, new)
    return source


# Per exercise, per check: a solution that fails that check and passes the others.
WRONG: dict[str, dict[str, str]] = {
    "vecadd-guard": {
        "output": _edit("vecadd-guard", "a[i] + b[i]", "a[i] - b[i]"),
        "in_bounds": _edit("vecadd-guard", "    if i < c.size:\n        c[i]", "    if True:\n        c[i]"),
        "written_once": _edit(
            "vecadd-guard", "a[i] + b[i]\n", "a[i] + b[i]\n    if i == 0:\n        c[1] = a[1] + b[1]\n"
        ),
        "coalesced": _edit(
            "vecadd-guard",
            "i = cuda.grid(1)",
            "i = cuda.threadIdx.x * cuda.gridDim.x + cuda.blockIdx.x",
        ),
    },
    "matadd-2d": {
        "output": _edit("matadd-2d", "A[y, x] + B[y, x]", "A[y, x] - B[y, x]"),
        "in_bounds": _edit("matadd-2d", "if y < C.shape[0] and x < C.shape[1]:", "if True:"),
        "written_once": _edit(
            "matadd-2d",
            "A[y, x] + B[y, x]\n",
            "A[y, x] + B[y, x]\n    if x == 1 and y == 0:\n        C[0, 0] = A[0, 0] + B[0, 0]\n",
        ),
        # x/y swapped inside each block: the same elements, but a warp walks down columns
        "coalesced": _edit(
            "matadd-2d",
            "x, y = cuda.grid(2)",
            "x = cuda.blockIdx.x * 16 + cuda.threadIdx.y\n    y = cuda.blockIdx.y * 16 + cuda.threadIdx.x",
        ),
    },
    "grid-stride": {
        "output": _edit("grid-stride", "a[i] * factor", "a[i] + factor"),
        "in_bounds": _edit("grid-stride", "range(start, out.size,", "range(start, out.size + 1,"),
        "written_once": _edit("grid-stride", "cuda.gridsize(1)", "cuda.blockDim.x"),
        # each thread a contiguous chunk: lanes far apart
        "coalesced": _edit(
            "grid-stride",
            "for i in range(start, out.size, cuda.gridsize(1)):",
            "chunk = (out.size + cuda.gridsize(1) - 1) // cuda.gridsize(1)\n"
            "    for i in range(start * chunk, min(start * chunk + chunk, out.size)):",
        ),
    },
    "histogram-atomic": {
        "output": _edit("histogram-atomic", "data[i], 1)", "data[i], 2)"),
        "in_bounds": _edit(
            "histogram-atomic",
            "data[i], 1)\n",
            "data[i], 1)\n    if i == data.size:\n        peek = data[i]\n",
        ),
        "race_free": _edit("histogram-atomic", "cuda.atomic.add(bins, data[i], 1)", "bins[data[i]] += 1"),
    },
    "tile-sync": {
        "output": _edit("tile-sync", ") / 3", ") / 2"),
        "in_bounds": _edit("tile-sync", "a[i - 1] if i >= 1 and i - 1 < a.size else 0.0", "a[i - 1]"),
        "written_once": _edit(
            "tile-sync",
            "        out[i] = (tile[t - 1] + tile[t] + tile[t + 1]) / 3\n",
            "        out[i] = (tile[t - 1] + tile[t] + tile[t + 1]) / 3\n"
            "    cuda.syncthreads()\n"
            "    if t == 2:\n"
            "        out[i - 1] = (tile[t - 2] + tile[t - 1] + tile[t]) / 3\n",
        ),
        "race_free": _edit("tile-sync", "    cuda.syncthreads()\n", ""),
    },
    "transpose-coalesced": {
        "output": _edit("transpose-coalesced", "= tile[tx, ty]", "= 2 * tile[tx, ty]"),
        "in_bounds": _edit(
            "transpose-coalesced",
            "    cuda.syncthreads()\n",
            "    cuda.syncthreads()\n    if tx == 0 and ty == 0:\n        peek = A[A.shape[0], 0]\n",
        ),
        # straight through the tile: B's stores go down columns
        "coalesced": _edit(
            "transpose-coalesced",
            "B[bx * TILE + ty, by * TILE + tx] = tile[tx, ty]",
            "B[bx * TILE + tx, by * TILE + ty] = tile[ty, tx]",
        ),
        "conflict_free": _edit("transpose-coalesced", "(TILE, PADDED)", "(TILE, TILE)"),
        "race_free": _edit("transpose-coalesced", "    cuda.syncthreads()\n", ""),
    },
    "saxpy": {
        "output": _edit("saxpy", "alpha * x[i] + y[i]", "x[i] + y[i]"),
        "in_bounds": _edit("saxpy", "if i < out.size:", "if i <= out.size:"),
        "written_once": _edit(
            "saxpy", "x[i] + y[i]\n", "x[i] + y[i]\n    if i == 0:\n        out[1] = alpha * x[1] + y[1]\n"
        ),
        "coalesced": _edit(
            "saxpy", "i = cuda.grid(1)", "i = cuda.threadIdx.x * cuda.gridDim.x + cuda.blockIdx.x"
        ),
    },
    "reverse": {
        "output": _edit("reverse", "a[a.size - 1 - i]", "a[i]"),
        "in_bounds": _edit("reverse", "if i < out.size:", "if i <= out.size:"),
        "written_once": _edit(
            "reverse",
            "a[a.size - 1 - i]\n",
            "a[a.size - 1 - i]\n        if i == 1:\n            out[0] = a[a.size - 1]\n",
        ),
        "coalesced": _edit(
            "reverse", "i = cuda.grid(1)", "i = cuda.threadIdx.x * cuda.gridDim.x + cuda.blockIdx.x"
        ),
    },
    "colsum": {
        "output": _edit("colsum", "total += A[r, c]", "total = A[r, c]"),
        "in_bounds": _edit("colsum", "for r in range(A.shape[0]):", "for r in range(A.shape[0] + 1):"),
        "written_once": _edit(
            "colsum",
            "        sums[c] = total\n",
            "        sums[c] = total\n    cuda.syncthreads()\n    if c == 1:\n        sums[0] = sums[0]\n",
        ),
        "coalesced": _edit(
            "colsum", "c = cuda.grid(1)", "c = cuda.threadIdx.x * cuda.gridDim.x + cuda.blockIdx.x"
        ),
    },
    "block-sum": {
        "output": _edit("block-sum", "s = 64\n", "s = 32\n"),
        "in_bounds": _edit("block-sum", "a[i] if i < a.size else 0.0", "a[i]"),
        "written_once": _edit(
            "block-sum",
            "        sums[cuda.blockIdx.x] = tile[0]\n",
            "        sums[cuda.blockIdx.x] = tile[0]\n    cuda.syncthreads()\n    if t == 1:\n"
            "        sums[cuda.blockIdx.x] = tile[0]\n",
        ),
        # interleaved addressing: thread t works on 2·s·t, neighbours 2·s words apart
        "conflict_free": _edit(
            "block-sum",
            "        if t < s:\n            tile[t] += tile[t + s]\n",
            "        k = 2 * (64 // s) * t\n        if k + (64 // s) < 128:\n"
            "            tile[k] += tile[k + (64 // s)]\n",
        ),
        "race_free": _edit("block-sum", "        cuda.syncthreads()\n        s //= 2", "        s //= 2"),
    },
    "dot-atomic": {
        "output": _edit("dot-atomic", "a[i] * b[i]", "a[i] + b[i]"),
        "in_bounds": _edit("dot-atomic", "if i < a.size:", "if True:"),
        "race_free": _edit("dot-atomic", "cuda.atomic.add(out, 0, a[i] * b[i])", "out[0] += a[i] * b[i]"),
    },
    "histogram-shared": {
        "output": _edit("histogram-shared", "cuda.atomic.add(bins, t, sbins[t])", "bins[t] = sbins[t]"),
        "in_bounds": _edit("histogram-shared", "    if t < BINS:\n        sbins[t] = 0", "    sbins[t] = 0"),
        "race_free": _edit(
            "histogram-shared", "        sbins[t] = 0\n    cuda.syncthreads()\n", "        sbins[t] = 0\n"
        ),
    },
}
