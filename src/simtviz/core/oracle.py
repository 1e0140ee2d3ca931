"""The oracle: what every thread of a launch must see, worked out from the formulas.

Vectorised over an array module ``xp`` (NumPy on the host, CuPy on the GPU: this module never
imports CuPy, the GPU backend passes it in), so verifying 16 million threads stays on the device.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from simtviz.core.launch import WARP_SIZE, LaunchConfig
from simtviz.core.schema import CHECKED_FIELDS, RECORD_FIELDS
from simtviz.core.window import Window

__all__ = [
    "CHECKED_FIELDS",
    "RECORD_FIELDS",
    "Mismatch",
    "Verification",
    "expected_field",
    "global_coordinates",
    "verify",
]


def global_coordinates(window: Window, xp: ModuleType = np) -> tuple[Any, Any, Any]:
    """``cuda.grid(3)`` of every row of a recording over ``window`` (rows in raster order)."""
    wx, wy, _wz = window.size
    ox, oy, oz = window.origin
    rows = xp.arange(window.threads, dtype=xp.int64)
    gx = rows % wx + ox
    gy = (rows // wx) % wy + oy
    gz = rows // (wx * wy) + oz
    return gx, gy, gz


def expected_field(
    name: str, config: LaunchConfig, window: Window, xp: ModuleType = np, coords: Any = None
) -> Any:
    """The value of record field ``name`` that every row must hold, as the formulas give it.
    ``coords``: ``global_coordinates(window, xp)`` when the caller has them already."""
    gx, gy, gz = coords if coords is not None else global_coordinates(window, xp)
    bx, by, bz = config.block.as_tuple()
    if name == "grid1":
        return gx
    if name == "grid2":
        return xp.stack([gx, gy], axis=1)
    if name == "grid3":
        return xp.stack([gx, gy, gz], axis=1)
    if name == "threadIdx":
        return xp.stack([gx % bx, gy % by, gz % bz], axis=1).astype(xp.int32)
    if name == "blockIdx":
        return xp.stack([gx // bx, gy // by, gz // bz], axis=1).astype(xp.int32)
    linear = (gx % bx) + (gy % by) * bx + (gz % bz) * (bx * by)
    if name == "warp":
        return (linear // WARP_SIZE).astype(xp.int32)
    if name == "laneid":
        return (linear % WARP_SIZE).astype(xp.int32)
    raise KeyError(f"{name!r} is not a field the formulas determine")


@dataclass(frozen=True, slots=True)
class Mismatch:
    """The first thread whose record disagrees with the formulas."""

    row: int
    field: str
    recorded: tuple[int, ...]
    expected: tuple[int, ...]

    def __str__(self) -> str:
        return f"row {self.row}: {self.field} recorded {self.recorded}, expected {self.expected}"


@dataclass(frozen=True, slots=True)
class Verification:
    """How many recorded threads agree with the formulas, field by field."""

    matched: int
    total: int
    mismatched_by_field: dict[str, int] = field(default_factory=dict)
    first_mismatch: Mismatch | None = None

    @property
    def ok(self) -> bool:
        return self.matched == self.total

    def summary(self) -> str:
        text = f"{self.matched:,} of {self.total:,} threads match"
        if not self.ok:
            fields = ", ".join(f"{k} ({v:,})" for k, v in self.mismatched_by_field.items() if v)
            text += f" — MISMATCH in {fields}"
            if self.first_mismatch:
                text += f"; first: {self.first_mismatch}"
        return text


def verify(fields: dict[str, Any], config: LaunchConfig, window: Window, xp: ModuleType = np) -> Verification:
    """Compare every recorded row with the oracle; unwritten rows (still -1) count as mismatches."""
    total = window.threads
    good = xp.ones(total, dtype=bool)
    by_field: dict[str, int] = {}
    wrong: dict[str, tuple[Any, Any, Any]] = {}
    coords = global_coordinates(window, xp)  # once, not once per field
    for name in CHECKED_FIELDS:
        recorded = fields[name]
        expected = expected_field(name, config, window, xp, coords)
        same = recorded == expected
        if same.ndim == 2:  # column by column: all(axis=1) over 2-3 columns is ~10× slower
            row_same = same[:, 0]
            for k in range(1, same.shape[1]):
                row_same = row_same & same[:, k]
            same = row_same
        bad = int(total - int(xp.count_nonzero(same)))
        by_field[name] = bad
        if bad:
            good &= same
            wrong[name] = (same, recorded, expected)
    first: Mismatch | None = None
    if wrong:
        # The lowest-numbered wrong row, and the first of its fields that is wrong.
        row = int(xp.argmin(good))
        for name, (same, recorded, expected) in wrong.items():
            if not bool(same[row]):
                first = Mismatch(
                    row,
                    name,
                    tuple(int(v) for v in np.atleast_1d(_host(recorded[row]))),
                    tuple(int(v) for v in np.atleast_1d(_host(expected[row]))),
                )
                break
    return Verification(int(xp.count_nonzero(good)), total, by_field, first)


def _host(value: Any) -> np.ndarray:
    get = getattr(value, "get", None)
    return np.asarray(get() if callable(get) else value)
