"""The record: every field a thread writes, and all that follows from the list.

One table (``RECORD_SCHEMA``) gives each field's name, dtype and width. From it come the
kernel's argument order and numba signature, the bytes a recorded thread costs, the fields the
formulas check, the allocation, the CSV columns and the npz keys (docs/CONTRACT.md, ``record``).
``COLOR_FIELDS`` is the table of what the map can be coloured by, and how each is computed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from simtviz.core.launch import WARP_SIZE, LaunchConfig


@dataclass(frozen=True, slots=True)
class RecordField:
    """One per-thread value: ``width`` 0 is a scalar, 2 or 3 a vector (``.x .y .z``)."""

    name: str  # npz key and kernel argument name
    dtype: str
    width: int = 0
    checked: bool = True  # the formulas determine it (smid and t_ns are what the hardware chose)

    @property
    def shape(self) -> tuple[int, ...]:
        return (self.width,) if self.width else ()

    @property
    def itemsize(self) -> int:
        return np.dtype(self.dtype).itemsize * max(1, self.width)

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(f"{self.name}.{axis}" for axis in "xyz"[: self.width]) if self.width else (self.name,)

    @property
    def numba_type(self) -> str:
        return f"{self.dtype}[:, ::1]" if self.width else f"{self.dtype}[::1]"


# In the kernel's argument order.
RECORD_SCHEMA: tuple[RecordField, ...] = (
    RecordField("threadIdx", "int32", 3),
    RecordField("blockIdx", "int32", 3),
    RecordField("grid1", "int64"),
    RecordField("grid2", "int64", 2),
    RecordField("grid3", "int64", 3),
    RecordField("laneid", "int32"),
    RecordField("warp", "int32"),
    RecordField("smid", "int32", checked=False),
    RecordField("t_ns", "int64", checked=False),
)

# name → (shape per thread, NumPy scalar type), the form the oracle and backends iterate over.
RECORD_FIELDS: dict[str, tuple[tuple[int, ...], type]] = {
    f.name: (f.shape, np.dtype(f.dtype).type) for f in RECORD_SCHEMA
}
CHECKED_FIELDS: tuple[str, ...] = tuple(f.name for f in RECORD_SCHEMA if f.checked)
BYTES_PER_THREAD: int = sum(f.itemsize for f in RECORD_SCHEMA)
CSV_COLUMNS: tuple[str, ...] = tuple(c for f in RECORD_SCHEMA for c in f.columns)
# After the fields: the window (origin x, y, z, size x, y, z) and the blocks' last end time.
RECORD_SIGNATURE = (
    "void(" + ", ".join([*(f.numba_type for f in RECORD_SCHEMA), "int64[::1]", "int64[::1]"]) + ")"
)
# After the checked fields: window, blockDim, rows, counters.
VERIFY_SIGNATURE = (
    "void("
    + ", ".join([*(f.numba_type for f in RECORD_SCHEMA if f.checked), "int64[::1]", "int64[::1]"])
    + ", int64, int64[::1])"
)


def allocate(threads: int, xp: ModuleType = np) -> dict[str, Any]:
    """Record arrays for ``threads`` rows, filled with -1 so unwritten rows show up as mismatches."""
    return {f.name: xp.full((threads, *f.shape), -1, dtype=f.dtype) for f in RECORD_SCHEMA}


def record_nbytes(threads: int) -> int:
    return threads * BYTES_PER_THREAD


# --- what the map can be coloured by -------------------------------------------------------

# (recorded fields, launch, array module, whether the hardware fields were read) → value per row
ColorCompute = Callable[[dict[str, Any], LaunchConfig, ModuleType, bool], Any]


@dataclass(frozen=True, slots=True)
class ColorField:
    categorical: bool  # an id: categorical colours, not a ramp
    gpu_only: bool  # only a GPU fills it (-1 in the simulator)
    compute: ColorCompute


def _component(key: str, axis: int) -> ColorCompute:
    return lambda f, _c, xp, _h: f[key][:, axis].astype(xp.int64)


def _scalar(key: str) -> ColorCompute:
    return lambda f, _c, xp, _h: f[key].astype(xp.int64)


def _global_linear(f: dict[str, Any], config: LaunchConfig, xp: ModuleType, _h: bool) -> Any:
    ex, ey, _ = config.extent
    g = f["grid3"]
    return g[:, 0] + g[:, 1] * ex + g[:, 2] * (ex * ey)


def _block_linear(f: dict[str, Any], config: LaunchConfig, xp: ModuleType, _h: bool) -> Any:
    gx, gy, _ = config.grid.as_tuple()
    b = f["blockIdx"].astype(xp.int64)
    return b[:, 0] + b[:, 1] * gx + b[:, 2] * (gx * gy)


def _thread_in_block(f: dict[str, Any], config: LaunchConfig, xp: ModuleType, _h: bool) -> Any:
    bx, by, _ = config.block.as_tuple()
    t = f["threadIdx"].astype(xp.int64)
    return t[:, 0] + t[:, 1] * bx + t[:, 2] * (bx * by)


def _global_warp(f: dict[str, Any], config: LaunchConfig, xp: ModuleType, h: bool) -> Any:
    # "warp" restarts at 0 in every block, so every block looks alike; this numbers the warps
    # of the whole launch: block linear id × warps per block + warp (a block's last warp may be
    # partial, and still counts as one).
    warps_per_block = -(-config.threads_per_block // WARP_SIZE)
    return _block_linear(f, config, xp, h) * warps_per_block + f["warp"].astype(xp.int64)


def _start_order(f: dict[str, Any], _c: LaunchConfig, xp: ModuleType, hardware: bool) -> Any:
    t = f["t_ns"]
    if not hardware:
        return xp.full(t.shape, -1, dtype=xp.int64)
    # Dense rank of the distinct start times: 0 for the threads that began first.
    _, order = xp.unique(t, return_inverse=True)
    return order.reshape(t.shape).astype(xp.int64)


# What the index map is coloured by until the user picks another (the GPU warm-up before ready
# prepares this one only).
DEFAULT_COLOR_FIELD = "global linear index"

# In the order the colour menu lists them.
COLOR_FIELDS: dict[str, ColorField] = {
    "global linear index": ColorField(False, False, _global_linear),
    "blockIdx.x": ColorField(True, False, _component("blockIdx", 0)),
    "blockIdx.y": ColorField(True, False, _component("blockIdx", 1)),
    "blockIdx.z": ColorField(True, False, _component("blockIdx", 2)),
    "block linear id": ColorField(True, False, _block_linear),
    "threadIdx.x": ColorField(False, False, _component("threadIdx", 0)),
    "threadIdx.y": ColorField(False, False, _component("threadIdx", 1)),
    "threadIdx.z": ColorField(False, False, _component("threadIdx", 2)),
    "thread id in block": ColorField(False, False, _thread_in_block),
    "warp": ColorField(True, False, _scalar("warp")),
    "global warp id": ColorField(True, False, _global_warp),
    "lane": ColorField(False, False, _scalar("laneid")),
    "SM": ColorField(True, True, _scalar("smid")),
    "start order": ColorField(False, True, _start_order),
}
