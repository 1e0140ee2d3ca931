"""The index map: every recorded thread as one cell, coloured by a field it recorded.

pyqtgraph shows the map with the row-major + ``invertY`` idiom (shared/DESIGN.md): array row 0 is
drawn at the top, exactly like a matrix, so ``current_image()[r, c]`` is the cell in row ``r`` and
column ``c`` on screen. Cell (r, c) is centred on view coordinates (c, r) — plus the window's
origin — so the axes read as thread coordinates, not as pixel edges.

NumPy (simulator) recordings are drawn at once. Device (GPU) recordings never have their arrays
touched on the GUI thread: the map asks for the images it needs with ``imagesRequested``, the main
window computes them in a worker job (``simtviz.qt.map_data.device_images``) and hands them back
with ``set_images``; hover text and the inspector get one thread's record through
``thread_lookup``, which may answer None until the worker has fetched it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QLineF, QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QCursor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGraphicsRectItem,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from simtviz.core.files import atomic_write
from simtviz.core.recording import COLOR_FIELDS, GPU_ONLY_FIELDS, Recording
from simtviz.qt.map_data import MapImages, host_images, is_device
from simtviz.qt.theme import PALETTES, Palette

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
MAX_TILES = 64  # tiled 3-D view: more planes than this are reachable with the slider only
# Block borders closer than this on screen are not drawn: they would merge into a grey smear. So
# at most (view width + height) / this many lines are drawn, whatever the size of the map.
MIN_BORDER_SPACING_PX = 4.0
MAX_TEXT_CELLS = 3000  # value text is drawn only when this few cells are visible


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


class CellImageItem(pg.ImageItem):
    """An ImageItem that shows maps larger than the screen by picking cells, not averaging them.

    pyqtgraph's autoDownsample averages colours: a 4096 × 4096 map costs ~0.5 s per paint and
    mixes the colours of neighbouring ids into ones no thread recorded. Striding keeps every shown
    pixel a real cell's colour and costs a view; zooming in still shows every cell.
    """

    def render(self) -> None:
        if not self.autoDownsample or self.image is None:
            super().render()
            return
        xds, yds = self._computeDownsampleFactors()
        if xds is None:
            return
        full = self.image
        self.image, self.autoDownsample = full[::yds, ::xds], False
        try:
            super().render()
        finally:
            self.image, self.autoDownsample = full, True
        self._lastDownsample = (xds, yds)


class CellTextItem(pg.GraphicsObject):
    """Writes each visible cell's value in it, once cells are big enough on screen to hold it.

    Text is drawn in device pixels (the painter's transform reset), so it stays crisp at any
    zoom and grows with the cells: big cells, big numbers for the back of the room.
    """

    def __init__(self) -> None:
        super().__init__()
        self._values: np.ndarray | None = None
        self._white: np.ndarray | None = None
        self._origin = (0.0, 0.0)
        self._rect = QRectF()
        self._digits = 1
        self.font = QFont()
        self.font.setBold(True)

    def set_data(self, values: np.ndarray, rgb: np.ndarray, origin: tuple[float, float]) -> None:
        """``rgb``: the cells' colours; text colour is worked out only for cells shown with text."""
        self.prepareGeometryChange()
        self._values, self._white, self._origin = values, rgb, origin
        rows, cols = values.shape
        self._rect = QRectF(origin[0] - 0.5, origin[1] - 0.5, cols, rows)
        lo, hi = (int(values.min()), int(values.max())) if values.size else (0, 0)
        self._digits = len(str(max(abs(lo), abs(hi)))) + (1 if lo < 0 else 0)
        self.update()

    def boundingRect(self) -> QRectF:
        return self._rect

    def paint(self, painter: QPainter, *args: Any) -> None:
        values, rgb = self._values, self._white
        vb = self.getViewBox()
        if values is None or rgb is None or vb is None:
            return
        t = painter.transform()
        cell_w, cell_h = abs(t.m11()), abs(t.m22())
        font = QFont(self.font)
        font_px = int(min(cell_h * 0.5, 64))
        if font_px < 8:
            return
        font.setPixelSize(font_px)
        # Shrink until the widest value fits its cell, with a little margin either side.
        widest = QFontMetricsF(font).horizontalAdvance("8" * self._digits)
        if widest > cell_w - 6:
            font_px = int(font_px * (cell_w - 6) / widest)
            if font_px < 8:
                return
            font.setPixelSize(font_px)
        ox, oy = self._origin
        view = vb.viewRect()
        rows, cols = values.shape
        c0 = max(0, math.floor(view.left() - ox + 0.5))
        c1 = min(cols, math.ceil(view.right() - ox + 0.5))
        r0 = max(0, math.floor(view.top() - oy + 0.5))
        r1 = min(rows, math.ceil(view.bottom() - oy + 0.5))
        if c1 <= c0 or r1 <= r0 or (c1 - c0) * (r1 - r0) > MAX_TEXT_CELLS:
            return
        white = np.zeros(values.shape, dtype=bool)
        white[r0:r1, c0:c1] = light_text_mask(rgb[r0:r1, c0:c1])
        painter.save()
        painter.resetTransform()
        painter.setFont(font)
        black, whitepen = QPen(QColor(0, 0, 0)), QPen(QColor(255, 255, 255))
        for r in range(r0, r1):
            for c in range(c0, c1):
                centre = t.map(QPointF(ox + c, oy + r))
                box = QRectF(centre.x() - cell_w / 2, centre.y() - cell_h / 2, cell_w, cell_h)
                painter.setPen(whitepen if white[r, c] else black)
                painter.drawText(box, Qt.AlignmentFlag.AlignCenter, str(int(values[r, c])))
        painter.restore()


class BlockBorderItem(pg.GraphicsObject):
    """Block borders of one tile, drawn for the part in view and only where they can be told apart.

    A map of 2^24 threads has millions of block edges; a curve through all of them is slow to
    build and draws as a smear. Here each paint works out the edges inside the visible range, and
    draws the inner ones only when neighbouring edges are at least ``MIN_BORDER_SPACING_PX``
    apart on screen, so the count stays bounded by the view's size; zooming in shows them all.
    The tile's outline is always drawn. The pen is cosmetic: the same width at any zoom.
    """

    def __init__(self, pen: QPen) -> None:
        super().__init__()
        self.pen = QPen(pen)
        self.pen.setCosmetic(True)
        self._rect = QRectF()
        self._x = (1.0, 0.0)  # (step, first edge offset) in cells, along x
        self._y = (1.0, 0.0)
        self.last_line_count = 0  # lines drawn by the last paint: for tests and benchmarks
        self.last_resolved = (True, True)  # whether inner x/y edges were drawn

    def set_grid(self, rect: QRectF, step_x: int, first_x: int, step_y: int, first_y: int) -> None:
        self.prepareGeometryChange()
        self._rect = QRectF(rect)
        self._x, self._y = (float(max(1, step_x)), float(first_x)), (float(max(1, step_y)), float(first_y))
        self.update()

    def boundingRect(self) -> QRectF:
        return self._rect.adjusted(-1, -1, 1, 1)

    @staticmethod
    def _edges(lo: float, hi: float, origin: float, step: float, first: float) -> np.ndarray:
        start = math.ceil((lo - origin - first) / step)
        stop = math.floor((hi - origin - first) / step)
        if stop < start:
            return np.empty(0)
        return origin + first + step * np.arange(start, stop + 1, dtype=float)

    def paint(self, painter: QPainter, *args: Any) -> None:
        vb = self.getViewBox()
        rect = self._rect
        if vb is None or rect.isEmpty():
            return
        view = vb.viewRect().intersected(rect)
        t = painter.transform()
        px_x, px_y = abs(t.m11()) + abs(t.m21()), abs(t.m22()) + abs(t.m12())
        lines = [
            QLineF(rect.topLeft(), rect.topRight()),
            QLineF(rect.bottomLeft(), rect.bottomRight()),
            QLineF(rect.topLeft(), rect.bottomLeft()),
            QLineF(rect.topRight(), rect.bottomRight()),
        ]
        resolved_x = self._x[0] * px_x >= MIN_BORDER_SPACING_PX
        resolved_y = self._y[0] * px_y >= MIN_BORDER_SPACING_PX
        if not view.isEmpty():
            top, bottom = max(view.top(), rect.top()), min(view.bottom(), rect.bottom())
            left, right = max(view.left(), rect.left()), min(view.right(), rect.right())
            if resolved_x:
                for x in self._edges(view.left(), view.right(), rect.left(), *self._x):
                    lines.append(QLineF(x, top, x, bottom))
            if resolved_y:
                for y in self._edges(view.top(), view.bottom(), rect.top(), *self._y):
                    lines.append(QLineF(left, y, right, y))
        painter.setPen(self.pen)
        painter.drawLines(lines)
        self.last_line_count = len(lines)
        self.last_resolved = (resolved_x, resolved_y)


@dataclass
class _Tile:
    """One z-plane drawn at an offset: its image, value text, block borders and caption."""

    plane: int
    origin: tuple[float, float]
    image: pg.ImageItem
    text: CellTextItem
    borders: BlockBorderItem
    caption: pg.TextItem | None


@dataclass(frozen=True, slots=True)
class Cell:
    plane: int
    row: int
    col: int


class IndexMap(QWidget):
    """``indexMap``: the map, its colour-by choice and, for 3-D launches, the z-slice control."""

    threadPinned = Signal(object)  # Cell
    cellHovered = Signal(object)  # Cell or None
    planeChanged = Signal(int)
    imagesRequested = Signal(object, str, object)  # device Recording, field, tuple of planes

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("indexMap")
        self._recording: Recording | None = None
        self._field = "global linear index"
        self._shape: tuple[int, int, int] | None = None  # (planes, rows, cols) of the recording
        self._images: dict[int, np.ndarray] = {}  # plane → values of the field shown (host)
        self._levels = (0.0, 1.0)
        self._pending: tuple[str, tuple[int, ...]] | None = None  # images asked for, not yet here
        # row → that thread's record, or None while it is being fetched (device recordings).
        self.thread_lookup: Any = None
        self._plane = 0
        self._tiled = False
        self._tiles: list[_Tile] = []
        self._pinned: Cell | None = None
        self._palette: Palette = PALETTES["light"]
        self._presentation = False
        self.last_tooltip = ""
        self._hovered: Cell | None = None
        self._hover_pos = QPoint()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Colour by"))
        self.colorBy = QComboBox(objectName="colorBy")
        for name in COLOR_FIELDS:
            self.colorBy.addItem(name)
            if name in GPU_ONLY_FIELDS:
                index = self.colorBy.count() - 1
                self.colorBy.setItemText(index, name)
                self.colorBy.setItemData(index, "recorded on a GPU only", Qt.ItemDataRole.ToolTipRole)
        self.colorBy.currentTextChanged.connect(self.set_color_field)
        bar.addWidget(self.colorBy)
        self.zLabel = QLabel("z-plane", objectName="zLabel")
        self.zSlice = QSlider(Qt.Orientation.Horizontal, objectName="zSlice")
        self.zSlice.setRange(0, 0)
        self.zSlice.setPageStep(1)
        self.zSlice.setMinimumWidth(160)
        self.zSlice.valueChanged.connect(self.set_plane)
        self.tiledCheck = QCheckBox("All z-planes", objectName="tiledCheck")
        self.tiledCheck.setToolTip("Show every z-plane side by side (the slider picks the one inspected)")
        self.tiledCheck.toggled.connect(self.set_tiled)
        for w in (self.zLabel, self.zSlice, self.tiledCheck):
            bar.addWidget(w)
        bar.addStretch(1)
        self.fitButton = QPushButton("Fit", objectName="fitButton")
        self.fitButton.setToolTip("Show the whole map (Ctrl+0)")
        self.fitButton.clicked.connect(self.fit)
        bar.addWidget(self.fitButton)
        layout.addLayout(bar)
        self.message = QLabel(objectName="mapMessage", wordWrap=True)
        self.message.setVisible(False)
        layout.addWidget(self.message)

        self.view = pg.GraphicsLayoutWidget()
        self.view.setObjectName("mapView")
        self.view.setMouseTracking(True)
        self.plot: pg.PlotItem = self.view.addPlot(row=0, col=0)
        self.plot.invertY(True)
        self.plot.setAspectLocked(True)
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        self.plot.vb.setDefaultPadding(0.02)
        self.colorBar = pg.ColorBarItem(
            values=(0, 1), colorMap=pg.colormap.get(SEQUENTIAL), interactive=False, width=22
        )
        self.view.addItem(self.colorBar, row=0, col=1)
        self.colorBar.setVisible(False)  # until a map is shown
        self._selection = QGraphicsRectItem()
        self._selection.setZValue(30)
        self._selection.setVisible(False)
        self.plot.addItem(self._selection, ignoreBounds=True)
        self._placeholder = pg.TextItem("Press Run to launch the kernel", anchor=(0.5, 0.5))
        self._placeholder.setFont(QFont(self.font().family(), 16))
        self.plot.addItem(self._placeholder)
        layout.addWidget(self.view, stretch=1)

        self.view.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.view.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        self._show_z_controls(False)
        self.apply_style(self._palette, False)
        self._rebuild()

    # --- contract --------------------------------------------------------------------------
    def current_image(self) -> np.ndarray | None:
        """The 2-D array now shown (the selected z-plane), before the colour map; None before a run."""
        return self._images.get(self._plane)

    # --- data ------------------------------------------------------------------------------
    @property
    def recording(self) -> Recording | None:
        return self._recording

    def color_field(self) -> str:
        return self._field

    def plane(self) -> int:
        return self._plane

    def planes(self) -> int:
        return self._shape[0] if self._shape is not None else 0

    def set_recording(self, recording: Recording | None) -> None:
        """Show ``recording``; keeps the colour field, resets the plane if needed.

        A device recording is drawn when its images arrive (``set_images``).
        """
        self._recording = recording
        self._pinned = None
        self._selection.setVisible(False)
        self._images = {}
        self._pending = None
        self._hovered = None
        if recording is None:
            self._shape = None
            self._rebuild()
            return
        self._shape = recording.plane_shape()
        planes = self._shape[0]
        self._plane = min(self._plane, planes - 1)
        self._compute_values()
        self.zSlice.blockSignals(True)
        self.zSlice.setRange(0, planes - 1)
        self.zSlice.setValue(self._plane)
        self.zSlice.blockSignals(False)
        self._show_z_controls(recording.config.rank == 3)
        self._rebuild()
        self.fit()

    def set_color_field(self, name: str) -> None:
        if name not in COLOR_FIELDS:
            raise KeyError(f"unknown colour field {name!r}")
        self._field = name
        if self.colorBy.currentText() != name:
            self.colorBy.blockSignals(True)
            self.colorBy.setCurrentText(name)
            self.colorBy.blockSignals(False)
        if self._recording is not None:
            self._images = {}
            self._pending = None
            self._compute_values()
            self._rebuild()

    def set_plane(self, z: int) -> None:
        planes = self.planes()
        if planes and not 0 <= z < planes:
            raise IndexError(f"z-plane {z} is outside 0..{planes - 1}")
        changed = z != self._plane
        self._plane = z
        if self.zSlice.value() != z:
            self.zSlice.blockSignals(True)
            self.zSlice.setValue(z)
            self.zSlice.blockSignals(False)
        self._update_z_label()
        if self._shape is not None:
            if self._tiled:
                self._highlight_tile()
            else:
                self._compute_values()
                self._rebuild()
        if changed:
            self._pinned = None
            self._selection.setVisible(False)
            self.planeChanged.emit(z)

    def set_tiled(self, tiled: bool) -> None:
        if self.tiledCheck.isChecked() != tiled:
            self.tiledCheck.blockSignals(True)
            self.tiledCheck.setChecked(tiled)
            self.tiledCheck.blockSignals(False)
        self._tiled = tiled
        if self._shape is not None:
            self._compute_values()
            self._rebuild()
            self.fit()

    def is_tiled(self) -> bool:
        return self._tiled and self.planes() > 1

    def _wanted_planes(self) -> tuple[int, ...]:
        if self.is_tiled():
            return tuple(range(min(self.planes(), MAX_TILES)))
        return (self._plane,)

    def loading(self) -> bool:
        """True while images of a device recording are on their way."""
        return self._pending is not None

    def _compute_values(self) -> None:
        """Host recordings: every plane now. Device recordings: ask for the planes not here yet."""
        rec = self._recording
        assert rec is not None
        if not is_device(rec):
            if not self._images:
                self._take(host_images(rec, self._field))
            return
        missing = tuple(z for z in self._wanted_planes() if z not in self._images)
        if missing and self._pending != (self._field, missing):
            self._pending = (self._field, missing)
            self.imagesRequested.emit(rec, self._field, missing)

    def set_images(self, images: MapImages) -> None:
        """Images computed off the GUI thread arrive; those for another recording or field are dropped."""
        if images.recording is not self._recording or images.field != self._field:
            return
        first = not self._images
        self._pending = None
        self._take(images)
        self._rebuild()
        if first:
            self.fit()
        # The plane may have moved on while these were computed.
        self._compute_values()

    def _take(self, images: MapImages) -> None:
        self._images.update(images.planes)
        self._levels = images.levels
        unknown = self._field in GPU_ONLY_FIELDS and not images.any_known
        self.message.setText(
            f"“{self._field}” is recorded only on a GPU; the simulator cannot know it, so every "
            "thread holds -1 (grey)."
            if unknown
            else ""
        )
        self.message.setVisible(unknown)

    # --- drawing ---------------------------------------------------------------------------
    def _base_origin(self) -> tuple[float, float]:
        rec = self._recording
        assert rec is not None
        ox, oy, _ = rec.window.origin
        if rec.config.rank == 1:
            return (0.0, float(ox // max(1, rec.config.block.x)))
        return (float(ox), float(oy))

    def _clear_tiles(self) -> None:
        for tile in self._tiles:
            for item in (tile.image, tile.text, tile.borders, tile.caption):
                if item is not None:
                    self.plot.removeItem(item)
        self._tiles = []

    def _rebuild(self) -> None:
        self._clear_tiles()
        rec, shape = self._recording, self._shape
        shown_any = shape is not None and any(z in self._images for z in self._wanted_planes())
        self._placeholder.setText("Press Run to launch the kernel" if rec is None else "Loading the map…")
        self._placeholder.setVisible(not shown_any)
        # Axes with no map are noise on a projector: show them with the first map.
        for axis in ("left", "bottom"):
            self.plot.showAxis(axis, shown_any)
        if rec is None or shape is None or not shown_any:
            self.colorBar.setVisible(False)
            return
        planes, rows, cols = shape
        bx, by = self._base_origin()
        if self.is_tiled():
            shown = list(range(min(planes, MAX_TILES)))
            across = math.ceil(math.sqrt(len(shown)))
            gap_x, gap_y = max(1, math.ceil(cols * 0.12)), max(2, math.ceil(rows * 0.25))
            offsets = [
                (bx + (i % across) * (cols + gap_x), by + (i // across) * (rows + gap_y)) for i in shown
            ]
        else:
            shown, offsets = [self._plane], [(bx, by)]
        categorical = COLOR_FIELDS[self._field]
        for plane, origin in zip(shown, offsets, strict=True):
            if plane in self._images:  # device images may still be on their way
                self._tiles.append(self._make_tile(plane, origin, self._images[plane], categorical))
        self.colorBar.setVisible(not categorical)
        if not categorical:
            self.colorBar.setLevels(self._levels)
        self._set_axis_labels()
        self._highlight_tile()
        self._update_z_label()

    def _make_tile(
        self, plane: int, origin: tuple[float, float], values: np.ndarray, categorical: bool
    ) -> _Tile:
        rows, cols = values.shape
        rgb = colorize(values, categorical, self._levels)
        # Maps larger than the screen are drawn downsampled to the pixels shown (one cell per
        # pixel, see CellImageItem); zooming in redraws the visible part at full detail.
        image = CellImageItem(rgb, axisOrder="row-major", autoDownsample=True)
        rect = QRectF(origin[0] - 0.5, origin[1] - 0.5, cols, rows)
        image.setRect(rect)
        self.plot.addItem(image)
        text = CellTextItem()
        text.font.setPointSize(12)
        text.set_data(values, rgb, origin)
        text.setZValue(10)
        self.plot.addItem(text)
        borders = BlockBorderItem(pg.mkPen(self._palette.border, width=3 if self._presentation else 2))
        borders.setZValue(20)
        borders.set_grid(rect, *self._border_grid())
        self.plot.addItem(borders, ignoreBounds=True)
        caption = None
        if self.is_tiled():
            assert self._recording is not None
            z = self._recording.window.origin[2] + plane
            caption = pg.TextItem(f"z = {z}", color=self._palette.foreground, anchor=(0, 1))
            caption.setPos(origin[0] - 0.5, origin[1] - 0.5)
            self.plot.addItem(caption)
        return _Tile(plane, origin, image, text, borders, caption)

    def _border_grid(self) -> tuple[int, int, int, int]:
        """(step x, first x edge, step y, first y edge) in cells from the tile's left/top edge."""
        rec = self._recording
        assert rec is not None
        _planes, _rows, cols = rec.plane_shape()
        if rec.config.rank == 1:
            return cols, 0, 1, 0  # one row per block: a border between every two rows
        bx, by = rec.config.block.x, rec.config.block.y
        wx, wy, _ = rec.window.origin
        return bx, (-wx) % bx, by, (-wy) % by

    def _set_axis_labels(self) -> None:
        rec = self._recording
        if rec is None:
            return
        size = "20pt" if self._presentation else "12pt"
        style = {"color": self._palette.foreground, "font-size": size}
        if rec.config.rank == 1:
            self.plot.setLabel("left", "blockIdx.x (one row per block)", **style)
            self.plot.setLabel("bottom", "threadIdx.x", **style)
        else:
            n = rec.config.rank  # a 3-D launch's plane is laid out by cuda.grid(3)'s x and y
            self.plot.setLabel("left", f"y = cuda.grid({n})[1]", **style)
            self.plot.setLabel("bottom", f"x = cuda.grid({n})[0]", **style)
        self.plot.setTitle(self._title(), color=self._palette.foreground, size=size)

    def _title(self) -> str:
        rec = self._recording
        assert rec is not None
        title = f"{rec.config.launch_line('kernel', '')[:-2]} — coloured by {self._field}"
        if rec.config.rank == 3 and not self.is_tiled():
            title += f" — z = {rec.window.origin[2] + self._plane}"
        return title

    def _highlight_tile(self) -> None:
        for tile in self._tiles:
            if tile.caption is not None:
                bold = tile.plane == self._plane
                tile.caption.setColor(self._palette.selection if bold else self._palette.foreground)
        if self._recording is not None:
            self.plot.setTitle(
                self._title(),
                color=self._palette.foreground,
                size="20pt" if self._presentation else "12pt",
            )

    def fit(self) -> None:
        if self._tiles:
            self.plot.vb.autoRange(padding=0.02)

    # --- styling ---------------------------------------------------------------------------
    def apply_style(self, palette: Palette, presentation: bool) -> None:
        self._palette, self._presentation = palette, presentation
        self.view.setBackground(palette.background)
        font = QFont()
        font.setPointSize(18 if presentation else 10)
        for name in ("left", "bottom"):
            axis = self.plot.getAxis(name)
            axis.setPen(palette.foreground)
            axis.setTextPen(palette.foreground)
            axis.setStyle(tickFont=font)
        bar_axis = self.colorBar.getAxis("right")
        bar_axis.setTextPen(palette.foreground)
        bar_axis.setStyle(tickFont=font)
        # Wide enough for labels like "16,777,215": pyqtgraph drops a label that does not fit.
        bar_axis.setWidth(110 if presentation else 60)
        self._placeholder.setColor(palette.foreground)
        pen = QPen(QColor(palette.selection))
        pen.setCosmetic(True)
        pen.setWidth(4)
        self._selection.setPen(pen)
        if self._shape is not None:
            self._rebuild()

    # --- cells, hover and click --------------------------------------------------------------
    def cell_at(self, view_x: float, view_y: float) -> Cell | None:
        """The cell under view coordinates (x, y), or None."""
        if self._shape is None:
            return None
        _, rows, cols = self._shape
        for tile in self._tiles:
            c = math.floor(view_x - tile.origin[0] + 0.5)
            r = math.floor(view_y - tile.origin[1] + 0.5)
            if 0 <= r < rows and 0 <= c < cols:
                return Cell(tile.plane, r, c)
        return None

    def cell_view_pos(self, cell: Cell) -> QPoint:
        """Where ``cell``'s centre is in ``self.view`` (widget pixels): for tests and scripts."""
        for tile in self._tiles:
            if tile.plane == cell.plane:
                scene = self.plot.vb.mapViewToScene(
                    QPointF(tile.origin[0] + cell.col, tile.origin[1] + cell.row)
                )
                return self.view.mapFromScene(scene)
        raise ValueError(f"plane {cell.plane} is not shown")

    def row_of(self, cell: Cell) -> int:
        assert self._recording is not None
        return self._recording.row_of(cell.plane, cell.row, cell.col)

    def thread(self, cell: Cell) -> dict[str, Any] | None:
        """``cell``'s record: at once for host recordings, None while a device one is fetched."""
        rec = self._recording
        assert rec is not None
        row = self.row_of(cell)
        if self.thread_lookup is not None:
            return self.thread_lookup(row)
        return rec.thread_at(row) if not is_device(rec) else None

    def tooltip_for(self, cell: Cell) -> str:
        rec = self._recording
        assert rec is not None
        image = self._images.get(cell.plane)
        value = "…" if image is None else str(int(image[cell.row, cell.col]))
        t = self.thread(cell)
        if t is None:
            return f"<b>{self._field} = {value}</b><br>fetching this thread's record …"
        lines = [
            f"<b>{self._field} = {value}</b>",
            f"threadIdx = {t['threadIdx']}",
            f"blockIdx = {t['blockIdx']}",
            f"cuda.grid(1) = {t['grid1']}",
            f"cuda.grid(2) = {t['grid2']}",
        ]
        if rec.config.rank == 3:
            lines.append(f"cuda.grid(3) = {t['grid3']}")
        lines.append(f"warp {t['warp']}, lane {t['laneid']}")
        if rec.has_hardware_fields:
            lines.append(f"SM {t['smid']}")
        lines.append("<i>click to pin it in the inspector</i>")
        return "<br>".join(lines)

    def hover(self, cell: Cell | None, global_pos: QPoint | None = None) -> str:
        """Show the tooltip for ``cell`` (None hides it); returns its text."""
        from PySide6.QtWidgets import QToolTip

        self._hovered = cell
        if cell is None:
            self.last_tooltip = ""
            QToolTip.hideText()
        else:
            self.last_tooltip = self.tooltip_for(cell)
            self._hover_pos = global_pos or QCursor.pos()
            QToolTip.showText(self._hover_pos, self.last_tooltip, self.view)
        self.cellHovered.emit(cell)
        return self.last_tooltip

    def hovered(self) -> Cell | None:
        return self._hovered

    def refresh_hover(self) -> None:
        """Rewrite the tooltip of the hovered cell (its record has just arrived)."""
        from PySide6.QtWidgets import QToolTip

        if self._hovered is not None and self._recording is not None:
            self.last_tooltip = self.tooltip_for(self._hovered)
            if QToolTip.isVisible():
                QToolTip.showText(self._hover_pos, self.last_tooltip, self.view)

    def pin(self, cell: Cell) -> None:
        """Select ``cell``'s thread: outline it and tell the inspector."""
        if cell.plane != self._plane:
            self.set_plane(cell.plane)
        self._pinned = cell
        for tile in self._tiles:
            if tile.plane == cell.plane:
                x, y = tile.origin[0] + cell.col - 0.5, tile.origin[1] + cell.row - 0.5
                self._selection.setRect(QRectF(x, y, 1, 1))
                self._selection.setVisible(True)
        self.threadPinned.emit(cell)

    def pinned(self) -> Cell | None:
        return self._pinned

    def _on_mouse_moved(self, scene_pos: QPointF) -> None:
        if not self._tiles or not self.plot.sceneBoundingRect().contains(scene_pos):
            return
        point = self.plot.vb.mapSceneToView(scene_pos)
        cell = self.cell_at(point.x(), point.y())
        global_pos = self.view.mapToGlobal(self.view.mapFromScene(scene_pos))
        self.hover(cell, global_pos)

    def _on_mouse_clicked(self, event: Any) -> None:
        if event.button() != Qt.MouseButton.LeftButton or not self._tiles:
            return
        point = self.plot.vb.mapSceneToView(event.scenePos())
        cell = self.cell_at(point.x(), point.y())
        if cell is not None:
            self.pin(cell)

    def _show_z_controls(self, visible: bool) -> None:
        for w in (self.zLabel, self.zSlice, self.tiledCheck):
            w.setVisible(visible)

    def _update_z_label(self) -> None:
        rec = self._recording
        if rec is None or rec.config.rank != 3:
            return
        z = rec.window.origin[2] + self._plane
        bz = rec.config.block.z
        self.zLabel.setText(f"z = {z}  (blockIdx.z {z // bz}, threadIdx.z {z % bz})")

    # --- export ----------------------------------------------------------------------------
    def render_png(self, width: int = 1600) -> bytes:
        """The map with its axes and colour bar as PNG bytes (pyqtgraph's ImageExporter)."""
        from pyqtgraph.exporters import ImageExporter

        exporter = ImageExporter(self.view.scene())
        exporter.parameters()["width"] = int(width)
        image = exporter.export(toBytes=True)
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        if not image.save(buffer, "PNG"):
            raise OSError("Qt could not encode the map as PNG")
        buffer.close()
        return bytes(data.data())

    def export_png(self, path: str | Path, width: int = 1600) -> Path:
        """Write the map as a PNG, atomically (a failed export leaves no half-written file)."""
        payload = self.render_png(width)
        return atomic_write(path, lambda fh: fh.write(payload))
