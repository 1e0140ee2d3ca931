"""simtviz's lockstep SIMT emulator: a numba kernel's own source, run over NumPy arrays.

All threads of many blocks run at once, statement by statement, each value a vector with one
element per thread (uniform values stay scalars), under masks for ``if``/loops/``break``/
``return``. Warps are 32 consecutive threads of a block in lockstep, so the warp intrinsics
numba's simulator lacks run here (``shfl_*_sync``, ``ballot_sync``, ``all_sync``/``any_sync``,
``activemask``). Kernel modules are read as text (``ast``), never imported: no numba, no CuPy.

    module = load_module("simtviz.kernels.record")        # or load_source(text, filename)
    stats = launch(module, "record_threads", grid, block, [arrays and scalars...], progress=...)
    stats.lost   # {(array, line): plain stores lost to same-step collisions}

``launch`` raises ``EmulatorUnsupported`` (before running, from ``check_kernel``) for what it
cannot run, ``KernelIndexError`` (an IndexError, as numba's simulator) for an index out of
bounds, ``KernelZeroDivision`` for an integer ``//`` or ``%`` by zero (both as numba's simulator
raises them), ``DivergentBarrier`` for ``cuda.syncthreads()`` under divergent control flow.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simtviz.core.errors import EmulatorUnsupported
from simtviz.emu.check import check_kernel
from simtviz.emu.interp import Interp
from simtviz.emu.memory import ArrayRef, DivergentBarrier, KernelError, KernelIndexError, KernelZeroDivision
from simtviz.emu.modules import Function, Module, load_module, load_source
from simtviz.emu.threads import Threads
from simtviz.emu.values import lift

__all__ = [
    "CHUNK_THREADS",
    "DivergentBarrier",
    "EmulatorUnsupported",
    "KernelError",
    "KernelIndexError",
    "KernelZeroDivision",
    "LaunchStats",
    "Module",
    "kernel_function",
    "launch",
    "load_module",
    "load_source",
]

# Threads run at once: whole blocks up to this many (2^20 int64 vectors are 8 MB each).
CHUNK_THREADS = 1 << 20
# Shared arrays take one copy per block of a chunk: the first chunk is kept to FIRST_BLOCKS
# blocks, later ones to what fits SHARED_BYTES (48 KiB × 32,768 blocks of 32 would be 1.5 GB).
FIRST_BLOCKS = 1024
SHARED_BYTES = 256 << 20


@dataclass
class LaunchStats:
    threads: int
    chunks: int
    seconds: float
    lost: dict[tuple[str, int], int] = field(default_factory=dict)  # (array, line) → stores lost
    oob: dict[tuple[str, str], int] = field(default_factory=dict)  # (array, kind) → skipped


def kernel_function(module: Module, name: str | None = None) -> Function:
    """The kernel ``name`` of ``module`` (or its only ``@cuda.jit`` kernel)."""
    kernels = [v for v in module.globals.values() if isinstance(v, Function) and v.kind == "kernel"]
    if name is not None:
        fn = module.globals.get(name)
        if not isinstance(fn, Function):
            raise KeyError(f"{module.name} has no function {name}")
        return fn
    if len(kernels) != 1:
        raise KeyError(f"{module.name} has {len(kernels)} kernels: name one")
    return kernels[0]


def _dim3(value: int | Sequence[int]) -> tuple[int, int, int]:
    items = [int(value)] if isinstance(value, int | np.integer) else [int(v) for v in value]
    items += [1] * (3 - len(items))
    return items[0], items[1], items[2]


def launch(
    module: Module,
    kernel: str | None,
    grid: int | Sequence[int],
    block: int | Sequence[int],
    args: Sequence[Any],
    *,
    progress: Callable[[float], None] | None = None,
    chunk_threads: int = CHUNK_THREADS,
    unwatched: Sequence[str] = (),
    skip_oob: bool = False,
    block_ids: np.ndarray | None = None,
) -> LaunchStats:
    """Run ``kernel[grid, block](*args)``: NumPy arrays are changed in place, as device memory.

    ``unwatched`` names array parameters whose plain-store collisions need not be counted (a
    log the kernel writes at distinct slots). ``block_ids``: run only these blocks (linear ids,
    ascending), when the caller knows the others change nothing it reads. ``skip_oob``: an
    index outside a parameter array skips that access and counts it (``LaunchStats.oob``; loads
    give 0) instead of raising IndexError as numba's simulator does.
    """
    fn = kernel_function(module, kernel)
    check_kernel(fn)
    g, b = _dim3(grid), _dim3(block)
    params = fn.params
    if len(args) != len(params):
        raise TypeError(f"{fn.name} takes {len(params)} arguments, {len(args)} given")
    per_block = math.prod(b)
    total_blocks = math.prod(g) if block_ids is None else int(block_ids.shape[0])
    step = max(1, chunk_threads // max(1, per_block))
    stats = LaunchStats(total_blocks * per_block, 0, 0.0)
    start = time.perf_counter()
    done = 0
    while done < total_blocks:
        count = min(step if stats.chunks else min(step, FIRST_BLOCKS), total_blocks - done)
        ids = (
            np.arange(done, done + count, dtype=np.int64) if block_ids is None
            else np.asarray(block_ids[done : done + count], dtype=np.int64)
        )  # fmt: skip
        threads = Threads(g, b, ids)
        values = [
            ArrayRef(name, a, watch=name not in unwatched, skip_oob=skip_oob)
            if isinstance(a, np.ndarray)
            else lift(a)
            for name, a in zip(params, args, strict=True)
        ]
        interp = Interp(threads)
        try:
            with np.errstate(all="ignore"):
                interp.call(fn, values, {}, np.ones(threads.n, dtype=bool))
        except (KernelError, EmulatorUnsupported, MemoryError):
            raise
        except Exception as exc:  # what the interpreter did not foresee: say so, let sim run it
            raise EmulatorUnsupported(
                f"this line ({type(exc).__name__}: {exc})", interp.line or None
            ) from exc
        for ref in values:
            if isinstance(ref, ArrayRef):
                for kind, skipped in ref.oob.items():
                    if skipped:
                        stats.oob[(ref.name, kind)] = stats.oob.get((ref.name, kind), 0) + skipped
        for key, lost in interp.lost.items():
            stats.lost[key] = stats.lost.get(key, 0) + lost
        done += count
        shared = sum(
            r.data.nbytes for r in interp.chunk_cache.values() if getattr(r, "space", "") == "shared"
        )
        if shared:
            step = max(1, min(step, SHARED_BYTES // max(1, shared // count)))
        stats.chunks += 1
        if progress is not None:
            progress(done / total_blocks)
    stats.seconds = time.perf_counter() - start
    return stats
