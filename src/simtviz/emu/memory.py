"""Device memory as the emulator sees it: masked gathers and scatters, and atomics.

A global array is the caller's NumPy array, changed in place (like device memory). A shared
array has one copy per block of the chunk (``data[block, ...]``), a local array one per thread
(``data[lane, ...]``); the first index, the *owner*, is added to every access.

Plain stores from many threads to one element in one step keep one writer (the last lane), as
a GPU keeps one; the losers are counted (``lost``) so a report can say why updates vanished.
Atomics never lose: lanes on the same element are applied in lane order, each getting the value
it replaced (``atomic``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from simtviz.emu.values import widen


class KernelError(Exception):
    """A failure inside the emulated kernel; ``line`` is the kernel's source line (0: unknown)."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.message = message
        self.line = line


class KernelIndexError(KernelError, IndexError):
    """An index outside an array, found where numba's simulator raises IndexError."""


class KernelZeroDivision(KernelError, ZeroDivisionError):
    """An integer ``//`` or ``%`` by zero, where numba's simulator raises ZeroDivisionError."""


class DivergentBarrier(KernelError):
    """``cuda.syncthreads()`` reached by some but not all live threads of a block."""


class ArrayRef:
    """An array as a kernel sees it: ``shape`` per owner, ``data`` with the owner axis first
    (shared and local arrays) or the array itself (global)."""

    def __init__(
        self, name: str, data: np.ndarray, space: str = "global", owner: np.ndarray | None = None,
        watch: bool = True, skip_oob: bool = False,
    ) -> None:  # fmt: skip
        self.name = name
        self.data = data
        self.space = space
        self.owner = owner  # per-thread index of its copy (block or lane); None for global
        self.watch = watch  # count plain stores lost to a same-step collision
        self.shape = data.shape[1:] if owner is not None else data.shape
        self.strides = data.strides[1:] if owner is not None else data.strides
        self._stamp: np.ndarray | None = None
        # skip_oob: an access outside the array (a negative index included) is skipped and
        # counted, as the tracer's helpers do, instead of raising IndexError.
        self.skip_oob = skip_oob
        self.oob = {"load": 0, "store": 0, "atomic": 0}

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __repr__(self) -> str:
        return f"<{self.space} array {self.name} {self.data.dtype}{list(self.shape)}>"


Mask = np.ndarray  # bool per thread


def _index_vectors(ref: ArrayRef, idx: Sequence[Any], sel: np.ndarray | None, n: int, line: int) -> list[Any]:
    """Indices of the selected lanes (``sel``: their positions; None: every lane), checked
    against the shape (NumPy's rules, as numba's simulator: -size .. size-1) and wrapped."""
    if len(idx) != len(ref.shape):
        raise KernelIndexError(
            f"{ref.name} is {len(ref.shape)}-D but is indexed with {len(idx)} index(es)", line
        )
    out: list[Any] = []
    for axis, (i, extent) in enumerate(zip(idx, ref.shape, strict=True)):
        if not isinstance(i, np.ndarray | np.generic) or i.dtype.kind not in "biu":
            raise KernelIndexError(f"index {axis} of {ref.name} is not an integer", line)
        i = widen(i)
        if isinstance(i, np.ndarray) and sel is not None:
            i = i[sel]
        if np.size(i):
            lo, hi = (int(i.min()), int(i.max())) if isinstance(i, np.ndarray) else (int(i), int(i))
            if lo < -extent or hi >= extent:
                bad = lo if lo < -extent else hi
                raise KernelIndexError(
                    f"index {bad} is out of bounds for axis {axis} with size {extent} ({ref.name})", line
                )
            if lo < 0:
                i = np.where(i < 0, i + extent, i) if isinstance(i, np.ndarray) else i + extent
        out.append(i)
    if ref.owner is not None:
        out.insert(0, ref.owner if sel is None else ref.owner[sel])
    return out


def _drop_oob(ref: ArrayRef, idx: Sequence[Any], mask: Mask, kind: str) -> Mask:
    """``mask`` without the lanes whose index is outside ``ref`` (counted), when it skips them."""
    if not ref.skip_oob or len(idx) != len(ref.shape):
        return mask
    bad: Any = np.False_
    for i, extent in zip(idx, ref.shape, strict=True):
        index: Any = i
        if isinstance(index, np.ndarray | np.generic) and index.dtype.kind in "biu":
            bad = bad | np.less(index, 0) | np.greater_equal(index, extent)
    if not np.any(bad):
        return mask
    hit = mask & bad
    ref.oob[kind] += int(np.count_nonzero(hit))
    return mask & ~hit


def _selection(mask: Mask) -> np.ndarray | None:
    return None if mask.all() else np.flatnonzero(mask)


