"""Launch configurations as the chapter writes them: ``kernel[grid, block]``.

Pure Python: a ``Dim3`` is what ``cuda.blockDim`` / ``cuda.gridDim`` report, a ``LaunchConfig``
is the pair of them with the totals a student asks about first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

WARP_SIZE = 32

_INT = re.compile(r"^[+]?\d+$")


class DimParseError(ValueError):
    """Text that is not ``X``, ``X,Y`` or ``X,Y,Z`` with non-negative integers."""


@dataclass(frozen=True, slots=True)
class Dim3:
    """Three extents, x fastest; missing ones are 1, as in CUDA's ``dim3``."""

    x: int = 1
    y: int = 1
    z: int = 1

    def __post_init__(self) -> None:
        for axis, value in (("x", self.x), ("y", self.y), ("z", self.z)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{axis} must be an int, got {value!r}")
            if value < 0:
                raise DimParseError(f"{axis} = {value} is negative; dimensions count threads or blocks")

    @classmethod
    def parse(cls, text: str) -> Dim3:
        """Parse ``"X"``, ``"X,Y"`` or ``"X,Y,Z"`` (spaces, ``x`` and parentheses tolerated)."""
        cleaned = str(text).strip().strip("()[]").replace("x", ",").replace("×", ",")
        parts = [p.strip() for p in cleaned.split(",")]
        if not cleaned or len(parts) > 3 or any(not p for p in parts):
            raise DimParseError(f"{text!r} is not X, X,Y or X,Y,Z (for example 256 or 16,16)")
        values = []
        for part in parts:
            if part.startswith("-") and _INT.match(part[1:]):
                raise DimParseError(f"{text!r}: {part} is negative; dimensions must be 0 or more")
            if not _INT.match(part):
                raise DimParseError(f"{text!r}: {part!r} is not a whole number")
            values.append(int(part))
        return cls(*values)

    @classmethod
    def of(cls, value: Dim3 | int | tuple[int, ...] | list[int] | str) -> Dim3:
        """Coerce what a user or a test hands over (an int, a tuple, a string) into a Dim3."""
        if isinstance(value, Dim3):
            return value
        if isinstance(value, str):
            return cls.parse(value)
        if isinstance(value, int):
            return cls(value)
        values = tuple(int(v) for v in value)
        if not 1 <= len(values) <= 3:
            raise DimParseError(f"{value!r} must have 1 to 3 entries")
        return cls(*values)

    def as_tuple(self) -> tuple[int, int, int]:
        return (self.x, self.y, self.z)

    @property
    def volume(self) -> int:
        return self.x * self.y * self.z

    @property
    def rank(self) -> int:
        """How many axes are used: 3 if z > 1, else 2 if y > 1, else 1."""
        if self.z != 1:
            return 3
        if self.y != 1:
            return 2
        return 1

    def python(self, rank: int) -> str:
        """How the chapter writes it: ``256``, ``(16, 16)`` or ``(8, 8, 4)``."""
        values = self.as_tuple()[:rank]
        return str(values[0]) if rank == 1 else "(" + ", ".join(map(str, values)) + ")"

    def __str__(self) -> str:
        return f"({self.x}, {self.y}, {self.z})"


def launch_text(kernel: str, grid: object, block: object, args: str | None = "...") -> str:
    """A launch as Python writes it, ``kernel[grid, block](args)``; without ``(args)`` when None.
    The one spelling of a launch in the app, the CLI and the reports."""
    return f"{kernel}[{grid}, {block}]" + ("" if args is None else f"({args})")


@dataclass(frozen=True, slots=True)
class LaunchConfig:
    """``kernel[grid, block]``: the grid of blocks and the block of threads."""

    grid: Dim3
    block: Dim3

    @classmethod
    def of(
        cls, grid: Dim3 | int | tuple[int, ...] | str, block: Dim3 | int | tuple[int, ...] | str
    ) -> LaunchConfig:
        return cls(Dim3.of(grid), Dim3.of(block))

    @property
    def rank(self) -> int:
        """1-D when y and z of both are 1, 2-D when z of both is 1, else 3-D (docs/CONTRACT.md)."""
        return max(self.grid.rank, self.block.rank)

    @property
    def threads_per_block(self) -> int:
        return self.block.volume

    @property
    def blocks(self) -> int:
        return self.grid.volume

    @property
    def total_threads(self) -> int:
        return self.blocks * self.threads_per_block

    @property
    def warps_per_block(self) -> int:
        return -(-self.threads_per_block // WARP_SIZE)

    @property
    def last_warp_size(self) -> int:
        """Threads in the block's last warp: 32 when the block is a whole number of warps."""
        rest = self.threads_per_block % WARP_SIZE
        return rest if rest else (WARP_SIZE if self.threads_per_block else 0)

    @property
    def extent(self) -> tuple[int, int, int]:
        """Size of the global index space: what ``cuda.grid(3)`` ranges over, per axis."""
        return (
            self.grid.x * self.block.x,
            self.grid.y * self.block.y,
            self.grid.z * self.block.z,
        )

    def launch_line(self, kernel: str = "record_threads", args: str | None = "...") -> str:
        """The launch as Python, e.g. ``record_threads[(4, 3), (8, 4)](...)`` (``launch_text``)."""
        rank = self.rank
        return launch_text(kernel, self.grid.python(rank), self.block.python(rank), args)

    def __str__(self) -> str:
        return f"grid {self.grid}, block {self.block}"
