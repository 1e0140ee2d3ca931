"""Traced runs written by hand, for the exercise checks and "explain my bug" (no kernel runs).

A run is a few log rows, each ``Row(thread, site, index)``: the site gives the line, the array and
the kind; the index the element (``oob=True`` for an attempt outside the array). The log is laid
out as the tracer writes it (fields thread, site, flags = oob | kind << 1 | array << 3, byte
offset from the array's start, i0, i1, i2, epoch); ``analyse`` reads it as it reads a real one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from simtviz.core.exercise.model import Case, Exercise
from simtviz.core.trace.analysis import ArrayInfo, analyse
from simtviz.core.trace.model import TraceResult
from simtviz.core.trace.rewrite import KINDS, Site


class Row(NamedTuple):
    thread: int
    site: int
    index: tuple[int, ...]
    oob: bool = False
    epoch: int = 0


def sites_of(arrays: Sequence[ArrayInfo], *specs: tuple[int, str, str]) -> tuple[Site, ...]:
    """``(line, array, kind)`` per site, site ids 0, 1, …"""
    info = {a.name: a for a in arrays}
    return tuple(
        Site(n, line, 4, name, kind, len(info[name].shape), info[name].space)
        for n, (line, name, kind) in enumerate(specs)
    )


def log_of(sites: Sequence[Site], arrays: Sequence[ArrayInfo], rows: Sequence[Row]) -> np.ndarray:
    ids = {a.name: n for n, a in enumerate(arrays)}
    log = np.zeros((8, len(rows)), dtype=np.int64)
    for n, row in enumerate(rows):
        site = sites[row.site]
        info = arrays[ids[site.array]]
        index = [*row.index, 0, 0][:3]
        flat = 0
        for i, side in zip(row.index, info.shape, strict=True):
            flat = flat * side + i
        flags = int(row.oob) | KINDS.index(site.kind) << 1 | ids[site.array] << 3
        log[:, n] = [row.thread, site.id, flags, flat * info.itemsize, *index, row.epoch]
    return log


def traced(
    grid: tuple[int, int, int],
    block: tuple[int, int, int],
    arrays: Sequence[ArrayInfo],
    sites: Sequence[Site],
    rows: Sequence[Row],
    inputs: dict[str, Any] | None = None,
    outputs: dict[str, np.ndarray] | None = None,
) -> TraceResult:
    log = log_of(sites, arrays, rows)
    analysis = analyse(log, len(rows), sites, arrays, block)
    return TraceResult(
        "sim", "k", grid, block, tuple(sites), tuple(arrays), analysis, log, inputs or {}, outputs or {}
    )


def exercise_of(
    cases: Sequence[Case],
    checks: Sequence[str],
    outputs: Sequence[str] = ("out",),
    expect: Callable[[dict[str, Any]], dict[str, Any]] = lambda x: {},
    slack: float = 1.0,
) -> Exercise:
    return Exercise(
        id="hand",
        title="Hand",
        kernel="k",
        params=("a", "out"),
        statement="s",
        picture="p",
        starter="",
        hints=(),
        checks=tuple(checks),
        outputs=tuple(outputs),
        cases=tuple(cases),
        expect=expect,
        coalesced_slack=slack,
    )
