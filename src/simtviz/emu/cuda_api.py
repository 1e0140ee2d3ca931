"""``cuda.*`` in the emulator: indices, barriers, warp shuffles and votes, shared and local
arrays, atomics.

Each function takes ``(interp, args, kwargs, mask, line)``: the interpreter (its ``threads``
give the chunk's indices), the evaluated arguments, and the lanes that call it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from simtviz.emu.memory import ArrayRef, KernelError, atomic
from simtviz.emu.values import dtype_of, truth, widen


def _dims(args: list[Any], line: int) -> int:
    if len(args) != 1:  # numba has no default: cuda.grid() does not compile
        raise KernelError(f"cuda.grid/gridsize take one argument, 1, 2 or 3 (got {len(args)})", line)
    n = int(args[0])
    if n not in (1, 2, 3):
        raise KernelError(f"cuda.grid/gridsize take 1, 2 or 3 (got {n})", line)
    return n


def grid(interp: Any, args: list[Any], kwargs: dict[str, Any], mask: Any, line: int) -> Any:
    t = interp.threads
    n = _dims(args, line)
    axes = [widen(t.tidx[k]) + widen(t.bidx[k]) * np.int64(t.block[k]) for k in range(n)]
    return axes[0] if n == 1 else tuple(axes)


def gridsize(interp: Any, args: list[Any], kwargs: dict[str, Any], mask: Any, line: int) -> Any:
    t = interp.threads
    n = _dims(args, line)
    sizes = [np.int64(t.block[k] * t.grid[k]) for k in range(n)]
    return sizes[0] if n == 1 else tuple(sizes)


def _barrier(kind: str) -> Callable[..., Any]:
    def barrier(interp: Any, args: list[Any], kwargs: dict[str, Any], mask: Any, line: int) -> Any:
        interp.barrier(mask, line)
        if kind == "plain":
            return None
        (pred,) = args
        t = interp.threads
        on = truth(pred)
        on = np.broadcast_to(on, mask.shape) & mask
        per_block = np.bincount(t.blk[on], minlength=t.blocks)
        if kind == "count":
            return per_block[t.blk].astype(np.int32)
        if kind == "or":
            return (per_block[t.blk] > 0).astype(np.int32)
        active = np.bincount(t.blk[mask], minlength=t.blocks)
        return (per_block[t.blk] == active[t.blk]).astype(np.int32)

    return barrier


def _nothing(interp: Any, args: list[Any], kwargs: dict[str, Any], mask: Any, line: int) -> Any:
    """Fences and syncwarp: the emulator's lanes already run in lockstep, in order."""
    return None


# --- warp intrinsics: a warp is 32 consecutive threads of a block (linear id // 32), in lockstep


def _warp_ids(interp: Any) -> np.ndarray:
    """Each lane's warp, named by the chunk lane of its first thread."""
    t = interp.threads
    ids: np.ndarray = t.lane - t.linear % 32
    return ids


def _shuffle(kind: str) -> Callable[..., Any]:
    """shfl_sync(mask, value, src_lane), shfl_up/down_sync(mask, value, delta),
    shfl_xor_sync(mask, value, lane_mask): each lane reads ``value`` of another lane of its warp;
    a source outside the warp (or past a partial warp's end) gives the lane its own value."""

    def shfl(interp: Any, args: list[Any], kwargs: dict[str, Any], mask: Any, line: int) -> Any:
        _member_mask, value, arg = args
        if not isinstance(value, np.ndarray):
            return value  # every lane reads the same value, from another lane or its own
        t = interp.threads
        lane_in_warp = t.linear % 32
        a = widen(arg)
        if kind == "idx":
            src = a % 32
        elif kind == "up":
            src = lane_in_warp - a
        elif kind == "down":
            src = lane_in_warp + a
        else:
            src = lane_in_warp ^ a
        src_linear = t.linear - lane_in_warp + src
        valid = (src >= 0) & (src < 32) & (src_linear < t.per_block)
        values = np.broadcast_to(value, (t.n,))
        source = np.where(valid, t.lane - t.linear + src_linear, t.lane)
        return values[source]

    return shfl


