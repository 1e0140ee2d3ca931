"""What one launch of the instrumented kernel recorded, and the maps drawn from it.

Every value shown comes from the recorded fields; the formulas (``oracle``) only check them.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from simtviz.core.errors import RecordFileError
from simtviz.core.files import atomic_write
from simtviz.core.launch import LaunchConfig
from simtviz.core.limits import explain, validate
from simtviz.core.npz_read import CheckedNpz
from simtviz.core.oracle import Verification, verify
from simtviz.core.schema import COLOR_FIELDS as SCHEMA_COLORS
from simtviz.core.schema import CSV_COLUMNS, RECORD_FIELDS, RECORD_SCHEMA
from simtviz.core.window import BYTES_PER_THREAD, DEFAULT_BUDGET_THREADS, Window

# What the map can be coloured by: label → whether it is an id (categorical colours), and the
# fields only a GPU fills (-1 in the simulator). Both follow schema.COLOR_FIELDS.
COLOR_FIELDS: dict[str, bool] = {name: spec.categorical for name, spec in SCHEMA_COLORS.items()}
GPU_ONLY_FIELDS: tuple[str, ...] = tuple(name for name, spec in SCHEMA_COLORS.items() if spec.gpu_only)
CSV_CHUNK_ROWS = 1 << 16  # rows formatted between two progress reports (~0.1 s each)


@dataclass
class Recording:
    """Per-thread records of one launch over ``window`` (rows x fastest, then y, then z)."""

    config: LaunchConfig
    window: Window
    fields: dict[str, Any]
    backend: str
    verification: Verification | None = None
    timings_ms: dict[str, float | None] = field(default_factory=dict)
    xp: ModuleType = np
    # How a device array reaches the host (the GPU backend passes a pinned-memory copy).
    to_host: Callable[[Any], np.ndarray] | None = None

    @property
    def threads(self) -> int:
        return self.window.threads

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickles (the simulator's child process sends records back): host records only."""
        if self.xp is not np or self.to_host is not None:
            raise TypeError("a device recording cannot be pickled; copy it to the host first")
        args = (self.config, self.window, self.fields, self.backend, self.verification, self.timings_ms)
        return (Recording, args)

    @property
    def has_hardware_fields(self) -> bool:
        """True when smid and %globaltimer were read (a GPU run)."""
        return self.backend.startswith("gpu")

    def color_values(self, name: str) -> Any:
        """The per-row value of colour field ``name``, computed from the recorded fields."""
        spec = SCHEMA_COLORS.get(name)
        if spec is None:
            raise KeyError(f"unknown colour field {name!r}; choose one of {', '.join(COLOR_FIELDS)}")
        return spec.compute(self.fields, self.config, self.xp, self.has_hardware_fields)

    def plane_shape(self) -> tuple[int, int, int]:
        """(planes, rows, columns) of the map for this launch (see docs/CONTRACT.md, map layout)."""
        wx, wy, wz = self.window.size
        if self.config.rank == 1:
            bx = self.config.block.x
            return (1, wx // bx, bx)
        return (wz, wy, wx)

    def image(self, name: str, z: int = 0) -> np.ndarray:
        """The 2-D map of colour field ``name`` for z-plane ``z`` of the window, on the host."""
        shape = self.plane_shape()
        if not 0 <= z < shape[0]:
            raise IndexError(f"z-plane {z} is outside 0..{shape[0] - 1}")
        return self.plane_to_host(self.color_values(name).reshape(shape)[z])

    def plane_to_host(self, plane: Any) -> np.ndarray:
        """One plane of colour values as a host array (through pinned memory for a GPU record)."""
        if self.xp is np:
            return np.ascontiguousarray(plane)
        # On the device: halve the copy when the values fit in int32 (they nearly always do).
        if plane.size and int(plane.min()) >= -(2**31) and int(plane.max()) < 2**31:
            plane = plane.astype(self.xp.int32)
        plane = self.xp.ascontiguousarray(plane)
        return self.to_host(plane) if self.to_host else plane.get()

    def thread_at(self, row: int) -> dict[str, Any]:
        """Everything one row (thread) recorded, as plain Python values."""
        out: dict[str, Any] = {}
        for name in RECORD_FIELDS:
            value = self.fields[name][row]
            get = getattr(value, "get", None)
            value = np.asarray(get() if callable(get) else value)
            out[name] = tuple(int(v) for v in value) if value.ndim else int(value)
        return out

    def cell_of(self, thread_xyz: tuple[int, int, int]) -> tuple[int, int, int] | None:
        """Where the thread with global index ``thread_xyz`` (its ``cuda.grid(3)``) is drawn:
        (plane, row, column) of the map (docs/CONTRACT.md, map layout), or None outside the
        window. The one place a thread becomes a cell; ``row_of`` reads a cell back."""
        gx, gy, gz = thread_xyz
        ox, oy, oz = self.window.origin
        x, y, z = gx - ox, gy - oy, gz - oz
        wx, wy, wz = self.window.size
        if not (0 <= x < wx and 0 <= y < wy and 0 <= z < wz):
            return None
        if self.config.rank == 1:
            bx = self.config.block.x
            return (0, x // bx, x % bx)
        return (z, y, x)

    def row_of(self, plane: int, r: int, c: int) -> int:
        """Row of the record shown at (plane, row r, column c) of the map."""
        _planes, rows, cols = self.plane_shape()
        return (plane * rows + r) * cols + c

    def host_fields(self) -> dict[str, np.ndarray]:
        out = {}
        for name, value in self.fields.items():
            get = getattr(value, "get", None)
            out[name] = np.asarray(get() if callable(get) else value)
        return out

    def save_npz(self, path: str | Path, progress: Callable[[float], None] | None = None) -> Path:
        """Write the record in the ``simtviz record`` format (docs/CONTRACT.md), atomically.

        Written one array at a time (what ``np.savez`` does inside) so that ``progress`` (0..1)
        is called between arrays; it may raise to stop the export (nothing is left behind).
        """
        arrays = self.host_fields()
        arrays["blockDim"] = np.array(self.config.block.as_tuple(), dtype=np.int64)
        arrays["gridDim"] = np.array(self.config.grid.as_tuple(), dtype=np.int64)
        arrays["backend"] = np.array(self.backend)
        arrays["window_origin"] = np.array(self.window.origin, dtype=np.int64)
        arrays["window_size"] = np.array(self.window.size, dtype=np.int64)
        # Compressing a 16-million-thread record takes ~30 s; past a million rows, size loses to time.
        compression = zipfile.ZIP_DEFLATED if self.threads <= 1 << 20 else zipfile.ZIP_STORED
        total = sum(a.nbytes for a in arrays.values())  # never 0: blockDim alone is 24 bytes

        def write(fh: Any) -> None:
            done = 0
            with zipfile.ZipFile(fh, "w", compression=compression, allowZip64=True) as zf:
                for name, array in arrays.items():
                    with zf.open(f"{name}.npy", "w", force_zip64=True) as member:
                        np.lib.format.write_array(member, np.asanyarray(array), allow_pickle=False)
                    done += array.nbytes
                    if progress is not None:
                        progress(done / total)

        # Uncompressed, the size is known: reserve it, so a full disk is said before writing.
        size = sum(a.nbytes + 1024 for a in arrays.values()) if compression == zipfile.ZIP_STORED else None
        return atomic_write(path, write, size_hint=size)

    def save_csv(self, path: str | Path, progress: Callable[[float], None] | None = None) -> Path:
        """One line per thread, columns named as the kernel reads them; written in chunks so that
        ``progress`` (0..1) is called as it goes (it may raise to stop the export)."""
        h = self.host_fields()
        table = np.column_stack([h[name] for name in RECORD_FIELDS])  # 1-D fields become columns
        table = table.astype(np.int64, copy=False)
        header = ",".join(CSV_COLUMNS)
        rows = len(table)

        def write(fh: Any) -> None:
            fh.write((header + "\n").encode())
            for start in range(0, rows, CSV_CHUNK_ROWS):
                np.savetxt(fh, table[start : start + CSV_CHUNK_ROWS], fmt="%d", delimiter=",")
                if progress is not None:
                    progress(min(rows, start + CSV_CHUNK_ROWS) / rows)

        return atomic_write(path, write)


REQUIRED_KEYS = (*RECORD_FIELDS, "gridDim", "blockDim", "backend")
# The most array bytes a record may hold to be opened: a record of the default recording budget
# (4,194,304 threads × 92 bytes = 386 MB) and its few small members.
MAX_RECORD_BYTES = DEFAULT_BUDGET_THREADS * BYTES_PER_THREAD + 4096


def load_npz(path: str | Path) -> Recording:
    """Read a file written by ``simtviz record`` or File → Export back into a Recording.

    Never unpickles (a record file may come from anyone), and checks the launch, the window and
    every member's size from the headers before any member is decompressed (``npz_read``);
    anything that is not a record raises ``RecordFileError`` saying what is wrong with the file,
    and nothing else.
    """
    with CheckedNpz(path, MAX_RECORD_BYTES) as data:
        missing = [key for key in REQUIRED_KEYS if key not in data]
        if missing:
            raise RecordFileError(f"{path} is not a simtviz record: it has no {', '.join(missing)}")
        grid = _triple(data, "gridDim", path)
        block = _triple(data, "blockDim", path)
        config = LaunchConfig.of(grid, block)
        problems = validate(config)
        if problems:
            raise RecordFileError(
                f"{path} is damaged: its launch gridDim {grid}, blockDim {block} is one no GPU "
                f"runs: {explain(problems)}"
            )
        if "window_origin" in data or "window_size" in data:
            half = [key for key in ("window_origin", "window_size") if key not in data]
            if half:
                raise RecordFileError(f"{path} is damaged: it has a window but no {half[0]}")
            window = Window(_triple(data, "window_origin", path), _triple(data, "window_size", path))
            inside = all(
                o >= 0 and s >= 1 and o + s <= e
                for o, s, e in zip(window.origin, window.size, config.extent, strict=True)
            )
            if not inside:
                raise RecordFileError(
                    f"{path} is damaged: its window (origin {window.origin}, size {window.size}) "
                    f"is not inside the launch's {config.extent} threads"
                )
        else:
            window = Window.full(config)
        for f in RECORD_SCHEMA:  # every row count and type from the headers, before any read
            m = data.members[f.name]
            want = (window.threads, *f.shape)
            if m.shape[:1] != want[:1]:
                rows = m.shape[0] if m.shape else 0
                raise RecordFileError(
                    f"{path} is damaged: {f.name}: {rows:,} rows for {window.threads:,} threads"
                )
            if m.shape != want or m.dtype.kind not in "iu":
                raise RecordFileError(
                    f"{path} is damaged: {f.name}: {m.dtype} {m.shape} where a record has {f.dtype} {want}"
                )
        b = data.members["backend"]  # a name of at most 64 characters, stored 4 bytes each (UTF-32)
        if b.shape != () or b.dtype.kind != "U" or b.nbytes > 64 * 4:
            raise RecordFileError(f"{path} is damaged: backend: {b.dtype} {b.shape} is not a short name")
        backend = str(data.array("backend"))
        fields = {f.name: data.array(f.name) for f in RECORD_SCHEMA}
    try:
        verification = verify(fields, config, window)
    except MemoryError as exc:
        raise RecordFileError(
            f"{path}: checking its {window.threads:,} threads does not fit in memory"
        ) from exc
    return Recording(config, window, fields, backend, verification)


def _triple(data: CheckedNpz, key: str, path: str | Path) -> tuple[int, int, int]:
    m = data.members[key]
    if m.shape != (3,) or m.dtype.kind not in "iu":
        raise RecordFileError(f"{path} is damaged: {key} must be 3 whole numbers (it is {m.dtype} {m.shape})")
    return tuple(int(v) for v in data.array(key))  # type: ignore[return-value]