def load(ref: ArrayRef, idx: Sequence[Any], mask: Mask, line: int) -> Any:
    """``ref[idx]`` for the active lanes: a scalar when the element is the same for every thread."""
    mask = _drop_oob(ref, idx, mask, "load")
    n = mask.shape[0]
    uniform = ref.owner is None and not any(isinstance(i, np.ndarray) for i in idx)
    if uniform:
        if not mask.any():
            return ref.data.dtype.type(0)
        where = _index_vectors(ref, idx, None, n, line)
        return ref.data[tuple(where)]
    sel = _selection(mask)
    where = _index_vectors(ref, idx, sel, n, line)
    if sel is None:
        return (
            ref.data[tuple(where)]
            if any(isinstance(w, np.ndarray) for w in where)
            else np.full(n, ref.data[tuple(where)])
        )
    out = np.zeros(n, dtype=ref.data.dtype)
    out[sel] = ref.data[tuple(where)]
    return out


def _flat(ref: ArrayRef, where: list[Any], count: int) -> np.ndarray:
    """Each lane's element as one C-order number (the indices are in bounds by now)."""
    dims = ref.data.shape
    flat: Any = np.int64(0)
    for w, extent in zip(where, dims, strict=True):
        flat = flat * np.int64(extent) + w
    return np.broadcast_to(np.asarray(flat, dtype=np.int64), (count,))


def store(ref: ArrayRef, idx: Sequence[Any], value: Any, mask: Mask, line: int) -> int:
    """``ref[idx] = value`` for the active lanes, cast to the array's dtype; returns the stores
    lost because another lane stored the same element in the same step (one writer wins)."""
    mask = _drop_oob(ref, idx, mask, "store")
    n = mask.shape[0]
    sel = _selection(mask)
    count = n if sel is None else sel.shape[0]
    if count == 0:
        return 0
    where = _index_vectors(ref, idx, sel, n, line)
    if isinstance(value, np.ndarray):
        value = value if sel is None else value[sel]
    elif not isinstance(value, np.generic):
        raise KernelError(f"cannot store {type(value).__name__} into {ref.name}", line)
    vector = any(isinstance(w, np.ndarray) for w in where)
    if not vector:  # every lane stores the same element: the last one wins
        ref.data[tuple(where)] = value[-1] if isinstance(value, np.ndarray) else value
        return count - 1 if ref.watch else 0
    if not ref.watch or count == 1:
        with np.errstate(all="ignore"):
            ref.data[tuple(where)] = value
        return 0
    flat = _flat(ref, where, count)
    if bool(np.all(flat[1:] > flat[:-1])):  # ascending, as coalesced patterns are: no collision
        with np.errstate(all="ignore"):
            ref.data[tuple(where)] = value
        return 0
    if ref._stamp is None:
        ref._stamp = np.zeros(ref.data.size, dtype=np.int64)
    stamp = ref._stamp
    lanes = np.arange(1, count + 1, dtype=np.int64)
    stamp[flat] = lanes  # NumPy keeps the last of repeated indices: one writer per element
    won = stamp[flat] == lanes  # (stamps left from an earlier store are overwritten, never read)
    lost = count - int(np.count_nonzero(won))
    with np.errstate(all="ignore"):
        if lost:
            winners = tuple(w[won] if isinstance(w, np.ndarray) else w for w in where)
            ref.data[winners] = value[won] if isinstance(value, np.ndarray) else value
        else:
            ref.data[tuple(where)] = value
    return lost


# --- atomics ---------------------------------------------------------------------------------

ROUNDS = 32  # ranks handled vectorised; longer runs on one element are accumulated per element


def _inc(old: Any, v: Any) -> Any:
    return np.where(old >= v, 0, old + 1).astype(old.dtype)


def _dec(old: Any, v: Any) -> Any:
    return np.where((old == 0) | (old > v), v, old - 1).astype(old.dtype)


UFUNC_OPS: dict[str, np.ufunc] = {
    "add": np.add, "sub": np.subtract, "max": np.maximum, "min": np.minimum, "nanmax": np.fmax,
    "nanmin": np.fmin, "and_": np.bitwise_and, "or_": np.bitwise_or, "xor": np.bitwise_xor,
}  # fmt: skip
STEP_OPS: dict[str, Callable[[Any, Any], Any]] = {"inc": _inc, "dec": _dec, "exch": lambda old, v: v}


