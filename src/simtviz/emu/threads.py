"""The threads of one chunk: whole blocks, in linear block order, as vectors.

Lane ``k`` of the chunk is thread ``k % T`` (linear: x fastest) of the chunk's block ``k // T``.
An index that is the same for every thread of the chunk stays a scalar (``threadIdx.y`` of a
1-D block, ``blockIdx.x`` of a one-block chunk), which keeps uniform work scalar.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np

WARP = 32


class Dim3:
    """``cuda.threadIdx`` and friends: ``.x``, ``.y``, ``.z``."""

    __slots__ = ("x", "y", "z")

    def __init__(self, x: Any, y: Any, z: Any) -> None:
        self.x, self.y, self.z = x, y, z


class Threads:
    def __init__(self, grid: tuple[int, int, int], block: tuple[int, int, int], ids: np.ndarray) -> None:
        self.grid = grid
        self.block = block
        self.ids = ids  # linear ids of the chunk's blocks (int64, ascending)
        self.first = int(ids[0])
        blocks = int(ids.shape[0])
        self.blocks = blocks
        self.per_block = block[0] * block[1] * block[2]
        self.n = blocks * self.per_block

    @cached_property
    def lane(self) -> np.ndarray:
        return np.arange(self.n, dtype=np.int64)

    @cached_property
    def blk(self) -> np.ndarray:
        """The chunk's block of each lane (0 .. blocks - 1)."""
        return np.repeat(np.arange(self.blocks, dtype=np.int64), self.per_block)

    @cached_property
    def linear(self) -> np.ndarray:
        """Each lane's linear thread id within its block."""
        return np.tile(np.arange(self.per_block, dtype=np.int64), self.blocks)

    def _per_thread(self, values: np.ndarray, extent: int) -> Any:
        """A per-thread index from its values over one block (computed once, then tiled)."""
        return np.int32(0) if extent == 1 else np.tile(values.astype(np.int32), self.blocks)

    def _per_block(self, values: np.ndarray, extent: int) -> Any:
        """A per-block index from its values over the chunk's blocks (then repeated per thread)."""
        return np.int32(0) if extent == 1 else np.repeat(values.astype(np.int32), self.per_block)

    @cached_property
    def tidx(self) -> tuple[Any, Any, Any]:
        bx, by, bz = self.block
        t = np.arange(self.per_block, dtype=np.int64)
        return (
            self._per_thread(t % bx, bx),
            self._per_thread((t // bx) % by, by),
            self._per_thread(t // (bx * by), bz),
        )

    @cached_property
    def bidx(self) -> tuple[Any, Any, Any]:
        gx, gy, gz = self.grid
        if self.blocks == 1:
            f = self.first
            return np.int32(f % gx), np.int32((f // gx) % gy), np.int32(f // (gx * gy))
        ids = self.ids
        return (
            self._per_block(ids % gx, gx),
            self._per_block((ids // gx) % gy, gy),
            self._per_block(ids // (gx * gy), gz),
        )

    @cached_property
    def laneid(self) -> Any:
        return np.tile((np.arange(self.per_block) % WARP).astype(np.int32), self.blocks)

    def special(self, name: str) -> Any:
        if name == "threadIdx":
            return Dim3(*self.tidx)
        if name == "blockIdx":
            return Dim3(*self.bidx)
        if name == "blockDim":
            return Dim3(*(np.int32(v) for v in self.block))
        if name == "gridDim":
            return Dim3(*(np.int32(v) for v in self.grid))
        if name == "laneid":
            return self.laneid
        if name == "warpsize":
            return np.int32(WARP)
        raise KeyError(name)
