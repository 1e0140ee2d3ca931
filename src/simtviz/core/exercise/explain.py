"""Explain my bug: the common mistakes named in one sentence each, from the trace alone.

Each rule reads what the kernel did (out-of-bounds indices, which threads stored what, the
hazards, the sectors and banks of neighbouring lanes) and says the kind of bug, the line, one
thread that shows it and what to change. None of them looks at an exercise's answer: the only
exercise facts used are the names of its outputs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from simtviz.core.exercise.checks import neighbours, rows_of_element, who
from simtviz.core.exercise.model import Exercise
from simtviz.core.trace.analysis import F_I0, F_I1, F_OFFSET, F_THREAD, KIND_STORE, oob_details
from simtviz.core.trace.hazards import VERBS
from simtviz.core.trace.model import TraceResult


def _grid2(result: TraceResult, thread: int) -> tuple[int, int]:
    """cuda.grid(2) (x, y) of a global linear thread id."""
    per_block = math.prod(result.block)
    b, inner = divmod(thread, per_block)
    gx = result.grid[0]
    bx, by = b % gx, (b // gx) % result.grid[1]
    tx, ty = inner % result.block[0], (inner // result.block[0]) % result.block[1]
    return bx * result.block[0] + tx, by * result.block[1] + ty


def _el(name: str, index: Sequence[int]) -> str:
    return f"{name}[{', '.join(map(str, index))}]"


def _oob(r: TraceResult) -> str | None:
    details = oob_details(r.log, r.sites, r.arrays, 1000)
    if not details:
        return None
    d = details[0]
    name, index, shape, line = d.array, d.index, d.shape, d.line
    t = who(r, d.thread)
    verb = {"load": "loads", "store": "stores", "atomic": "adds into"}[d.kind]
    if any(i < 0 for i in index):
        return (
            f"Index below zero: line {line}: {t} {verb} {_el(name, index)}: check the index is 0 or more "
            "before using it (a GPU would touch memory before the array)."
        )
    if len(shape) == 2:
        x, y = _grid2(r, d.thread)
        if index == (x, y) and x != y and x >= shape[0]:
            return (
                f"x and y swapped: line {line}: {t} has x = {x}, y = {y} and {verb} {_el(name, index)}, "
                f"but {name} has shape {shape} (rows, columns): write {name}[y, x]."
            )
        return (
            f"Guard missing: line {line}: {t} {verb} {_el(name, index)}, outside {name}'s shape "
            f"{shape}: guard both y < {name}.shape[0] and x < {name}.shape[1]."
        )
    same = [e for e in details if e.array == name]
    if len(shape) == 1 and all(e.index == (shape[0],) for e in same):
        return (
            f"Guard off by one: line {line}: {t} {verb} {name}[{shape[0]}], one past the last element "
            f"{name}[{shape[0] - 1}]: the guard must be i < {name}.size, not i <= {name}.size."
        )
    why = (
        "the block has more threads than it has elements"
        if name not in r.analysis.touch  # a shared array: the analysis maps global arrays only
        else "the last block has threads past the end"
    )
    return (
        f"Guard missing: line {line}: {t} {verb} {_el(name, index)}, but {name} has {shape[0]:,} "
        f"elements ({why}): check the index against {name}.size before the access."
    )


def _coverage(ex: Exercise, r: TraceResult) -> str | None:
    for name in ex.outputs:
        if name not in r.analysis.touch:
            continue
        touch = r.analysis.touch[name]
        writers = np.asarray(touch.writers)
        stored = writers + np.asarray(touch.atomics)
        several = np.argwhere(writers > 1)
        if several.size:
            at = tuple(int(i) for i in several[0])
            rows = rows_of_element(r, name, at, (KIND_STORE,))
            threads = sorted({int(r.log[F_THREAD, row]) for row in rows})
            # Two or more threads (writers counts distinct ones) at one index of their blocks: so
            # in as many different blocks, each walking the same elements.
            inner = {t % math.prod(r.block) for t in threads}
            site = int(r.log[1, rows[0]])
            line = r.sites[site].line
            loops = int(((r.log[F_THREAD] == threads[0]) & (r.log[1] == site)).sum()) > 1
            if len(inner) == 1 and loops:
                return (
                    f"Stride loop without gridsize: line {line}: {who(r, threads[0])} and "
                    f"{who(r, threads[1])} both store {_el(name, at)}: every block walks the same "
                    "elements; step by cuda.gridsize(1) (all the grid's threads), not cuda.blockDim.x."
                )
        untouched = np.argwhere(stored == 0)
        launched = r.threads
        if untouched.size and launched < writers.size and r.analysis.oob_total == 0:
            at = tuple(int(i) for i in untouched[0])
            return (
                f"Grid too small: {launched:,} threads for {writers.size:,} elements of {name}, and "
                f"{int(untouched.shape[0]):,} of them, from {_el(name, at)}, are never stored: loop with "
                "for i in range(cuda.grid(1), n, cuda.gridsize(1)) so each thread takes several."
            )
    return None


def _race(r: TraceResult) -> str | None:
    for h in r.analysis.hazards:
        ex = h.example
        a, b = h.line_first, h.line_second
        first, second = (who(r, t) for t in ex.threads)
        element = _el(h.array, ex.index)
        if a == b and h.update:
            return (
                f"Race without atomics: line {a}: {first} and {second} both update {element} "
                f"(a load, then a store: one of the two updates is lost): use "
                f"cuda.atomic.add({h.array}, index, value) there."
            )
        if h.accesses == ("store", "store"):
            return (
                f"Two threads store one element: line {a}: {first} stores {element} and at line {b} "
                f"{second} stores it again: let only one thread store each element."
            )
        what, then = (VERBS[k] for k in h.accesses or ("store", "load"))
        if a == b:
            where = f"inside the loop, after line {a}, so that each pass ends before the next starts"
        elif h.loop_carried:
            where = f"after line {a}, at the end of the loop's body"
        else:
            where = f"after line {a}, before line {b}"
        return (
            f"Missing barrier: line {a}: {first} {what} {element} and at line {b} {second} {then} it, "
            f"with no cuda.syncthreads() between: add cuda.syncthreads() {where}."
        )
    return None


def _swapped(r: TraceResult) -> str | None:
    for row in r.analysis.lines:
        info = next(a for a in r.arrays if a.name == row.array)
        if len(info.shape) != 2 or not row.requests or (row.sectors_per_request or 0.0) <= info.itemsize + 1:
            continue
        pair = neighbours(r, row.line, row.array, row.kind)
        if pair is None:
            continue
        p, q = pair
        di0 = int(r.log[F_I0, q]) - int(r.log[F_I0, p])
        di1 = int(r.log[F_I1, q]) - int(r.log[F_I1, p])
        if abs(di0) == 1 and di1 == 0:
            tp = int(r.log[F_THREAD, p])
            return (
                f"x and y swapped: line {row.line}: neighbouring threads in x, {who(r, tp)} and thread "
                f"{tp + 1:,}, touch {row.array}[{int(r.log[F_I0, p])}, {int(r.log[F_I1, p])}] and "
                f"{row.array}[{int(r.log[F_I0, q])}, {int(r.log[F_I1, q])}], a row apart "
                f"({row.sectors_per_request:g} sectors per request): x must index the last axis, "
                f"{row.array}[y, x]."
            )
    return None


def _padding(r: TraceResult) -> str | None:
    for row in r.analysis.shared_lines or []:
        if not row.requests or row.wavefronts == row.min_wavefronts:
            continue
        info = next(a for a in r.arrays if a.name == row.array)
        pair = neighbours(r, row.line, row.array, row.kind)
        if len(info.shape) != 2 or pair is None:
            continue
        p, q = pair
        gap_words = abs(int(r.log[F_OFFSET, q]) - int(r.log[F_OFFSET, p])) // 4
        if gap_words % 32 == 0 and gap_words:
            bank = (int(r.log[F_OFFSET, p]) // 4) % 32
            rows, cols = info.shape
            return (
                f"Padded tile forgotten: line {row.line}: {who(r, int(r.log[F_THREAD, p]))} and the next "
                f"lane read {row.array}[{int(r.log[F_I0, p])}, {int(r.log[F_I1, p])}] and "
                f"{row.array}[{int(r.log[F_I0, q])}, {int(r.log[F_I1, q])}], {gap_words} words apart, "
                f"both in bank {bank} (a {row.max_conflict_degree}-way conflict): declare "
                f"{row.array} as ({rows}, {cols + 1}) so that a column spreads over all 32 banks."
            )
    return None


def explain(ex: Exercise, results: Sequence[TraceResult | BaseException]) -> list[str]:
    """At most one sentence per kind of bug, from the first case that shows it."""
    out: list[str] = []
    for rule in (_oob, lambda r: _coverage(ex, r), _race, _swapped, _padding):
        for r in results:
            if isinstance(r, BaseException):
                continue
            sentence = rule(r)
            if sentence:
                out.append(sentence)
                break
    return out