def atomic(
    op: str, ref: ArrayRef, idx: Sequence[Any], value: Any, mask: Mask, line: int, compare: Any = None
) -> Any:
    """``cuda.atomic.<op>(ref, idx, value)`` for the active lanes in lane order; returns, per
    lane, the value the element held just before that lane's update (0 on inactive lanes)."""
    mask = _drop_oob(ref, idx, mask, "atomic")
    n = mask.shape[0]
    dtype = ref.data.dtype
    sel = _selection(mask)
    count = n if sel is None else sel.shape[0]
    out = np.zeros(n, dtype=dtype)
    if count == 0:
        return out
    where = _index_vectors(ref, idx, sel, n, line)
    flat = _flat(ref, where, count)
    vals = np.broadcast_to(
        value if not isinstance(value, np.ndarray) or sel is None else value[sel], (count,)
    )
    with np.errstate(all="ignore"):
        vals = np.asarray(vals).astype(dtype)
    cmp = None
    if compare is not None:
        cmp = np.broadcast_to(compare if not isinstance(compare, np.ndarray) or sel is None else compare[sel],
                              (count,)).astype(dtype)  # fmt: skip
    if not ref.data.flags.c_contiguous:
        raise KernelError(f"atomics on the non-contiguous array {ref.name}", line)
    data = ref.data.reshape(ref.data.size)  # a view: updating it updates the array
    if not any(isinstance(w, np.ndarray) for w in where) and op in UFUNC_OPS:
        # Every lane on one element (a counter): one sequential scan in lane order.
        at = int(flat[0])
        if op == "add" and dtype.kind in "iu":
            cs = np.cumsum(vals, dtype=np.uint64 if dtype.kind == "u" else np.int64)
            start = data[at].astype(cs.dtype)
            lane_old = (start + cs - vals).astype(dtype)
            data[at] = (start + cs[-1]).astype(dtype)
        else:
            run = UFUNC_OPS[op].accumulate(np.concatenate([data[at : at + 1], vals]).astype(dtype))
            lane_old, data[at] = run[:-1], run[-1]
        if sel is None:
            return lane_old
        out[sel] = lane_old
        return out
    order = np.argsort(flat, kind="stable")  # lanes sorted by element, lane order kept within one
    s_flat, s_vals = flat[order], vals[order]
    starts = np.flatnonzero(np.r_[True, s_flat[1:] != s_flat[:-1]])
    ends = np.r_[starts[1:], count]
    lengths = ends - starts  # lanes per element hit
    seg = np.repeat(np.arange(starts.shape[0]), lengths)
    elems = s_flat[starts]
    acc = data[elems].copy()
    old = np.empty(count, dtype=dtype)
    if op == "add" and dtype.kind in "iu":  # exact in modular arithmetic: one scan
        cs = np.cumsum(s_vals, dtype=np.uint64 if dtype.kind == "u" else np.int64)
        before = cs - s_vals - (cs[starts] - s_vals[starts])[seg]
        old[:] = (acc.astype(cs.dtype)[seg] + before).astype(dtype)
        acc = (acc.astype(cs.dtype) + (cs[ends - 1] - cs[starts] + s_vals[starts])).astype(dtype)
    elif op == "exch":
        old[:] = np.r_[acc[:1], s_vals[:-1]] if count else old
        old[starts] = acc
        acc = s_vals[ends - 1]
    else:
        ufunc = UFUNC_OPS.get(op)
        step = STEP_OPS.get(op)
        if op == "cas":
            assert cmp is not None
            s_cmp = cmp[order]
        rank = np.arange(count) - starts[seg]
        longest = int(lengths.max())
        with np.errstate(all="ignore"):
            for r in range(min(longest, ROUNDS)):
                lanes = np.flatnonzero(rank == r)
                g = seg[lanes]
                current = acc[g]
                old[lanes] = current
                if op == "cas":
                    acc[g] = np.where(current == s_cmp[lanes], s_vals[lanes], current)
                elif ufunc is not None:
                    acc[g] = ufunc(current, s_vals[lanes])
                else:
                    assert step is not None
                    acc[g] = step(current, s_vals[lanes])
            for big in np.flatnonzero(lengths > ROUNDS):
                a, b = int(starts[big]) + ROUNDS, int(ends[big])
                if ufunc is not None:
                    run = ufunc.accumulate(np.concatenate([acc[big : big + 1], s_vals[a:b]]).astype(dtype))
                    old[a:b] = run[:-1]
                    acc[big] = run[-1]
                    continue
                for k in range(a, b):  # inc/dec/cas with one element hit by very many lanes
                    old[k] = acc[big]
                    if op == "cas":
                        acc[big] = s_vals[k] if acc[big] == s_cmp[k] else acc[big]
                    else:
                        assert step is not None
                        acc[big] = step(acc[big], s_vals[k])
    data[elems] = acc
    lane_old = np.empty(count, dtype=dtype)
    lane_old[order] = old
    if sel is None:
        return lane_old
    out[sel] = lane_old
    return out
