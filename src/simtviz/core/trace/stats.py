"""The analysis' tables as types: per line (global and shared arrays), per array, out of bounds.

``analyse`` (``core.trace.analysis``) makes them once from the log; the findings, the Your kernel
tab and the exercises read their fields. ``as_json()`` gives each one's ``simtviz trace --json``
object (docs/CONTRACT.md: the keys and their order are the outside contract), which only
``TraceResult.summary()`` asks for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

GLOBAL, SHARED = "global", "shared"


@dataclass(frozen=True, slots=True)
class LineStats:
    """One source line's accesses of one kind to one global array (a parameter): ``lines``."""

    line: int
    array: str
    kind: str  # "load", "store" or "atomic"
    count: int  # accesses logged (out of bounds included)
    requests: int  # performed warp requests
    sectors: int
    sectors_per_request: float | None  # None without requests
    efficiency: float | None  # bytes used / bytes fetched; None without sectors
    space: ClassVar[str] = GLOBAL

    def as_json(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "array": self.array,
            "kind": self.kind,
            "count": self.count,
            "requests": self.requests,
            "sectors": self.sectors,
            "sectors_per_request": self.sectors_per_request,
            "efficiency": self.efficiency,
        }


@dataclass(frozen=True, slots=True)
class SharedLineStats:
    """One source line's accesses of one kind to one shared array: ``shared_lines``."""

    line: int
    array: str
    kind: str
    count: int
    requests: int
    wavefronts: int  # summed over requests
    wavefronts_per_request: float | None  # None without requests
    min_wavefronts: int  # the least these elements allow, summed over requests
    max_conflict_degree: int  # the worst request's wavefronts
    space: ClassVar[str] = SHARED

    def as_json(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "array": self.array,
            "kind": self.kind,
            "space": SHARED,
            "count": self.count,
            "requests": self.requests,
            "wavefronts": self.wavefronts,
            "wavefronts_per_request": self.wavefronts_per_request,
            "min_wavefronts": self.min_wavefronts,
            "max_conflict_degree": self.max_conflict_degree,
        }


@dataclass(frozen=True, slots=True)
class ArrayStats:
    """One global array's logged accesses and what its elements saw: ``arrays``."""

    shape: tuple[int, ...]
    dtype: str
    loads: int
    stores: int
    atomics: int
    untouched: int  # elements no logged access touched
    multi_writer: int  # elements stored by more than one thread

    def as_json(self) -> dict[str, Any]:
        return {
            "shape": list(self.shape),
            "dtype": self.dtype,
            "loads": self.loads,
            "stores": self.stores,
            "atomics": self.atomics,
            "untouched": self.untouched,
            "multi_writer": self.multi_writer,
        }


@dataclass(frozen=True, slots=True)
class SharedArrayStats:
    """One shared array's logged accesses (one copy per block: no per-element counts)."""

    shape: tuple[int, ...]
    dtype: str
    loads: int
    stores: int
    atomics: int

    def as_json(self) -> dict[str, Any]:
        return {
            "shape": list(self.shape),
            "dtype": self.dtype,
            "loads": self.loads,
            "stores": self.stores,
            "atomics": self.atomics,
        }


@dataclass(frozen=True, slots=True)
class OobStats:
    """Out-of-bounds attempts of one line and kind on one array: ``oob``."""

    array: str
    line: int
    kind: str
    count: int
    space: str = GLOBAL

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"array": self.array, "line": self.line, "kind": self.kind, "count": self.count}
        if self.space == SHARED:  # only then: a kernel without shared arrays keeps CONTRACT's keys
            out["space"] = SHARED
        return out
