"""Cell colours of the index map: categorical ids in tab10, continuous values in viridis, -1 grey."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

# Categorical colours for ids (blockIdx, warp, SM): the ten of matplotlib's tab10, which stay
# distinct on washed-out projectors. Ids repeat colours every ten; borders and text disambiguate.
CATEGORICAL = np.array(
    [
        (31, 119, 180),
        (255, 127, 14),
        (44, 160, 44),
        (214, 39, 40),
        (148, 103, 189),
        (140, 86, 75),
        (227, 119, 194),
        (127, 127, 127),
        (188, 189, 34),
        (23, 190, 207),
    ],
    dtype=np.uint8,
)
UNKNOWN_RGB = np.array((150, 150, 150), dtype=np.uint8)  # -1: a value this backend cannot know
SEQUENTIAL = "viridis"


def _rgba_lut(colors: np.ndarray) -> np.ndarray:
    """uint32 entries that read as (r, g, b, 255) bytes in memory; the last entry is UNKNOWN_RGB."""
    table = np.empty((len(colors) + 1, 4), dtype=np.uint8)
    table[:-1, :3] = colors
    table[-1, :3] = UNKNOWN_RGB
    table[:, 3] = 255
    return table.view(np.uint32).ravel()


_CATEGORICAL_LUT = _rgba_lut(CATEGORICAL)
_SEQUENTIAL_LUT: np.ndarray | None = None


def colorize(values: np.ndarray, categorical: bool, levels: tuple[float, float]) -> np.ndarray:
    """RGBA (rows, cols, 4) uint8 for ``values``; -1 (unknown) is grey.

    One small lookup table indexed once per cell (uint32 entries): about 0.1 s for 2^24 cells,
    where indexing an (n, 3) table and copying took 1 s.
    """
    global _SEQUENTIAL_LUT
    unknown = values < 0
    if categorical:
        small = values
        if values.size and values.dtype.itemsize > 4 and values.min() >= -(2**31) and values.max() < 2**31:
            small = values.astype(np.int32)  # int64 remainder is ten times slower than int32
        idx = np.remainder(small, len(CATEGORICAL)).astype(np.uint8)
        idx[unknown] = len(CATEGORICAL)
        lut = _CATEGORICAL_LUT
    else:
        if _SEQUENTIAL_LUT is None:
            _SEQUENTIAL_LUT = _rgba_lut(pg.colormap.get(SEQUENTIAL).getLookupTable(nPts=256, alpha=False))
        lo, hi = levels
        # float32 is exact enough for 256 colours and halves the memory traffic of float64.
        scaled = values.astype(np.float32)
        scaled -= np.float32(lo)
        scaled *= np.float32(255.0 / max(hi - lo, 1e-12))
        scaled += np.float32(0.5)
        np.clip(scaled, 0, 255, out=scaled)
        idx = scaled.astype(np.uint16)
        idx[unknown] = 256
        lut = _SEQUENTIAL_LUT
    # Plain indexing: np.take with a 2-D index array is ten times slower here.
    return lut[idx].view(np.uint8).reshape(*values.shape, 4)


def light_text_mask(rgb: np.ndarray) -> np.ndarray:
    """True where a cell is dark enough that its value should be written in white."""
    luminance = rgb[..., 0] * 0.299 + rgb[..., 1] * 0.587 + rgb[..., 2] * 0.114
    return luminance < 140
