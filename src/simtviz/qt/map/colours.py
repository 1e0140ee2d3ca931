"""Cell colours of the index map: ids in a glasbey-like palette, continuous values in viridis, -1 grey."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

# The first ten categorical colours: matplotlib's tab10, which stay distinct on washed-out projectors.
TAB10 = np.array(
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
PALETTE_SIZE = 48


def _srgb_to_lab(rgb: np.ndarray) -> np.ndarray:
    c = rgb.astype(np.float64) / 255.0
    c = np.where(c > 0.04045, ((c + 0.055) / 1.055) ** 2.4, c / 12.92)
    xyz = c @ np.array([[0.4124, 0.2126, 0.0193], [0.3576, 0.7152, 0.1192], [0.1805, 0.0722, 0.9505]])
    xyz /= np.array([0.9505, 1.0, 1.089])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])], axis=1)


def glasbey_like(n: int = PALETTE_SIZE, seed: np.ndarray = TAB10) -> np.ndarray:
    """``n`` colours, each as far (CIELAB distance) from those before it as a candidate can be.

    The glasbey method, greedy over a 12-level RGB grid, starting from tab10. Too dark, too light
    and grey candidates are left out: they read as "unknown" (grey) or vanish next to the borders.
    """
    levels = np.linspace(0, 255, 12)
    grid = np.stack(np.meshgrid(levels, levels, levels, indexing="ij"), axis=-1).reshape(-1, 3)
    lab = _srgb_to_lab(grid)
    chroma = np.hypot(lab[:, 1], lab[:, 2])
    keep = (lab[:, 0] > 30) & (lab[:, 0] < 92) & (chroma > 25)
    grid, lab = grid[keep], lab[keep]
    chosen = [c for c in seed[:n]]
    chosen_lab = _srgb_to_lab(np.array(chosen))
    dist = np.min(np.linalg.norm(lab[:, None, :] - chosen_lab[None, :, :], axis=2), axis=1)
    while len(chosen) < n:
        k = int(np.argmax(dist))
        chosen.append(grid[k])
        dist = np.minimum(dist, np.linalg.norm(lab - lab[k], axis=1))
    return np.array(chosen, dtype=np.uint8)


# Categorical colours for ids (blockIdx, warp, SM, …): colour = palette[(id - lowest id shown)
# % PALETTE_SIZE]. Ids are consecutive, so any PALETTE_SIZE neighbouring ids on screen are all
# distinct; colours repeat only for ids PALETTE_SIZE apart (the legend says so).
CATEGORICAL = glasbey_like()
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
        small = values - np.int64(max(0, int(levels[0])))  # the lowest id gets the first colour
        if small.size and small.dtype.itemsize > 4 and small.min() >= -(2**31) and small.max() < 2**31:
            small = small.astype(np.int32)  # int64 remainder is ten times slower than int32
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


def categorical_color(value: int, levels: tuple[float, float]) -> tuple[int, int, int]:
    """The colour ``colorize`` gives id ``value`` (for the legend)."""
    if value < 0:
        return tuple(int(c) for c in UNKNOWN_RGB)  # type: ignore[return-value]
    r, g, b = CATEGORICAL[(value - max(0, int(levels[0]))) % len(CATEGORICAL)]
    return (int(r), int(g), int(b))
