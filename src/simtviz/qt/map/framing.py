"""What the map's first view shows, tiled z-planes' own ticks, and the categorical legend.

Plain functions of shapes and numbers (no widgets), so the index map keeps to drawing.
"""

from __future__ import annotations

import html
import math

from PySide6.QtCore import QRectF

from simtviz.qt.map.colours import CATEGORICAL, categorical_color

# A map more than this many times wider than the view (or taller) is "elongated": at 1:1 it would
# draw as a line, so it opens on its first part and "See all" stretches it to fit.
ELONGATED_RATIO = 6.0
LEGEND_ENTRIES = 12  # categorical legend: ids listed before "…"


def elongation(rows: int, cols: int, view_w: float, view_h: float) -> float:
    """How much wider (> 1) or taller (< 1) the map is than the view, in shape."""
    return (cols / max(rows, 1)) / (max(view_w, 1.0) / max(view_h, 1.0))


def is_elongated(rows: int, cols: int, view_w: float, view_h: float) -> bool:
    ratio = elongation(rows, cols, view_w, view_h)
    return ratio > ELONGATED_RATIO or ratio < 1 / ELONGATED_RATIO


def start_rect(
    left: float, top: float, rows: int, cols: int, view_w: float, view_h: float
) -> tuple[QRectF, str]:
    """The first part of an elongated map that fills the view with square cells, and its words:
    all rows and the first columns of a wide map, all columns and the first rows of a tall one."""
    view_ratio = max(view_w, 1.0) / max(view_h, 1.0)
    if cols / rows > view_ratio:
        shown = min(cols, max(1, math.ceil(rows * view_ratio)))
        return QRectF(left, top, shown, rows), f"the first {shown:,} of {cols:,} columns"
    shown = min(rows, max(1, math.ceil(cols / view_ratio)))
    return QRectF(left, top, cols, shown), f"the first {shown:,} of {rows:,} rows"


def caption_band(rows: int) -> int:
    """Rows of room above each tile for its caption (kept in view by Fit)."""
    return max(2, math.ceil(rows * 0.5))


def tile_offsets(
    count: int, rows: int, cols: int, base: tuple[float, float], view: tuple[float, float] = (4.0, 3.0)
) -> list[tuple[float, float]]:
    """Where each of ``count`` tiles (z-planes) starts: as many across as gives the biggest cells
    in a view of ``view`` (width, height) pixels, with room between rows for the captions."""
    gap_x, gap_y = max(1, math.ceil(cols * 0.15)), caption_band(rows)

    def cell_px(across: int) -> float:
        down = math.ceil(count / across)
        return min(view[0] / (across * (cols + gap_x)), view[1] / (down * (rows + gap_y) + gap_y))

    across = max(range(1, count + 1), key=cell_px)
    return [
        (base[0] + (i % across) * (cols + gap_x), base[1] + (i // across) * (rows + gap_y))
        for i in range(count)
    ]


def tile_ticks(
    offsets: list[tuple[float, float]], rows: int, cols: int, origin: tuple[int, int]
) -> tuple[list[tuple[float, str]], list[tuple[float, str]]]:
    """(bottom, left) ticks for tiled z-planes: each tile's own first and last x and y (one axis
    running on across all tiles read as if x went 0 … 25)."""
    xs = sorted({x for x, _ in offsets})
    ys = sorted({y for _, y in offsets})
    bottom = [(x + c, str(origin[0] + c)) for x in xs for c in sorted({0, cols - 1})]
    left = [(y + r, str(origin[1] + r)) for y in ys for r in sorted({0, rows - 1})]
    return bottom, left


def legend_ids(lo: int, hi: int) -> list[int | None]:
    """Ids the legend lists (None for "⋮"): all of lo … hi, or the first ones and the last."""
    ids: list[int | None] = list(range(lo, hi + 1))
    if len(ids) > LEGEND_ENTRIES:
        ids = [*range(lo, lo + LEGEND_ENTRIES - 1), None, hi]
    return ids


def legend_html(field: str, levels: tuple[float, float], top: int | None = None) -> str:
    """A swatch and the id for each id listed; says so when colours repeat. ``top``: the largest
    id on the map (the levels stretch one warp, 0 … 0, to 0 … 1: a warp 1 that does not exist)."""
    lo, hi = int(levels[0]), int(levels[1])
    if top is not None:
        hi = max(lo, min(hi, int(top)))
    lines = [f"<b>{html.escape(field)}</b>"]
    for value in legend_ids(lo, hi):
        if value is None:
            lines.append("&nbsp;⋮")
            continue
        r, g, b = categorical_color(value, levels)
        lines.append(f"<span style='color: #{r:02x}{g:02x}{b:02x}'>██</span> {value}")
    if hi - lo + 1 > len(CATEGORICAL):
        lines.append(f"<i>colours repeat<br>every {len(CATEGORICAL)} ids</i>")
    return "<br>".join(lines)
