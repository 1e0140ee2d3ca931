"""Find a thread on the map by its indices: "go to blockIdx (1, 2), threadIdx (3, 0)" or "go to 42".

Qt-free: the inspector's Go to box parses the text here and pins the cell this returns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from simtviz.core.launch import LaunchConfig
from simtviz.core.window import Window


class LocateError(ValueError):
    """The text names no thread of this recording; the message says why, in words."""


@dataclass(frozen=True, slots=True)
class ThreadAddress:
    """Either a block and a thread index (x, y, z), or a global linear index."""

    block: tuple[int, int, int] | None = None
    thread: tuple[int, int, int] | None = None
    linear: int | None = None


def _triple(text: str) -> tuple[int, int, int]:
    parts = [int(p) for p in re.split(r"[\s,]+", text.strip()) if p]
    if not 1 <= len(parts) <= 3:
        raise LocateError(f"“{text.strip()}”: write x, x,y or x,y,z")
    return (*parts, *(0,) * (3 - len(parts)))  # type: ignore[return-value]


def parse_address(text: str) -> ThreadAddress:
    """``"1,2 3,0"`` / ``"blockIdx 1,2 threadIdx 3,0"`` / ``"(1, 2) (3, 0)"`` → block and thread;
    a single integer ``"42"`` → the global linear index."""
    cleaned = re.sub(r"(?i)blockIdx|threadIdx|block|thread|[=:]", " ", text).strip()
    if re.fullmatch(r"\d+", cleaned):
        return ThreadAddress(linear=int(cleaned))
    groups = re.findall(r"\(([^)]*)\)", cleaned)
    if not groups:  # "1,2 3,0": commas join one index's parts, a space separates the two
        groups = re.sub(r"\s*,\s*", ",", cleaned).split()
    if len(groups) != 2 or not all(re.fullmatch(r"[\d,\s]+", g) for g in groups):
        raise LocateError(
            f"“{text.strip()}” is not a thread: write blockIdx then threadIdx (e.g. 1,2 3,0) "
            "or one global linear index (e.g. 42)"
        )
    return ThreadAddress(block=_triple(groups[0]), thread=_triple(groups[1]))


def locate(config: LaunchConfig, window: Window, address: ThreadAddress) -> tuple[int, int, int]:
    """(plane, row, column) on the map of the thread at ``address``.

    Raises ``LocateError`` for a thread outside the launch or outside the recorded window.
    """
    ex, ey, _ = config.extent
    if address.linear is not None:
        n = address.linear
        if not 0 <= n < config.total_threads:
            raise LocateError(f"global linear index {n:,} is outside 0 … {config.total_threads - 1:,}")
        gx, gy, gz = n % ex, (n // ex) % ey, n // (ex * ey)
    else:
        assert address.block is not None
        assert address.thread is not None
        grid, block = config.grid.as_tuple(), config.block.as_tuple()
        for what, idx, dims, name in (
            ("blockIdx", address.block, grid, "gridDim"),
            ("threadIdx", address.thread, block, "blockDim"),
        ):
            for axis, i, d in zip("xyz", idx, dims, strict=True):
                if not 0 <= i < d:
                    raise LocateError(f"{what}.{axis} = {i} is outside 0 … {d - 1} ({name}.{axis} = {d})")
        gx, gy, gz = (b * d + t for b, d, t in zip(address.block, block, address.thread, strict=True))
    ox, oy, oz = window.origin
    wx, wy, wz = window.size
    if not (ox <= gx < ox + wx and oy <= gy < oy + wy and oz <= gz < oz + wz):
        raise LocateError(
            f"that thread (x {gx:,}, y {gy:,}, z {gz:,}) ran but is outside the recorded window; "
            "move the window to record it"
        )
    lx, ly, lz = gx - ox, gy - oy, gz - oz
    if config.rank == 1:
        bx = config.block.x
        return (0, lx // bx, lx % bx)  # one row per block
    return (lz, ly, lx)
