"""One step beyond the chapter: the same ideas in new kernels (see ``catalog``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from simtviz.core.exercise.model import Case, Exercise


def _one_d(n: int, block: int, args: dict[str, str]) -> Case:
    return Case((-(-n // block), 1, 1), (block, 1, 1), args)


def _e(inputs: dict[str, Any], key: str) -> np.ndarray:
    return np.asarray(inputs[key])


SAXPY = Exercise(
    id="saxpy",
    title="SAXPY",
    kernel="saxpy",
    params=("alpha", "x", "y", "out"),
    topic="a scalar argument, one element per thread",
    statement=(
        "Write out = alpha * x + y for float32 vectors and a float32 scalar alpha, one element per "
        "thread; N is not a multiple of the block."
    ),
    picture="out[i] = alpha * x[i] + y[i]     (alpha is the same number for every thread)",
    starter="from numba import cuda\n\n\n@cuda.jit\ndef saxpy(alpha, x, y, out):\n    i = cuda.grid(1)\n",
    hints=("alpha is a plain number: use it as it is.", "Guard i < out.size."),
    checks=("output", "in_bounds", "written_once", "coalesced"),
    outputs=("out",),
    cases=tuple(
        _one_d(
            n,
            b,
            {
                "alpha": "float32:2.5",
                "x": f"float32[{n}]:random",
                "y": f"float32[{n}]:random",
                "out": f"float32[{n}]",
            },
        )
        for n, b in ((100, 64), (300, 128))
    ),
    expect=lambda v: {"out": (np.float32(v["alpha"]) * _e(v, "x") + _e(v, "y")).astype(np.float32)},
)

REVERSE = Exercise(
    id="reverse",
    title="Reverse a vector",
    kernel="reverse",
    params=("a", "out"),
    topic="index arithmetic: coalesced in reverse",
    statement=(
        "Write out[i] = a[N - 1 - i]. A warp reading 32 neighbouring elements backwards still "
        "touches one run of memory: both the loads and the stores stay coalesced."
    ),
    picture="a:   0 1 2 3 ... N-1\nout: N-1 ... 3 2 1 0",
    starter="from numba import cuda\n\n\n@cuda.jit\ndef reverse(a, out):\n    i = cuda.grid(1)\n",
    hints=("The last element is a[a.size - 1].", "Guard i < out.size before computing the mirror index."),
    checks=("output", "in_bounds", "written_once", "coalesced"),
    outputs=("out",),
    cases=tuple(_one_d(n, 64, {"a": f"float32[{n}]:random", "out": f"float32[{n}]"}) for n in (100, 257)),
    expect=lambda v: {"out": _e(v, "a")[::-1].copy()},
)

COLSUM = Exercise(
    id="colsum",
    title="Column sums",
    kernel="colsum",
    params=("A", "sums"),
    topic="which loop order is coalesced",
    statement=(
        "Write sums[c] = the sum of column c of the float32 matrix A (rows × cols), one thread per "
        "column, each looping down its column.\n\n"
        "At each step the warp's 32 threads read 32 neighbouring elements of one row: coalesced."
    ),
    picture=(
        "        t0  t1  t2 ...\n"
        "row 0 [ a   b   c ...]   step 0: the warp reads one row\n"
        "row 1 [ d   e   f ...]   step 1: the next row\n"
        "       sums[0] sums[1] ..."
    ),
    starter="from numba import cuda\n\n\n@cuda.jit\ndef colsum(A, sums):\n    c = cuda.grid(1)\n",
    hints=(
        "Guard c < A.shape[1].",
        "Add into a local variable in a loop over the rows; store sums[c] once at the end.",
    ),
    checks=("output", "in_bounds", "written_once", "coalesced"),
    outputs=("sums",),
    cases=tuple(
        _one_d(cols, 64, {"A": f"float32[{rows},{cols}]:random", "sums": f"float32[{cols}]"})
        for rows, cols in ((5, 100), (7, 40))
    ),
    expect=lambda v: {"sums": _e(v, "A").astype(np.float64).sum(axis=0).astype(np.float32)},
)

BLOCK_SUM = Exercise(
    id="block-sum",
    title="Sum of each block, in shared memory",
    kernel="block_sum",
    params=("a", "sums"),
    topic="a tree reduction: barriers and banks",
    statement=(
        "Blocks have 128 threads. Write sums[b] = the sum of the elements of a that block b covers "
        "(a[b*128] … a[b*128+127], zeros past the end), through a shared array of 128 floats.\n\n"
        "Halve the active threads each step: thread t adds tile[t + s] into tile[t] for s = 64, 32, "
        "… 1, with a barrier after each step. Neighbouring threads then touch neighbouring words "
        "(no bank conflicts)."
    ),
    picture=(
        "s = 64: t0..t63  tile[t] += tile[t + 64]\n"
        "-------- cuda.syncthreads() --------\n"
        "s = 32: t0..t31  tile[t] += tile[t + 32]\n"
        "...\n"
        "s = 1:  t0       tile[0] += tile[1]  -> sums[blockIdx.x]"
    ),
    starter=(
        "from numba import cuda, float32\n\nTPB = 128\n\n\n@cuda.jit\ndef block_sum(a, sums):\n"
        "    tile = cuda.shared.array(TPB, float32)\n    t = cuda.threadIdx.x\n    i = cuda.grid(1)\n"
    ),
    hints=(
        "Store a[i] (or 0.0 past the end) into tile[t], then cuda.syncthreads().",
        "s = 64; while s > 0: if t < s: tile[t] += tile[t + s]; cuda.syncthreads(); s //= 2",
        "Only thread 0 stores sums[cuda.blockIdx.x] = tile[0].",
    ),
    checks=("output", "in_bounds", "written_once", "conflict_free", "race_free"),
    outputs=("sums",),
    cases=tuple(
        _one_d(n, 128, {"a": f"float32[{n}]:random", "sums": f"float32[{-(-n // 128)}]"}) for n in (300, 128)
    ),
    expect=lambda v: {
        "sums": np.array(
            [_e(v, "a")[k : k + 128].astype(np.float64).sum() for k in range(0, _e(v, "a").size, 128)],
            dtype=np.float32,
        )
    },
)

DOT_ATOMIC = Exercise(
    id="dot-atomic",
    title="Dot product with an atomic",
    kernel="dot",
    params=("a", "b", "out"),
    topic="atomics on one element",
    statement=(
        "Write out[0] = the sum of a[i] * b[i] over the float32 vectors a and b: each thread adds "
        "its own product into out[0]."
    ),
    picture="t0: a[0]*b[0] --\\\nt1: a[1]*b[1] ----> out[0]  (all at once: atomically)\nt2: a[2]*b[2] --/",
    starter="from numba import cuda\n\n\n@cuda.jit\ndef dot(a, b, out):\n    i = cuda.grid(1)\n",
    hints=("Guard i < a.size.", "cuda.atomic.add(out, 0, a[i] * b[i]): out[0] += … would lose updates."),
    checks=("output", "in_bounds", "race_free"),
    outputs=("out",),
    cases=tuple(
        _one_d(n, 128, {"a": f"float32[{n}]:random", "b": f"float32[{n}]:random", "out": "float32[1]"})
        for n in (100, 300)
    ),
    expect=lambda v: {"out": np.array([np.dot(_e(v, "a").astype(np.float64), _e(v, "b"))], dtype=np.float32)},
)

HISTOGRAM_SHARED = Exercise(
    id="histogram-shared",
    title="Histogram with shared bins per block",
    kernel="hist_shared",
    params=("data", "bins"),
    topic="privatised atomics: shared first, global once per block",
    statement=(
        "Count int32 values in [0, 100) into 100 int32 bins, as in histogram-atomic, but each "
        "block first counts into its own shared array of 100 bins (cheap atomics), then adds each "
        "shared bin into the global one once. Blocks have 128 threads.\n\n"
        "The shared bins must be zero before any thread counts into them, and complete before any "
        "thread copies them out."
    ),
    picture=(
        "1. threads 0..99 zero sbins[t]\n-------- cuda.syncthreads() --------\n"
        "2. every thread: atomic add into sbins[data[i]]\n-------- cuda.syncthreads() --------\n"
        "3. threads 0..99: atomic add sbins[t] into bins[t]"
    ),
    starter=(
        "from numba import cuda, int32\n\nBINS = 100\n\n\n@cuda.jit\ndef hist_shared(data, bins):\n"
        "    sbins = cuda.shared.array(BINS, int32)\n    t = cuda.threadIdx.x\n    i = cuda.grid(1)\n"
    ),
    hints=(
        "if t < 100: sbins[t] = 0, then cuda.syncthreads().",
        "cuda.atomic.add(sbins, data[i], 1) for i < data.size, then cuda.syncthreads() again.",
        "if t < 100: cuda.atomic.add(bins, t, sbins[t]).",
    ),
    checks=("output", "in_bounds", "race_free"),
    outputs=("bins",),
    cases=tuple(_one_d(n, 128, {"data": f"int32[{n}]:random", "bins": "int32[100]"}) for n in (200, 500)),
    expect=lambda v: {"bins": np.bincount(_e(v, "data"), minlength=100).astype(np.int32)},
)

MORE = (SAXPY, REVERSE, COLSUM, BLOCK_SUM, DOT_ATOMIC, HISTOGRAM_SHARED)
