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
from simtviz.core.oracle import Verification, verify
from simtviz.core.schema import COLOR_FIELDS as SCHEMA_COLORS
from simtviz.core.schema import CSV_COLUMNS, RECORD_FIELDS
from simtviz.core.window import Window

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
        """(planes, rows, columns) of the map for this launch (see CONTRACT.md, map layout)."""
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
        """Write the record in the ``simtviz record`` format (CONTRACT.md), atomically.

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
        total = sum(a.nbytes for a in arrays.values()) or 1

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
        table = np.column_stack([h[name].reshape(len(h[name]), -1) for name in RECORD_FIELDS])
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


def load_npz(path: str | Path) -> Recording:
    """Read a file written by ``simtviz record`` or File → Export back into a Recording.

    Never unpickles (a record file may come from anyone); anything that is not a record raises
    ``RecordFileError`` saying what is wrong with the file.
    """
    try:
        data = np.load(path, allow_pickle=False)
    except OSError as exc:
        raise RecordFileError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except (ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise RecordFileError(f"{path} is not a NumPy .npz archive") from exc
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise RecordFileError(f"{path} holds a single array (.npy), not a simtviz record (.npz)")
    with data:
        missing = [key for key in REQUIRED_KEYS if key not in data.files]
        if missing:
            raise RecordFileError(f"{path} is not a simtviz record: it has no {', '.join(missing)}")
        key = ""
        try:
            key = "gridDim"
            grid = tuple(int(v) for v in data["gridDim"])
            key = "blockDim"
            config = LaunchConfig.of(grid, tuple(int(v) for v in data["blockDim"]))
            key = "window"
            if "window_origin" in data.files:
                window = Window(
                    tuple(int(v) for v in data["window_origin"]),  # type: ignore[arg-type]
                    tuple(int(v) for v in data["window_size"]),  # type: ignore[arg-type]
                )
            else:
                window = Window.full(config)
            fields = {}
            for key in RECORD_FIELDS:
                fields[key] = data[key]
                rows = fields[key].shape[0] if fields[key].ndim else 0
                if rows != window.threads:
                    raise ValueError(f"{rows:,} rows for {window.threads:,} threads")
            key = "backend"
            backend = str(data["backend"])
        except ValueError as exc:
            if "allow_pickle" in str(exc):
                raise RecordFileError(
                    f"{path}: {key} holds Python objects, which simtviz never loads"
                ) from exc
            raise RecordFileError(f"{path} is damaged: {key}: {exc}") from exc
        except (TypeError, KeyError, OSError, EOFError, zipfile.BadZipFile) as exc:
            raise RecordFileError(f"{path} is damaged: {key}: {exc}") from exc
    return Recording(config, window, fields, backend, verify(fields, config, window))
