"""What a traced kernel did to memory, computed from its access log (never from a formula).

Array code only, through an ``xp`` module: NumPy for simulator logs, CuPy for GPU logs (the log
then never leaves the GPU; only the small tables and the per-element maps come back).

Terms, as ``simtviz trace --json`` defines them (docs/CONTRACT.md):
- a *request* is one warp executing one access site once: the k-th execution of that site by
  each active lane of the warp (a thread's k-th execution of a site is its *instance* k, found by
  ranking the thread's log rows of that site in slot order, which is the thread's program order);
- *sectors*: distinct 32-byte sectors (byte offset // 32 from the array's start; CUDA
  allocations are 256-byte aligned) per request, summed over requests;
- *efficiency*: distinct bytes accessed / (sectors × 32).
Requests and sectors count accesses that were performed (in bounds); out-of-bounds attempts are
counted and listed separately. ``lines`` and ``arrays`` speak of global arrays (parameters) only.

Shared arrays (``cuda.shared.array``, one copy per block) get bank conflicts instead of sectors,
in ``shared_lines`` and ``shared_arrays`` (keys present only when the kernel has shared arrays):
- 32 banks of 4 bytes: word = byte offset // 4 from the array's start, bank = word % 32. The
  array's start is taken as word 0 of bank 0: moving a whole array by whole words only renames
  the banks, so the conflicts below do not depend on where numba placed it (4-byte aligned or
  more for 4- and 8-byte elements; 1- and 2-byte elements are paired into words as if the array
  started on a word);
- per request, each bank serves one distinct word per pass ("wavefront"); lanes reading the
  same word share it (a broadcast, not a conflict). The request's *wavefronts* = the most
  distinct words any one bank holds; 1 means conflict-free, n an n-way conflict;
- 8-byte (and 16-byte) elements: the Programming Guide gives cc ≥ 5.x one rule, in 32-bit
  words, with no separate 64-bit mode (that was cc 3.x), so each element counts as the 2 (or 4)
  consecutive words it covers, in 2 (4) neighbouring banks. A warp reading 32 consecutive
  float64 then needs 2 wavefronts (256 bytes, 128 per pass): the least possible, not a conflict.
  So each request also has its *least* wavefronts, ceil(distinct words / 32), and a line is
  conflict-free when ``wavefronts == min_wavefronts``;
- per line: ``requests``, ``wavefronts`` (summed over requests), ``wavefronts_per_request``,
  ``min_wavefronts`` and ``max_conflict_degree`` (the worst request's wavefronts).

Everything is computed from the logged rows: with a window of blocks (or a budget) smaller than
the launch, "untouched", "multi_writer" and the out-of-bounds list speak of the logged threads'
accesses only; ``accesses`` alone counts the whole launch.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from simtviz.core.trace.rewrite import KINDS, Site
from simtviz.core.trace.stats import (
    GLOBAL,
    SHARED,
    ArrayStats,
    LineStats,
    OobStats,
    SharedArrayStats,
    SharedLineStats,
)

if TYPE_CHECKING:
    from simtviz.core.trace.hazards import Hazard

# Log layout: must match simtviz.kernels.trace_helpers (kept here too: core must not import kernels).
F_THREAD, F_SITE, F_FLAGS, F_OFFSET, F_I0, F_I1, F_I2, F_EPOCH = range(8)
LOG_FIELDS = 8
KIND_LOAD, KIND_STORE, KIND_ATOMIC = 0, 1, 2
# The counters (also trace_helpers'): accesses outside the window, log slots taken inside it.
C_OUTSIDE, C_SLOTS = 0, 1
COUNTERS = 2
WARP = 32
SECTOR_BYTES = 32
BANKS = 32
BANK_BYTES = 4
NOBODY = -1


@dataclass(frozen=True, slots=True)
class ArrayInfo:
    name: str
    shape: tuple[int, ...]
    dtype: str
    space: str = GLOBAL  # or SHARED: a cuda.shared.array (one per block; array ids after the parameters)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def itemsize(self) -> int:
        return np.dtype(self.dtype).itemsize

    @property
    def words(self) -> int:
        """4-byte bank words one element covers (1 for elements of 4 bytes or less)."""
        return max(1, self.itemsize // BANK_BYTES)


@dataclass
class TouchMap:
    """Per element of one array (the array's shape): who touched it and how often."""

    loads: Any
    stores: Any  # plain stores
    atomics: Any
    writers: Any  # distinct threads that stored (plain stores)
    last_writer: Any  # global thread id of the last store or atomic in log order, NOBODY if none
    last_reader: Any  # global thread id of the last load, NOBODY if none

    def to_host(self) -> TouchMap:
        """Host copies; int32 where every value fits (counts and thread ids almost always do),
        halving what crosses from the GPU: six maps per array, 10^7 accesses' worth in 0.1 s."""
        return TouchMap(*(_host(_narrow(getattr(self, f))) for f in self.__dataclass_fields__))


def _narrow(a: Any) -> Any:
    if a.dtype == np.int64 and a.size and int(a.min()) >= -(2**31) and int(a.max()) < 2**31:
        return a.astype(np.int32)
    return a


@dataclass
class Analysis:
    accesses: int
    logged: int
    oob_total: int
    oob: list[OobStats]
    arrays: dict[str, ArrayStats]
    lines: list[LineStats]
    touch: dict[str, TouchMap] = field(default_factory=dict)
    # Per site (index = site id): performed requests, sectors, distinct bytes; out-of-bounds count
    # (shared sites: requests, wavefronts, min_wavefronts, max_conflict_degree instead of sectors).
    site_counts: list[dict[str, int]] = field(default_factory=list)
    shared_arrays: dict[str, SharedArrayStats] | None = None  # None: the kernel has no shared array
    shared_lines: list[SharedLineStats] | None = None
    hazards: list[Hazard] = field(default_factory=list)  # see core/trace/hazards.py

    def summary(self) -> dict[str, Any]:
        """The log-derived part of ``trace --json``; the shared keys only when there are shared
        arrays (without them the keys are CONTRACT's, exactly)."""
        out = {
            "accesses": self.accesses,
            "logged": self.logged,
            "oob_total": self.oob_total,
            "oob": [o.as_json() for o in self.oob],
            "arrays": {name: a.as_json() for name, a in self.arrays.items()},
            "lines": [row.as_json() for row in self.lines],
            "hazards": [h.as_json() for h in self.hazards],
        }
        if self.shared_arrays is not None:
            out["shared_arrays"] = {name: a.as_json() for name, a in self.shared_arrays.items()}
            out["shared_lines"] = [row.as_json() for row in self.shared_lines or []]
        return out


def _host(a: Any) -> np.ndarray:
    return a.get() if hasattr(a, "get") else np.asarray(a)


def _ints(a: Any) -> list[int]:
    return [int(v) for v in _host(a).tolist()]


def warp_of(thread: Any, block: Sequence[int]) -> Any:
    """Global warp id of each global linear thread id: warps never span blocks."""
    per_block = math.prod(block)
    warps_per_block = -(-per_block // WARP)
    return (thread // per_block) * warps_per_block + (thread % per_block) // WARP


def _changes(xp: ModuleType, *cols: Any) -> Any:
    """True where any column differs from the row before (and at row 0)."""
    n = int(cols[0].shape[0])
    out = xp.zeros(n, dtype=bool)
    out[:1] = True  # row 0 (none when there are no rows)
    for col in cols:
        out[1:] |= col[1:] != col[:-1]
    return out


def _stable_argsort(xp: ModuleType, key: Any) -> Any:
    # CuPy's argsort is always stable (a radix sort); NumPy's must be asked.
    return xp.argsort(key, kind="stable") if xp is np else xp.argsort(key)


# Columns whose value ranges multiply below this share one sort key (int64, with room to add).
_KEY_LIMIT = 1 << 62


def lex_order(xp: ModuleType, *cols: Any) -> Any:
    """The order ``np.lexsort(cols)`` gives (last column primary, ties in row order), from as
    few stable one-key sorts as the columns' ranges allow: columns are packed into int64 keys,
    least significant group sorted first. One radix sort of 10^7 keys takes milliseconds on a GPU;
    a lexsort of several columns takes far longer on either xp."""
    n = int(cols[0].shape[0])
    if n == 0:
        return xp.zeros(0, dtype=xp.int64)
    groups: list[tuple[list[tuple[Any, int, int]], int]] = []
    for col in cols:
        low, high = int(col.min()), int(col.max())
        span = high - low + 1
        if groups and groups[-1][1] * span < _KEY_LIMIT:
            members, product = groups[-1]
            groups[-1] = ([*members, (col, low, span)], product * span)
        else:
            groups.append(([(col, low, span)], span))
    order = None
    for members, _ in groups:
        key, scale = None, 1
        for col, low, span in members:
            part = (col - low) if low else col
            if order is not None:
                part = part[order]
            key = part if key is None else key + part * scale
            scale *= span
        step = _stable_argsort(xp, key)
        order = step if order is None else order[step]
    return order


def instances(xp: ModuleType, thread: Any, site: Any) -> Any:
    """Each row's instance: how many earlier rows (in slot order) have the same thread and site."""
    n = int(thread.shape[0])
    if n == 0:
        return xp.zeros(0, dtype=xp.int64)
    slot = xp.arange(n, dtype=xp.int64)
    order = lex_order(xp, site, thread)  # ties keep slot order
    starts = _changes(xp, thread[order], site[order])
    group = xp.cumsum(starts) - 1
    first = xp.nonzero(starts)[0]
    rank = slot - first[group]
    out = xp.empty(n, dtype=xp.int64)
    out[order] = rank
    return out


def _last_by_element(xp: ModuleType, flat: Any, thread: Any, size: int) -> Any:
    """The thread of the last row (in log order) that touched each element; NOBODY if none."""
    out = xp.full(size, NOBODY, dtype=xp.int64)
    n = int(flat.shape[0])
    if n == 0:
        return out
    order = lex_order(xp, flat)  # ties keep log order
    f = flat[order]
    last = xp.ones(n, dtype=bool)
    last[:-1] = f[1:] != f[:-1]
    out[f[last]] = thread[order][last]
    return out


def _writers(xp: ModuleType, flat: Any, thread: Any, size: int) -> Any:
    """How many distinct threads stored to each element."""
    if int(flat.shape[0]) == 0:
        return xp.zeros(size, dtype=xp.int64)
    order = lex_order(xp, thread, flat)
    f, t = flat[order], thread[order]
    new_pair = _changes(xp, f, t)
    return xp.bincount(f[new_pair], minlength=size)[:size]


def _segment_max(xp: ModuleType, value: Any, group: Any, groups: int) -> Any:
    """The largest ``value`` of each group ``0 .. groups - 1`` (0 where a group has none)."""
    out = xp.zeros(groups, dtype=xp.int64)
    order = lex_order(xp, value, group)
    g, v = group[order], value[order]
    last = xp.ones(int(value.shape[0]), dtype=bool)
    last[:-1] = g[1:] != g[:-1]
    out[g[last]] = v[last]
    return out


def bank_requests(xp: ModuleType, warp: Any, site: Any, inst: Any, word: Any) -> tuple[Any, Any, Any]:
    """Shared-memory requests from one row per 4-byte word each access covers: per request
    (warp, site, instance), its site, its wavefronts (the most distinct words in one bank) and
    its least wavefronts (distinct words / 32, rounded up). See the module's docstring."""
    if int(word.shape[0]) == 0:
        empty = xp.zeros(0, dtype=xp.int64)
        return empty, empty, empty
    bank = word % BANKS
    order = lex_order(xp, word, bank, inst, site, warp)  # request, then bank, then word
    warp, site, inst, word, bank = warp[order], site[order], inst[order], word[order], bank[order]
    new_request = _changes(xp, warp, site, inst)
    new_word = new_request | _changes(xp, word)
    new_bank = new_request | _changes(xp, bank)  # a new bank is always a new word too
    request = xp.cumsum(new_request) - 1
    requests = int(request[-1]) + 1
    words_in_bank = xp.bincount((xp.cumsum(new_bank) - 1)[new_word])  # per (request, bank)
    wavefronts = _segment_max(xp, words_in_bank, request[new_bank], requests)
    distinct = xp.bincount(request[new_word], minlength=requests)
    return site[new_request], wavefronts, (distinct + BANKS - 1) // BANKS


def _shared_site_counts(
    xp: ModuleType, warp: Any, site: Any, inst: Any, offset: Any, words: Any, nsites: int
) -> dict[str, list[int]]:
    """Per site: requests, wavefronts, min_wavefronts (sums over its requests) and
    max_conflict_degree, from the performed shared accesses (``words``: words per element)."""
    word = offset // BANK_BYTES
    parts = [(warp, site, inst, word)]
    for extra in range(1, int(words.max()) if int(words.shape[0]) else 1):
        more = words > extra  # an 8-byte element covers the next word too (16-byte: 3 more)
        parts.append((warp[more], site[more], inst[more], word[more] + extra))
    cols = [xp.concatenate([p[k] for p in parts]) for k in range(4)]
    rsite, wave, least = bank_requests(xp, *cols)
    if int(rsite.shape[0]) == 0:
        zeros = [0] * nsites
        return {"requests": zeros, "wavefronts": zeros, "min_wavefronts": zeros, "max_conflict_degree": zeros}
    return {
        "requests": _ints(xp.bincount(rsite, minlength=nsites)),
        # float weights (CuPy sums them with a float atomic): exact below 2^53
        "wavefronts": _ints(
            xp.bincount(rsite, weights=wave.astype(xp.float64), minlength=nsites).astype(xp.int64)
        ),
        "min_wavefronts": _ints(
            xp.bincount(rsite, weights=least.astype(xp.float64), minlength=nsites).astype(xp.int64)
        ),
        "max_conflict_degree": _ints(_segment_max(xp, wave, rsite, nsites)),
    }


def _by_line(item: tuple[tuple[int, str, str], Any]) -> tuple[int, str, int]:
    """Per-line rows in source order, then array, then load/store/atomic."""
    (line, name, kind_name), _ = item
    return line, name, KINDS.index(kind_name)


def analyse(
    log: Any,
    accesses: int,
    sites: Sequence[Site],
    arrays: Sequence[ArrayInfo],
    block: Sequence[int],
    xp: ModuleType = np,
) -> Analysis:
    """Everything ``trace --json`` reports from the log, plus the per-element maps.

    ``log`` is the logged part, shape ``(LOG_FIELDS, logged)``; ``accesses`` all attempts the
    launch made (the counter); ``arrays`` in array-id order (the kernel's array parameters).
    """
    logged = int(log.shape[1])
    thread = log[F_THREAD]
    site = log[F_SITE]
    flags = log[F_FLAGS]
    oob = (flags & 1) == 1
    kind = (flags >> 1) & 3
    array = flags >> 3
    nsites = len(sites)

    per_site = _ints(xp.bincount(site, minlength=nsites)) if logged else [0] * nsites
    oob_site = _ints(xp.bincount(site[oob], minlength=nsites)) if logged else [0] * nsites

    # Requests, sectors, distinct bytes per site (performed accesses to global arrays only).
    inst = instances(xp, thread, site)
    ok = ~oob
    has_shared = any(a.space == SHARED for a in arrays)
    if has_shared:
        shared_row = xp.asarray([a.space == SHARED for a in arrays])[array]
        ok_shared = ok & shared_row
        g = ok & ~shared_row
    else:
        g = ok
    warp, s_site, s_inst, off = warp_of(thread[g], block), site[g], inst[g], log[F_OFFSET][g]
    requests = sectors = distinct = [0] * nsites
    if int(off.shape[0]):
        order = lex_order(xp, off, s_inst, s_site, warp)
        warp, s_site, s_inst, off = warp[order], s_site[order], s_inst[order], off[order]
        new_request = _changes(xp, warp, s_site, s_inst)
        new_sector = new_request | _changes(xp, off // SECTOR_BYTES)
        new_byte = new_request | _changes(xp, off)
        requests = _ints(xp.bincount(s_site[new_request], minlength=nsites))
        sectors = _ints(xp.bincount(s_site[new_sector], minlength=nsites))
        distinct = _ints(xp.bincount(s_site[new_byte], minlength=nsites))
    itemsize = {a.name: a.itemsize for a in arrays}
    banks: dict[str, list[int]] = {}
    if has_shared:
        words = xp.asarray([a.words for a in arrays])[array[ok_shared]]
        sw, ss, si, so = (
            warp_of(thread[ok_shared], block),
            site[ok_shared],
            inst[ok_shared],
            log[F_OFFSET][ok_shared],
        )
        banks = _shared_site_counts(xp, sw, ss, si, so, words, nsites)
    site_counts = [
        {"count": per_site[s.id], "oob": oob_site[s.id], "requests": banks["requests"][s.id],
         **{k: banks[k][s.id] for k in ("wavefronts", "min_wavefronts", "max_conflict_degree")}}
        if s.space == SHARED else
        {"count": per_site[s.id], "oob": oob_site[s.id], "requests": requests[s.id],
         "sectors": sectors[s.id], "bytes": distinct[s.id] * itemsize[s.array]}
        for s in sites
    ]  # fmt: skip

    # Per source line and kind (two sites on one line, e.g. A[i] + A[i + 1], add up).
    rows: dict[tuple[int, str, str], dict[str, int]] = {}
    shared_rows: dict[tuple[int, str, str], dict[str, int]] = {}
    for s, counts in zip(sites, site_counts, strict=True):
        if s.space == SHARED:
            srow = shared_rows.setdefault(
                (s.line, s.array, s.kind),
                {"count": 0, "requests": 0, "wavefronts": 0, "min_wavefronts": 0, "max_conflict_degree": 0},
            )
            for key in ("count", "requests", "wavefronts", "min_wavefronts"):
                srow[key] += counts[key]
            srow["max_conflict_degree"] = max(srow["max_conflict_degree"], counts["max_conflict_degree"])
            continue
        row = rows.setdefault(
            (s.line, s.array, s.kind), {"count": 0, "requests": 0, "sectors": 0, "bytes": 0}
        )
        for key in row:
            row[key] += counts[key]
    lines = [
        LineStats(
            line,
            name,
            kind_name,
            row["count"],
            row["requests"],
            row["sectors"],
            round(row["sectors"] / row["requests"], 4) if row["requests"] else None,
            round(row["bytes"] / (row["sectors"] * SECTOR_BYTES), 4) if row["sectors"] else None,
        )
        for (line, name, kind_name), row in sorted(rows.items(), key=_by_line)
    ]

    shared_lines = [
        SharedLineStats(
            line,
            name,
            kind_name,
            row["count"],
            row["requests"],
            row["wavefronts"],
            round(row["wavefronts"] / row["requests"], 4) if row["requests"] else None,
            row["min_wavefronts"],
            row["max_conflict_degree"],
        )
        for (line, name, kind_name), row in sorted(shared_rows.items(), key=_by_line)
    ]

    oob_rows: dict[tuple[str, int, str], int] = {}
    for s in sites:
        if oob_site[s.id]:
            oob_key = (s.array, s.line, s.kind)
            oob_rows[oob_key] = oob_rows.get(oob_key, 0) + oob_site[s.id]
    space = {a.name: a.space for a in arrays}
    oob_list = [
        OobStats(a, ln, k, c, space[a])
        for (a, ln, k), c in sorted(oob_rows.items(), key=lambda kv: (kv[0][1], kv[0][0]))
    ]

    summary_arrays: dict[str, ArrayStats] = {}
    shared_arrays: dict[str, SharedArrayStats] = {}
    touch: dict[str, TouchMap] = {}
    for array_id, info in enumerate(arrays):
        mine = array == array_id
        if info.space == SHARED:
            # One copy per block: no per-element map (it would need one per block).
            shared_arrays[info.name] = SharedArrayStats(
                tuple(info.shape),
                info.dtype,
                loads=int((mine & (kind == KIND_LOAD)).sum()),
                stores=int((mine & (kind == KIND_STORE)).sum()),
                atomics=int((mine & (kind == KIND_ATOMIC)).sum()),
            )
            continue
        inb = mine & ok
        dims = [*info.shape, 1, 1]  # its 2nd and 3rd sides (1 where it has fewer) are read
        flat = (log[F_I0] * dims[1] + log[F_I1]) * dims[2] + log[F_I2]
        load_m, store_m, atomic_m = (
            inb & (kind == KIND_LOAD),
            inb & (kind == KIND_STORE),
            inb & (kind == KIND_ATOMIC),
        )
        loads = xp.bincount(flat[load_m], minlength=info.size)[: info.size]
        stores = xp.bincount(flat[store_m], minlength=info.size)[: info.size]
        atomics = xp.bincount(flat[atomic_m], minlength=info.size)[: info.size]
        writers = _writers(xp, flat[store_m], thread[store_m], info.size)
        written = store_m | atomic_m
        touch[info.name] = TouchMap(
            loads=loads.reshape(info.shape),
            stores=stores.reshape(info.shape),
            atomics=atomics.reshape(info.shape),
            writers=writers.reshape(info.shape),
            last_writer=_last_by_element(xp, flat[written], thread[written], info.size).reshape(info.shape),
            last_reader=_last_by_element(xp, flat[load_m], thread[load_m], info.size).reshape(info.shape),
        )
        summary_arrays[info.name] = ArrayStats(
            tuple(info.shape),
            info.dtype,
            loads=int((mine & (kind == KIND_LOAD)).sum()),
            stores=int((mine & (kind == KIND_STORE)).sum()),
            atomics=int((mine & (kind == KIND_ATOMIC)).sum()),
            untouched=int(((loads + stores + atomics) == 0).sum()),
            multi_writer=int((writers > 1).sum()),
        )

    from simtviz.core.trace.hazards import find_hazards  # it builds on this module's helpers

    return Analysis(
        accesses=int(accesses),
        logged=logged,
        oob_total=int(oob.sum()) if logged else 0,
        oob=oob_list,
        arrays=summary_arrays,
        lines=lines,
        touch=touch,
        site_counts=site_counts,
        shared_arrays=shared_arrays if has_shared else None,
        shared_lines=shared_lines if has_shared else None,
        hazards=find_hazards(xp, log, sites, arrays, block),
    )


@dataclass(frozen=True, slots=True)
class OutOfBounds:
    """One out-of-bounds attempt: the global thread, the student's line, the array, the kind of
    access (``load``, ``store`` or ``atomic``), the index it asked for and the array's shape."""

    thread: int
    line: int
    array: str
    kind: str
    index: tuple[int, ...]
    shape: tuple[int, ...]

    def as_json(self) -> dict[str, Any]:
        """As a JSON object: the fields by name, index and shape as lists."""
        return {
            "thread": self.thread,
            "line": self.line,
            "array": self.array,
            "kind": self.kind,
            "index": list(self.index),
            "shape": list(self.shape),
        }


def oob_details(
    log: Any, sites: Sequence[Site], arrays: Sequence[ArrayInfo], limit: int = 1000
) -> list[OutOfBounds]:
    """The first ``limit`` out-of-bounds attempts in log order."""
    host = _host(log)
    rows = np.nonzero(host[F_FLAGS] & 1)[0][:limit]
    out = []
    for r in rows.tolist():
        s = sites[int(host[F_SITE, r])]
        info = arrays[int(host[F_FLAGS, r]) >> 3]
        out.append(
            OutOfBounds(
                thread=int(host[F_THREAD, r]),
                line=s.line,
                array=s.array,
                kind=s.kind,
                index=tuple(int(host[F_I0 + d, r]) for d in range(len(info.shape))),
                shape=tuple(int(n) for n in info.shape),
            )
        )
    return out
