"""The recording window: the box of global coordinates whose threads write their record.

A launch always runs in full; only threads inside the window record, so a launch of trillions of
threads still fits in memory. By default the window is the whole launch.
"""

from __future__ import annotations

from dataclasses import dataclass

from simtviz.core.launch import LaunchConfig
from simtviz.core.schema import BYTES_PER_THREAD

# Most threads one run records, the CLI's and the app's default alike (one constant: README, the
# app's setting and `record --help` all say 4,194,304): 2^22 threads × 92 bytes ≈ 370 MB, a
# 2048 × 2048 map, more than a screen shows; larger launches record a window (--budget raises it).
DEFAULT_BUDGET_THREADS = 1 << 22

__all__ = ["BYTES_PER_THREAD", "DEFAULT_BUDGET_THREADS", "Window", "choose_window"]


@dataclass(frozen=True, slots=True)
class Window:
    """Origin and size in ``cuda.grid(3)`` coordinates; rows are stored x fastest."""

    origin: tuple[int, int, int]
    size: tuple[int, int, int]

    @classmethod
    def full(cls, config: LaunchConfig) -> Window:
        return cls((0, 0, 0), config.extent)

    @property
    def threads(self) -> int:
        return self.size[0] * self.size[1] * self.size[2]

    @property
    def end(self) -> tuple[int, int, int]:
        return tuple(o + s for o, s in zip(self.origin, self.size, strict=True))  # type: ignore[return-value]

    def covers(self, config: LaunchConfig) -> bool:
        return self.origin == (0, 0, 0) and self.size == config.extent

    def describe(self, config: LaunchConfig) -> str:
        """E.g. ``recording 4,194,304 of 4,398,046,511,104 threads: window x 0–2047, y 0–2047``."""
        if self.covers(config):
            return f"recording all {self.threads:,} threads"
        axes = [
            f"{a} {o}–{o + s - 1}"
            for a, o, s, e in zip("xyz", self.origin, self.size, config.extent, strict=True)
            if e > 1
        ]
        return f"recording {self.threads:,} of {config.total_threads:,} threads: window " + ", ".join(axes)


def choose_window(
    config: LaunchConfig,
    budget_threads: int = DEFAULT_BUDGET_THREADS,
    origin: tuple[int, int, int] = (0, 0, 0),
) -> Window:
    """The whole launch if it fits the budget, else a window of at most ``budget_threads``.

    The window keeps whole blocks along x for 1-D launches (so the map keeps one row per block),
    is as square as the budget allows in x and y, and takes z-planes while room is left. It is
    clipped to the launch and its origin moved inside it.
    """
    ex, ey, ez = config.extent
    if config.total_threads <= budget_threads and origin == (0, 0, 0):
        return Window.full(config)
    budget = max(1, budget_threads)
    if config.rank == 1:
        bx = config.block.x
        blocks = max(1, min(config.grid.x, budget // max(bx, 1)))
        ox = min(origin[0] // bx * bx, max(0, ex - blocks * bx))
        return Window((ox, 0, 0), (min(ex, blocks * bx), 1, 1))
    # As square as possible in x and y, then z-planes with the rest of the budget.
    side = 1
    while side * 2 * side * 2 <= budget:
        side *= 2
    wx = min(ex, side)
    wy = min(ey, max(1, budget // wx))
    wx = min(ex, max(wx, budget // wy))
    wz = min(ez, max(1, budget // (wx * wy)))
    ox = min(max(0, origin[0]), ex - wx)
    oy = min(max(0, origin[1]), ey - wy)
    oz = min(max(0, origin[2]), ez - wz)
    return Window((ox, oy, oz), (wx, wy, wz))
