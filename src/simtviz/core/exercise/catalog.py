"""The exercises: the chapter's ideas first (guards, 2-D indexing, grid-stride loops, atomics,
shared tiles and barriers, coalescing and bank conflicts), then one step beyond each.

Each lists the launches the grader makes (several sizes; 1-D ones mostly not a multiple of the
block) and a NumPy reference of the outputs. The answers are not here: a student's own file is
the only kernel the grader runs. Sizes are small so that a check answers in about a second on the
simulator; on a GPU the same cases run.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from simtviz.core.exercise.catalog_more import MORE
from simtviz.core.exercise.model import Case, Exercise


def one_d(n: int, block: int, args: dict[str, str], grid: int | None = None) -> Case:
    return Case((grid or -(-n // block), 1, 1), (block, 1, 1), args)


def _vecadd(n: int, block: int) -> Case:
    return one_d(n, block, {"a": f"float32[{n}]:random", "b": f"float32[{n}]:random", "c": f"float32[{n}]"})


def _matadd(rows: int, cols: int) -> Case:
    arrays = {name: f"float32[{rows},{cols}]" for name in ("A", "B", "C")}
    arrays["A"] += ":random"
    arrays["B"] += ":random"
    return Case((-(-cols // 16), -(-rows // 16), 1), (16, 16, 1), arrays)


def _transpose(rows: int, cols: int) -> Case:
    return Case(
        (cols // 32, rows // 32, 1),
        (32, 32, 1),
        {"A": f"float32[{rows},{cols}]:random", "B": f"float32[{cols},{rows}]"},
    )


def _blur(a: np.ndarray) -> np.ndarray:
    padded = np.concatenate([[0.0], a.astype(np.float64), [0.0]])
    return ((padded[:-2] + padded[1:-1] + padded[2:]) / 3).astype(np.float32)


def _e(inputs: dict[str, Any], key: str) -> np.ndarray:
    return np.asarray(inputs[key])


VECADD_GUARD = Exercise(
    id="vecadd-guard",
    title="Vector add with a guard",
    kernel="add",
    params=("a", "b", "c"),
    topic="2.2.5: one thread per element, and the guard",
    statement=(
        "Write c = a + b for float32 vectors, one element per thread.\n\n"
        "The grader launches ceil(N / block) blocks, so the last block has threads past the end of "
        "the arrays (N is not a multiple of the block). Those threads must touch nothing."
    ),
    picture=(
        "block 0              block 1              block 2\n"
        "[t0 t1 ... t127]     [t0 t1 ... t127]     [t0 ... t43 | t44 ... t127]\n"
        " c[0] ...  c[127]     c[128] ... c[255]    c[256] c[299]| past the end: do nothing"
    ),
    starter=(
        "from numba import cuda\n\n\n@cuda.jit\ndef add(a, b, c):\n"
        "    i = cuda.grid(1)\n    # c[i] = a[i] + b[i], but only where i is inside the arrays\n"
    ),
    hints=(
        "cuda.grid(1) is threadIdx.x + blockIdx.x * blockDim.x: each thread's own element.",
        "The last block is only partly inside the arrays: compare i with c.size (or len(c)).",
        "Use i < c.size, not i <= c.size: the last element is c[c.size - 1].",
    ),
    checks=("output", "in_bounds", "written_once", "coalesced"),
    outputs=("c",),
    cases=(_vecadd(100, 64), _vecadd(300, 128)),
    expect=lambda x: {"c": _e(x, "a") + _e(x, "b")},
)

MATADD_2D = Exercise(
    id="matadd-2d",
    title="2-D matrix add",
    kernel="matadd",
    params=("A", "B", "C"),
    topic="2.2.4: 2-D grids and row-major arrays",
    statement=(
        "Write C = A + B for rows × cols float32 matrices with a 2-D launch of 16 × 16 blocks: "
        "x goes along the columns (the last axis), y down the rows.\n\n"
        "Neighbouring threads in x should touch neighbouring elements of a row, so that a warp's "
        "loads and stores are coalesced. The matrix sides are not all multiples of 16."
    ),
    picture=(
        "          x = column -->\n"
        "        +----------------+----------------+--\n"
        "  y     | block (0, 0)   | block (1, 0)   |\n"
        "  =     | A[y, x]: a row | of 16 per half |\n"
        "  row   +----------------+----------------+--\n"
        "  |     | block (0, 1)   | block (1, 1)   |\n"
        "  v     +----------------+----------------+--"
    ),
    starter=(
        "from numba import cuda\n\n\n@cuda.jit\ndef matadd(A, B, C):\n"
        "    x, y = cuda.grid(2)\n    # C = A + B; A.shape is (rows, cols)\n"
    ),
    hints=(
        "cuda.grid(2) gives (x, y): x is the column, y the row.",
        "Row-major: A[row, column], so write A[y, x], not A[x, y].",
        "Guard both: y < C.shape[0] and x < C.shape[1].",
    ),
    checks=("output", "in_bounds", "written_once", "coalesced"),
    outputs=("C",),
    cases=(_matadd(20, 24), _matadd(17, 16)),
    expect=lambda x: {"C": _e(x, "A") + _e(x, "B")},
)

GRID_STRIDE = Exercise(
    id="grid-stride",
    title="Grid-stride loop",
    kernel="scale",
    params=("a", "out", "factor"),
    topic="2.2.6: a grid smaller than the data",
    statement=(
        "Write out = a * factor for float32 vectors far longer than the grid: the grader launches "
        "a small fixed grid (2 blocks of 32 threads) whatever N is.\n\n"
        "Each thread starts at its own element and steps by the number of threads in the whole "
        "grid, so that a warp still touches neighbouring elements at every step."
    ),
    picture=(
        "64 threads, N = 1000:\n"
        "pass 0: t0 t1 ... t63 -> out[0]  ... out[63]\n"
        "pass 1: t0 t1 ... t63 -> out[64] ... out[127]\n"
        "...     (step = cuda.gridsize(1) = 64)"
    ),
    starter=(
        "from numba import cuda\n\n\n@cuda.jit\ndef scale(a, out, factor):\n"
        "    start = cuda.grid(1)\n    # out[i] = a[i] * factor for every i, with only a few threads\n"
    ),
    hints=(
        "One element per thread is not enough: loop.",
        "for i in range(start, out.size, step): with step the whole grid's thread count.",
        "cuda.gridsize(1) is blockDim.x * gridDim.x: use it as the step, not blockDim.x.",
    ),
    checks=("output", "in_bounds", "written_once", "coalesced"),
    outputs=("out",),
    cases=tuple(
        one_d(n, 32, {"a": f"float32[{n}]:random", "out": f"float32[{n}]", "factor": "float32:3.0"}, grid=2)
        for n in (1000, 333)
    ),
    expect=lambda x: {"out": (_e(x, "a") * np.float32(x["factor"])).astype(np.float32)},
)

HISTOGRAM_ATOMIC = Exercise(
    id="histogram-atomic",
    title="Histogram with atomics",
    kernel="hist",
    params=("data", "bins"),
    topic="atomics: many threads updating one counter",
    statement=(
        "Count int32 values, each in [0, len(bins)), into int32 bins: bins[v] is how many elements "
        "of data equal v. One thread per element of data.\n\n"
        "Many threads hit the same bin at once; bins[v] += 1 is a load and a store, and two threads "
        "doing it together lose a count."
    ),
    picture=(
        "data: 3 7 3 0 3 ...\n"
        "       \\  |  /\n"
        "bins[3] += 1  three times at once: a load, an add and a store each -> a race"
    ),
    starter=(
        "from numba import cuda\n\n\n@cuda.jit\ndef hist(data, bins):\n"
        "    i = cuda.grid(1)\n    # count data[i] into bins\n"
    ),
    hints=(
        "Guard i < data.size first.",
        "bins[data[i]] += 1 races: another thread can store between your load and your store.",
        "cuda.atomic.add(bins, data[i], 1) does the load, the add and the store as one step.",
    ),
    checks=("output", "in_bounds", "race_free"),
    outputs=("bins",),
    cases=tuple(one_d(n, 128, {"data": f"int32[{n}]:random", "bins": "int32[100]"}) for n in (200, 500)),
    expect=lambda x: {"bins": np.bincount(_e(x, "data"), minlength=100).astype(np.int32)},
)

TILE_SYNC = Exercise(
    id="tile-sync",
    title="Blur through a shared tile",
    kernel="blur",
    params=("a", "out"),
    topic="shared memory and cuda.syncthreads()",
    statement=(
        "Write out[i] = (a[i-1] + a[i] + a[i+1]) / 3 for a float32 vector, with zeros outside a. "
        "Blocks have 128 threads.\n\n"
        "Each block first copies its 128 elements, plus one neighbour on each side, into a "
        "cuda.shared.array tile; then each thread reads its three values from the tile. Nothing "
        "may read the tile before every thread of the block has written its part."
    ),
    picture=(
        "tile (130 floats):  [halo | a[start] ... a[start+127] | halo]\n"
        "step 1: every thread stores its element (thread 0 and 127 the halos too)\n"
        "-------- cuda.syncthreads() --------\n"
        "step 2: out[i] = (tile[t] + tile[t+1] + tile[t+2]) / 3"
    ),
    starter=(
        "from numba import cuda, float32\n\nTPB = 128\nTILE = 130  # TPB + 2\n\n\n@cuda.jit\n"
        "def blur(a, out):\n    tile = cuda.shared.array(TILE, float32)\n    i = cuda.grid(1)\n"
        "    t = cuda.threadIdx.x + 1\n    # fill the tile (zeros outside a), then average three neighbours\n"
    ),
    hints=(
        "Thread t stores a[i] into tile[t + 1]; thread 0 also stores the left halo, the last one the right.",
        "Outside a (i - 1 < 0, i + 1 >= a.size, the threads past the end) store 0.0 into the tile.",
        "Between the stores and the loads of the tile, every thread must call cuda.syncthreads().",
    ),
    checks=("output", "in_bounds", "written_once", "race_free"),
    outputs=("out",),
    cases=tuple(one_d(n, 128, {"a": f"float32[{n}]:random", "out": f"float32[{n}]"}) for n in (300, 128)),
    expect=lambda x: {"out": _blur(_e(x, "a"))},
    coalesced_slack=1.0,
)

TRANSPOSE_COALESCED = Exercise(
    id="transpose-coalesced",
    title="Coalesced transpose",
    kernel="transpose",
    params=("A", "B"),
    topic="coalescing and bank conflicts",
    statement=(
        "Write B = A.T for a float32 matrix whose sides are multiples of 32, with blocks of 32 × 32 "
        "threads (x along A's columns).\n\n"
        "Reading A by rows and writing B by rows directly would make one of them scattered. Go "
        "through a 32 × 32 shared tile: load a tile of A by rows, then store it into B by rows, "
        "reading the tile by columns, without bank conflicts."
    ),
    picture=(
        "A (rows × cols)          tile           B (cols × rows)\n"
        "row of 32 --load-->  tile[ty, tx]  --store--> row of 32 of B\n"
        "                     read tile[tx, ty]: a column: 32 rows apart\n"
        "                     32 floats per row -> one bank; 33 -> all 32 banks"
    ),
    starter=(
        "from numba import cuda, float32\n\nTILE = 32\n\n\n@cuda.jit\ndef transpose(A, B):\n"
        "    tile = cuda.shared.array((TILE, TILE), float32)\n"
        "    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y\n"
        "    bx, by = cuda.blockIdx.x, cuda.blockIdx.y\n    # B = A.T, coalesced both ways\n"
    ),
    hints=(
        "Load: tile[ty, tx] = A[by * 32 + ty, bx * 32 + tx].",
        "Store: B[bx * 32 + ty, by * 32 + tx] = tile[tx, ty], after cuda.syncthreads().",
        "A column of a (32, 32) float32 tile is all in one bank: make the tile (32, 33).",
    ),
    checks=("output", "in_bounds", "coalesced", "conflict_free", "race_free"),
    outputs=("B",),
    cases=(_transpose(32, 64), _transpose(64, 32)),
    expect=lambda x: {"B": np.ascontiguousarray(_e(x, "A").T)},
)

CHAPTER = (VECADD_GUARD, MATADD_2D, GRID_STRIDE, HISTOGRAM_ATOMIC, TILE_SYNC, TRANSPOSE_COALESCED)


@cache
def exercises() -> tuple[Exercise, ...]:
    return CHAPTER + MORE


def exercise(exercise_id: str) -> Exercise:
    for e in exercises():
        if e.id == exercise_id:
            return e
    raise KeyError(f"no exercise {exercise_id!r} (have {', '.join(e.id for e in exercises())})")