def _vote(kind: str) -> Callable[..., Any]:
    def vote(interp: Any, args: list[Any], kwargs: dict[str, Any], mask: Any, line: int) -> Any:
        t = interp.threads
        if kind == "activemask":
            member, pred = np.int64(0xFFFFFFFF), np.True_
        else:
            member, pred = args
        on = np.broadcast_to(truth(pred), mask.shape) & mask
        bits = np.left_shift(on.astype(np.int64), t.linear % 32) & np.int64(member)
        warps = _warp_ids(interp)
        ballot = np.bincount(warps, weights=bits).astype(np.int64)[warps]
        # numba-cuda types ballot_sync as int32 (bit 31 set reads negative) and activemask as uint32
        if kind == "ballot":
            return ballot.astype(np.uint32).view(np.int32)
        if kind == "activemask":
            return ballot.astype(np.uint32)
        active = np.left_shift(mask.astype(np.int64), t.linear % 32) & np.int64(member)
        present = np.bincount(warps, weights=active).astype(np.int64)[warps]
        if kind == "all":
            return (ballot == present).astype(np.int32)
        return (ballot != 0).astype(np.int32)

    return vote


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "shfl_sync": _shuffle("idx"),
    "shfl_up_sync": _shuffle("up"),
    "shfl_down_sync": _shuffle("down"),
    "shfl_xor_sync": _shuffle("xor"),
    "ballot_sync": _vote("ballot"),
    "all_sync": _vote("all"),
    "any_sync": _vote("any"),
    "activemask": _vote("activemask"),
    "grid": grid,
    "gridsize": gridsize,
    "syncthreads": _barrier("plain"),
    "syncthreads_count": _barrier("count"),
    "syncthreads_and": _barrier("and"),
    "syncthreads_or": _barrier("or"),
    "threadfence": _nothing,
    "threadfence_block": _nothing,
    "threadfence_system": _nothing,
    "syncwarp": _nothing,
}


def _shape(value: Any, line: int) -> tuple[int, ...]:
    items = value if isinstance(value, tuple) else (value,)
    if not all(isinstance(v, np.integer | int) for v in items):
        raise KernelError("a shared or local array's shape must be integer constants", line)
    return tuple(int(v) for v in items)


def _array_args(args: list[Any], kwargs: dict[str, Any]) -> tuple[Any, Any]:
    shape = args[0] if args else kwargs["shape"]
    dtype = args[1] if len(args) > 1 else kwargs["dtype"]
    return shape, dtype


def shared_array(interp: Any, args: list[Any], kwargs: dict[str, Any], mask: Any, line: int) -> Any:
    """One array per block, made the first time its line runs in a chunk (zeros: a GPU's are
    uninitialised, numba's simulator's too; a kernel must not read before it writes)."""
    key = ("shared", line, interp.node_key)
    ref = interp.chunk_cache.get(key)
    if ref is None:
        shape, dtype = _array_args(args, kwargs)
        dims = _shape(shape, line)
        t = interp.threads
        name = interp.target_name or "shared"
        ref = ArrayRef(name, np.zeros((t.blocks, *dims), dtype=dtype_of(dtype)), "shared", t.blk)
        interp.chunk_cache[key] = ref
    return ref


def local_array(interp: Any, args: list[Any], kwargs: dict[str, Any], mask: Any, line: int) -> Any:
    """One array per thread."""
    key = ("local", line, interp.node_key, id(interp.frame))
    ref = interp.chunk_cache.get(key)
    if ref is None:
        shape, dtype = _array_args(args, kwargs)
        dims = _shape(shape, line)
        t = interp.threads
        ref = ArrayRef(interp.target_name or "local", np.zeros((t.n, *dims), dtype=dtype_of(dtype)),
                       "local", t.lane, watch=False)  # fmt: skip
        interp.chunk_cache[key] = ref
    return ref


def atomic_fn(op: str) -> Callable[..., Any]:
    def run(interp: Any, args: list[Any], kwargs: dict[str, Any], mask: Any, line: int) -> Any:
        if op == "compare_and_swap":  # (array, old, new) on element 0
            array, compare, value = args
            idx: Any = (np.int64(0),)
            return atomic("cas", array, idx, value, mask, line, compare)
        if op == "cas":
            array, index, compare, value = args
        else:
            array, index, value = args
            compare = None
        if not isinstance(array, ArrayRef):
            raise KernelError(f"cuda.atomic.{op} needs an array", line)
        idx = index if isinstance(index, tuple) else (index,)
        return atomic("cas" if op == "cas" else op, array, idx, value, mask, line, compare)

    return run
