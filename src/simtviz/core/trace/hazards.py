"""Hazards: accesses of one block to one element that no ``cuda.syncthreads()`` separates.

Every logged access carries its thread's *epoch*, the number of barriers the thread had passed
(``trace_helpers.tv_sync``). All threads of a block pass the same barriers, so two accesses of
one block are ordered by a barrier exactly when their epochs differ; with equal epochs nothing
orders them and, when one is a plain store, the result depends on which thread runs first:

- ``read-after-write``: a store, then (later in the program) a load of the element by another thread;
- ``write-after-read``: a load, then a store by another thread;
- ``write-after-write``: two stores (or a store and an atomic) by different threads.

Shared and global arrays alike (a barrier orders both within a block); accesses of different
blocks are never compared (no barrier could order them). Two atomics, or an atomic and a load,
are not hazards here: the atomics are what the student should write. "Later in the program" is
the order of the access sites in the source (a statement's loads before its store), so a pair is
reported once, under the kind that order gives; ``count`` is the number of (block, epoch,
element) groups where the pair of lines collides. Out-of-bounds attempts are left out (they
touched nothing). With a window or a budget, the logged accesses only.

Array code through ``xp`` (NumPy or CuPy), like ``trace_analysis``; only the pairs come back.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Any

import numpy as np

from simtviz.core.trace.analysis import (
    F_EPOCH,
    F_FLAGS,
    F_I0,
    F_I1,
    F_I2,
    F_SITE,
    F_THREAD,
    KIND_STORE,
    ArrayInfo,
    _changes,
    _host,
    lex_order,
)
from simtviz.core.trace.rewrite import Site

RAW, WAR, WAW = "read-after-write", "write-after-read", "write-after-write"
VERBS = {"load": "loads", "store": "stores", "atomic": "adds into"}


@dataclass(frozen=True, slots=True)
class HazardExample:
    """Two different threads of a pair (the first line's, then the second's) and the element."""

    index: tuple[int, ...]
    block: int
    threads: tuple[int, int]
    writer: int
    reader: int | None  # None for two stores
    other_writer: int | None = None  # the second store's thread (write-after-write only)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "index": list(self.index),
            "block": self.block,
            "threads": list(self.threads),
            "writer": self.writer,
            "reader": self.reader,
        }
        if self.other_writer is not None:
            out["other_writer"] = self.other_writer
        return out


@dataclass(frozen=True, slots=True)
class Hazard:
    """Accesses of two lines (or one) to one array that no barrier orders: ``hazards``."""

    array: str
    kind: str  # RAW, WAR or WAW
    line_first: int
    line_second: int
    count: int  # (block, epoch, element) groups where the two lines collide
    space: str
    accesses: tuple[str, ...]  # the two sites' kinds, in that order ("store", "load", "atomic")
    update: bool  # one line's load and store, each by several threads: an update without atomics
    example: HazardExample
    loop_carried: bool = False  # two passes of a loop (``loop_carried``)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "array": self.array,
            "kind": self.kind,
            "line_first": self.line_first,
            "line_second": self.line_second,
            "count": self.count,
            "space": self.space,
            "accesses": list(self.accesses),
            "update": self.update,
            "example": self.example.as_json(),
        }
        if self.loop_carried:
            out["loop_carried"] = True
        return out


def _default_accesses(kind: str) -> list[str]:
    return {RAW: ["store", "load"], WAR: ["load", "store"], WAW: ["store", "store"]}[kind]


def _pair_kind(first: str, second: str) -> str | None:
    """The hazard two sites make, in program order (``None``: not a hazard)."""
    writes = ("store", "atomic")
    if "store" not in (first, second):
        return None  # loads and atomics only
    if first in writes and second in writes:
        return WAW
    return RAW if first in writes else WAR


def find_hazards(
    xp: ModuleType, log: Any, sites: Sequence[Site], arrays: Sequence[ArrayInfo], block: Sequence[int]
) -> list[Hazard]:
    """The hazards the log shows, in source order."""
    flags = log[F_FLAGS]
    kind = (flags >> 1) & 3
    array = flags >> 3
    inb = (flags & 1) == 0
    # Only arrays with a plain store can have a hazard; only groups with a store and 2 threads.
    # (A log without rows, or without a store, has none.)
    stored = _host(xp.bincount(array[inb & (kind == KIND_STORE)], minlength=len(arrays)))
    if not stored.any():
        return []
    keep = inb & xp.asarray(stored > 0)[array]
    thread, site, epoch = log[F_THREAD][keep], log[F_SITE][keep], log[F_EPOCH][keep]
    array, kind = array[keep], kind[keep]  # never empty: the stores counted above are kept
    dims = np.array([[*a.shape, 1, 1][:3] for a in arrays], dtype=np.int64)
    d1, d2 = xp.asarray(dims[:, 1])[array], xp.asarray(dims[:, 2])[array]
    flat = (log[F_I0][keep] * d1 + log[F_I1][keep]) * d2 + log[F_I2][keep]
    # Every element touched at most once (all blocks together): no pair at all, and no sort.
    base = np.concatenate([[0], np.cumsum([a.size for a in arrays])])[:-1]
    touches = xp.bincount(xp.asarray(base)[array] + flat)
    if int(touches.max()) <= 1:
        return []
    blk = thread // math.prod(block)

    order = lex_order(xp, thread, site, flat, array, epoch, blk)  # group, then site, then thread
    thread, site, flat, array, epoch, blk, kind = (
        c[order] for c in (thread, site, flat, array, epoch, blk, kind)
    )
    new_group = _changes(xp, blk, epoch, array, flat)
    group = xp.cumsum(new_group) - 1
    groups = int(group[-1]) + 1
    n_store = xp.bincount(group[kind == KIND_STORE], minlength=groups)
    # a group's rows sorted by thread alone: its first and last give its smallest and largest
    starts = xp.nonzero(new_group)[0]
    ends = xp.concatenate([starts[1:], xp.asarray([int(thread.shape[0])])]) - 1
    sorted_t = thread[lex_order(xp, thread, group)]
    t_min, t_max = sorted_t[starts], sorted_t[ends]
    busy = (n_store > 0) & (t_min != t_max)
    rows = busy[group]
    if not bool(rows.any()):
        return []
    thread, site, flat, array, blk, kind, group = (
        c[rows] for c in (thread, site, flat, array, blk, kind, group)
    )
    # One entry per (group, site): its smallest and largest thread.
    new_entry = _changes(xp, group, site)
    e_start = xp.nonzero(new_entry)[0]
    e_end = xp.concatenate([e_start[1:], xp.asarray([int(thread.shape[0])])]) - 1
    e_group, e_site = _host(group[e_start]), _host(site[e_start])
    e_min, e_max = _host(thread[e_start]), _host(thread[e_end])
    e_flat, e_array, e_blk = _host(flat[e_start]), _host(array[e_start]), _host(blk[e_start])
    return _pairs(e_group, e_site, e_min, e_max, e_flat, e_array, e_blk, sites, arrays)


def _pairs(
    group: np.ndarray,
    site: np.ndarray,
    t_min: np.ndarray,
    t_max: np.ndarray,
    flat: np.ndarray,
    array: np.ndarray,
    blk: np.ndarray,
    sites: Sequence[Site],
    arrays: Sequence[ArrayInfo],
) -> list[Hazard]:
    """Colliding site pairs of each group (entries sorted by group, then site), by line pair."""
    n = int(group.shape[0])
    is_store = np.array([s.kind == "store" for s in sites])
    widest = int(np.bincount(group).max())
    firsts, seconds = [], []
    for d in range(widest):  # entry i against entry i + d of the same group (d = 0: itself)
        i = np.arange(n - d)
        j = i + d
        i, j = i[group[i] == group[j]], j[group[i] == group[j]]
        if d == 0:
            hit = is_store[site[i]] & (t_min[i] != t_max[i])
        else:  # different threads unless both entries are one and the same thread
            hit = ~((t_min[i] == t_max[i]) & (t_min[j] == t_max[j]) & (t_min[i] == t_min[j]))
        firsts.append(i[hit])
        seconds.append(j[hit])
    # never empty: a busy group's store (2 threads) or two of its entries collide
    a_all, b_all = np.concatenate(firsts), np.concatenate(seconds)
    pair_sites = np.stack([site[a_all], site[b_all]], axis=1)
    # per line pair: its first colliding entries (the example), and the groups of its site pairs
    first_pair: dict[tuple[str, str, int, int], tuple[int, int, Site, Site]] = {}
    groups_of: dict[tuple[str, str, int, int], list[np.ndarray]] = {}
    unique, inverse = np.unique(pair_sites, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    for u, (sa, sb) in enumerate(unique.tolist()):
        first, second = sites[sa], sites[sb]
        hazard = _pair_kind(first.kind, second.kind)
        if hazard is None:
            continue
        mine = np.nonzero(inverse == u)[0]
        key = (first.array, hazard, first.line, second.line)
        groups_of.setdefault(key, []).append(group[a_all[mine]])
        first_pair.setdefault(key, (int(a_all[mine[0]]), int(b_all[mine[0]]), first, second))
    found = []
    for key, (a, b, first, second) in first_pair.items():
        hazard = key[1]
        info = arrays[int(array[a])]
        found.append(
            Hazard(
                first.array,
                hazard,
                first.line,
                second.line,
                count=int(np.unique(np.concatenate(groups_of[key])).shape[0]),
                space=info.space,
                accesses=(first.kind, second.kind),
                # a load and a store of one line, each by several threads: threads updating
                # one element together (atomics' job), not one pass racing the next
                # (two plain stores are no update: "store one element twice", not atomics)
                update=bool(
                    {first.kind, second.kind} == {"load", "store"}
                    and t_min[a] != t_max[a]
                    and t_min[b] != t_max[b]
                ),
                example=_example(a, b, hazard, t_min, t_max, flat, blk, info),
            )
        )
    return sorted(found, key=lambda h: (h.line_first, h.line_second, h.array, h.kind))


def _example(
    a: int,
    b: int,
    hazard: str,
    t_min: np.ndarray,
    t_max: np.ndarray,
    flat: np.ndarray,
    blk: np.ndarray,
    info: ArrayInfo,
) -> HazardExample:
    """Two different threads of the pair (first line's, second line's) and the element."""
    if a == b:
        first, second = int(t_min[a]), int(t_max[a])
    elif t_min[a] != t_min[b]:
        first, second = int(t_min[a]), int(t_min[b])
    elif t_max[b] != t_min[a]:
        first, second = int(t_min[a]), int(t_max[b])
    else:
        first, second = int(t_max[a]), int(t_min[b])
    index = tuple(int(v) for v in np.unravel_index(int(flat[a]), info.shape))
    if hazard == RAW:
        return HazardExample(index, int(blk[a]), (first, second), writer=first, reader=second)
    if hazard == WAR:
        return HazardExample(index, int(blk[a]), (first, second), writer=second, reader=first)
    return HazardExample(index, int(blk[a]), (first, second), writer=first, reader=None, other_writer=second)


def thread_words(thread: int, grid: Sequence[int], block: Sequence[int]) -> str:
    """A global linear thread id as the student reads it: ``thread 5 (blockIdx 0, threadIdx 5)``,
    with (x, y) or (x, y, z) for launches of more dimensions."""
    per_block = math.prod(block)
    b, inner = divmod(int(thread), per_block)
    gx, gy = int(grid[0]), int(grid[1])
    bx, by = int(block[0]), int(block[1])
    bidx = (b % gx, (b // gx) % gy, b // (gx * gy))
    tidx = (inner % bx, (inner // bx) % by, inner // (bx * by))
    dims = 3 if (grid[2] > 1 or block[2] > 1) else 2 if (grid[1] > 1 or block[1] > 1) else 1

    def show(v: tuple[int, int, int]) -> str:
        return str(v[0]) if dims == 1 else "(" + ", ".join(map(str, v[:dims])) + ")"

    return f"thread {thread:,} (blockIdx {show(bidx)}, threadIdx {show(tidx)})"


def hazard_words(h: Hazard, grid: Sequence[int], block: Sequence[int]) -> str:
    """One hazard in a sentence: what collided, one example, and what to change."""
    ex = h.example
    element = f"{h.array}[{', '.join(map(str, ex.index))}]"
    first, second = (thread_words(t, grid, block) for t in ex.threads)
    a, b = h.line_first, h.line_second
    where = f"line {a}" if a == b else f"lines {a} and {b}"
    groups = f"{h.count:,} element{'s' if h.count != 1 else ''}"
    head = f"Race ({h.kind}) on {h.array}, {where}, {groups}: "
    verbs = [VERBS[k] for k in h.accesses or _default_accesses(h.kind)]
    text = f"{first} {verbs[0]} {element} at line {a} and {second} {verbs[1]} it at line {b}"
    text += ", with no cuda.syncthreads() between them, so the result depends on which runs first."
    return head + text + _fix(h)


def _fix(h: Hazard) -> str:
    """What to change, in one sentence."""
    a, b = h.line_first, h.line_second
    if a == b and h.update:
        return f" Use cuda.atomic.add for the update at line {a}: a load then a store is not one step."
    if a == b and h.kind == WAW:
        return " Only one thread should store each element, or combine the values with cuda.atomic.add."
    if a == b:
        return (
            f" Add cuda.syncthreads() inside the loop after line {a}, so that each pass ends before the next."
        )
    if h.loop_carried:
        return (
            f" The loop's next pass reaches line {b} while other threads are still at line {a}: "
            f"add cuda.syncthreads() after line {a}, at the end of the loop's body."
        )
    if h.accesses == ("store", "store"):
        return " Only one thread should store each element: remove one store, or order them with a barrier."
    return f" Add cuda.syncthreads() after line {a}, before line {b}."


def loop_carried(hazards: list[Hazard], barrier_lines: Sequence[int]) -> list[Hazard]:
    """Pairs with a ``cuda.syncthreads()`` written between their lines and still no barrier
    between the accesses come from two passes of a loop: the later line's access of one pass
    against the earlier line's of the next. Those are named in that order (kind flipped)."""
    flip = {RAW: WAR, WAR: RAW, WAW: WAW}
    out = []
    for h in hazards:
        a, b = h.line_first, h.line_second
        if any(a < line < b for line in barrier_lines):
            kind = flip[h.kind]
            ex = h.example
            threads = (ex.threads[1], ex.threads[0])
            if kind == WAW:
                first, second = threads
                example = replace(ex, threads=threads, writer=first, other_writer=second, reader=None)
            else:
                writer_first = kind == RAW
                example = replace(
                    ex,
                    threads=threads,
                    writer=threads[0] if writer_first else threads[1],
                    reader=threads[1] if writer_first else threads[0],
                )
            h = replace(
                h,
                kind=kind,
                line_first=b,
                line_second=a,
                loop_carried=True,
                accesses=h.accesses[::-1],
                example=example,
            )
        out.append(h)
    return sorted(out, key=lambda h: (min(h.line_first, h.line_second), h.line_second, h.array))
