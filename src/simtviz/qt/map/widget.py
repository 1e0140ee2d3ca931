"""The index map widget: every recorded thread as one cell, coloured by a field it recorded.

pyqtgraph shows the map with the row-major + ``invertY`` idiom (docs/CONTRACT.md, map layout): array row 0 is
drawn at the top, exactly like a matrix, so ``current_image()[r, c]`` is the cell in row ``r`` and
column ``c`` on screen. Cell (r, c) is centred on view coordinates (c, r) — plus the window's
origin — so the axes read as thread coordinates, not as pixel edges.

With a ``RunSession`` the map asks it for images and single thread records; device (GPU)
recordings are then never touched on the GUI thread (the session fetches on its worker, and
answers host recordings at once through the same signals). Without one (snapshot, benchmarks)
the map computes its images itself, on the calling thread.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPoint, QPointF, QRectF, QSignalBlocker, Signal
from PySide6.QtGui import QColor, QFont, QPen
from PySide6.QtWidgets import QGraphicsRectItem, QLabel, QVBoxLayout, QWidget

from simtviz.core.files import atomic_write
from simtviz.core.maps import MapImages, map_images
from simtviz.core.recording import COLOR_FIELDS, GPU_ONLY_FIELDS, Recording
from simtviz.qt.map import items as map_items
from simtviz.qt.map.bar import MapControls
from simtviz.qt.map.cells import MapCells
from simtviz.qt.map.colours import SEQUENTIAL, colorize
from simtviz.qt.map.export import render_png
from simtviz.qt.map.framing import caption_band, is_elongated, start_rect, tile_offsets
from simtviz.qt.map.items import BlockBorderItem, Cell, CellImageItem, CellTextItem, PinRing, Tile
from simtviz.qt.map.items import IntegerAxis as Axis
from simtviz.qt.map.labels import MapLabels
from simtviz.qt.theme import PALETTES, Palette

if TYPE_CHECKING:
    from simtviz.qt.session import RunSession

MAX_TILES = 64  # tiled 3-D view: more planes than this are reachable with the slider only


class IndexMap(QWidget):
    """``indexMap``: the map, its colour-by choice and, for 3-D launches, the z-slice control."""

    threadPinned = Signal(object)  # Cell
    cellHovered = Signal(object)  # Cell or None
    planeChanged = Signal(int)
    tooltipChanged = Signal(str)  # the hover text now shown ("" when none)

    def __init__(self, session: RunSession | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("indexMap")
        self._session = session
        self._requesting = False  # inside a request that the session may answer at once
        self._recording: Recording | None = None
        self._field = "global linear index"
        self._shape: tuple[int, int, int] | None = None  # (planes, rows, cols) of the recording
        self._images: dict[int, np.ndarray] = {}  # plane → values of the field shown (host)
        self._levels = (0.0, 1.0)
        self._pending: tuple[str, tuple[int, ...]] | None = None  # images asked for, not yet here
        self._plane = 0
        self._tiled = False
        self._tiles: list[Tile] = []
        self._pinned: Cell | None = None
        self._palette: Palette = PALETTES["light"]
        self._presentation = False
        self._stretched = False  # "See all" of an elongated map: aspect unlocked

        self.cells, self.labels = MapCells(self), MapLabels(self)  # its parts under the mouse, its words
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.controls = MapControls(self, self)
        c = self.controls
        self.colorBy, self.zLabel, self.zSlice = c.colorBy, c.zLabel, c.zSlice
        self.tiledCheck, self.fitButton, self.seeAllButton = c.tiledCheck, c.fitButton, c.seeAllButton
        layout.addWidget(self.controls)
        self.message = QLabel(objectName="mapMessage", wordWrap=True)
        self.message.setVisible(False)
        layout.addWidget(self.message)

        self.view = pg.GraphicsLayoutWidget()
        self.view.setObjectName("mapView")
        self.view.setMouseTracking(True)
        # Rows and columns are whole threads: ticks on integers only, however far one zooms in.
        self.plot: pg.PlotItem = self.view.addPlot(0, 0, axisItems={s: Axis(s) for s in ("left", "bottom")})
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
        map_items.quiet_unlabelled_axes(self.plot, self.colorBar)
        # Categorical fields: which colour is which id (in the scene, so exported PNGs have it).
        self.legend = pg.LabelItem("", justify="left")
        self.legend.setObjectName("mapLegend")
        self.view.addItem(self.legend, row=0, col=2)
        self.legend.setVisible(False)
        self._pinMarker = PinRing()
        self.plot.addItem(self._pinMarker, ignoreBounds=True)
        self._selection = QGraphicsRectItem()
        self._selection.setZValue(30)
        self._selection.setVisible(False)
        self.plot.addItem(self._selection, ignoreBounds=True)
        self._placeholder = pg.TextItem("Press Run to launch the kernel", anchor=(0.5, 0.5))
        self._placeholder.setFont(QFont(self.font().family(), 16))
        self.plot.addItem(self._placeholder)
        layout.addWidget(self.view, stretch=1)

        self.view.scene().sigMouseMoved.connect(self.cells.on_mouse_moved)
        self.view.scene().sigMouseClicked.connect(self.cells.on_mouse_clicked)
        self._show_z_controls(False)
        self.apply_style(self._palette, False)
        self._rebuild()
        if session is not None:
            session.recordingChanged.connect(self.set_recording)
            session.imagesArrived.connect(self.set_images)
            session.threadArrived.connect(self.cells.on_thread_arrived)

    def set_badge(self, label: QLabel) -> None:
        """Show ``label`` (the backend) in the map's bar, right of the colour choice."""
        self.controls.set_badge(label)

    # --- contract --------------------------------------------------------------------------
    def current_image(self) -> np.ndarray | None:
        """The 2-D array now shown (the selected z-plane), before the colour map; None before a run."""
        return self._images.get(self._plane)

    # --- the cells under the mouse (``MapCells``), where the tab, tests and scripts reach them ---
    def cell_at(self, view_x: float, view_y: float) -> Cell | None:
        return self.cells.cell_at(view_x, view_y)

    def cell_view_pos(self, cell: Cell) -> QPoint:
        return self.cells.view_pos(cell)

    def row_of(self, cell: Cell) -> int:
        return self.cells.row_of(cell)

    def thread_of(self, cell: Cell) -> dict[str, Any] | None:
        return self.cells.thread_of(cell)

    def hover(self, cell: Cell | None, global_pos: QPoint | None = None) -> str:
        return self.cells.hover(cell, global_pos)

    def tooltip(self) -> str:
        """The hover text now shown, "" when none."""
        return self.cells.tooltip

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
        self._pinMarker.setVisible(False)
        self._images = {}
        self._pending = None
        self.cells.hovered = None
        if recording is None:
            self._shape = None
            self._rebuild()
            return
        self._shape = recording.plane_shape()
        planes = self._shape[0]
        self._plane = min(self._plane, planes - 1)
        self._compute_values()
        with QSignalBlocker(self.zSlice):
            self.zSlice.setRange(0, planes - 1)
            self.zSlice.setValue(self._plane)
        self._show_z_controls(recording.config.rank == 3)
        self._rebuild()
        self.fit()

    def set_color_field(self, name: str) -> None:
        if name not in COLOR_FIELDS:
            raise KeyError(f"unknown colour field {name!r}")
        self._field = name
        if self.colorBy.currentText() != name:
            with QSignalBlocker(self.colorBy):
                self.colorBy.setCurrentText(name)
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
            with QSignalBlocker(self.zSlice):
                self.zSlice.setValue(z)
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
            self._pinMarker.setVisible(False)
            self.planeChanged.emit(z)

    def set_tiled(self, tiled: bool) -> None:
        if self.tiledCheck.isChecked() != tiled:
            with QSignalBlocker(self.tiledCheck):
                self.tiledCheck.setChecked(tiled)
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
        """Ask for the planes not here yet: from the session (at once for host records, later for
        device ones), or without one computed here."""
        rec = self._recording
        assert rec is not None
        missing = tuple(z for z in self._wanted_planes() if z not in self._images)
        if not missing or self._pending == (self._field, missing):
            return
        self._pending = (self._field, missing)
        self._requesting = True
        try:
            if self._session is not None:
                self._session.request_images(rec, self._field, missing)
            else:
                self.set_images(map_images(rec, self._field, missing))
        finally:
            self._requesting = False

    def set_images(self, images: MapImages) -> None:
        """Images arrive; those for another recording or field are dropped."""
        if images.recording is not self._recording or images.field != self._field:
            return
        first = not self._images
        self._pending = None
        self._take(images)
        if self._requesting:
            return  # answered at once: the caller redraws
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
            size = self.plot.vb.size()
            offsets = tile_offsets(len(shown), rows, cols, (bx, by), (size.width(), size.height()))
        else:
            shown, offsets = [self._plane], [(bx, by)]
        categorical = COLOR_FIELDS[self._field]
        for plane, origin in zip(shown, offsets, strict=True):
            if plane in self._images:  # device images may still be on their way
                self._tiles.append(self._make_tile(plane, origin, self._images[plane], categorical))
        self.colorBar.setVisible(not categorical)
        if not categorical:
            self.colorBar.setLevels(self._levels)
        self.labels.update_legend(categorical)
        self.labels.set_axis_labels()
        self.labels.set_tile_ticks(offsets if self.is_tiled() else None)
        for name, lo, hi in (("bottom", bx, bx + cols - 1), ("left", by, by + rows - 1)):
            self.plot.getAxis(name).set_bounds(lo, hi)  # no ticks on rows or columns not on the map
        self._highlight_tile()
        self._update_z_label()

    def _make_tile(
        self, plane: int, origin: tuple[float, float], values: np.ndarray, categorical: bool
    ) -> Tile:
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
        borders = BlockBorderItem(map_items.border_pen(self._palette.border, self._presentation))
        borders.setZValue(20)
        borders.set_grid(rect, *self._border_grid())
        self.plot.addItem(borders, ignoreBounds=True)
        caption = None
        if self.is_tiled():
            assert self._recording is not None
            z = self._recording.window.origin[2] + plane
            bz = self._recording.config.block.z
            # Short enough for a narrow tile; blockIdx.z and threadIdx.z in its tooltip and the z row.
            caption = pg.TextItem(f"z = {z}", color=self._palette.foreground, anchor=(0, 1))
            caption.setToolTip(f"z = {z}: blockIdx.z {z // bz}, threadIdx.z {z % bz}")
            caption.setFont(map_items.caption_font(self._presentation))
            caption.setPos(origin[0] - 0.5, origin[1] - 0.5)
            self.plot.addItem(caption)
        return Tile(plane, origin, image, text, borders, caption)

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

    def _highlight_tile(self) -> None:
        for tile in self._tiles:
            if tile.caption is not None:
                bold = tile.plane == self._plane
                tile.caption.setColor(self._palette.selection if bold else self._palette.foreground)
        self.labels.set_title()

    def is_elongated(self) -> bool:
        """True when the whole map at 1:1 would draw as a thin line in this view."""
        if self._shape is None or not self._tiles or self.is_tiled():
            return False
        view = self.plot.vb.size()
        return is_elongated(self._shape[1], self._shape[2], view.width(), view.height())

    def fit(self) -> None:
        """The first view of the map: all of it with square cells; for an elongated map (say
        262,144 × 16 threads) its start, filling the view, and "See all" for the whole."""
        if not self._tiles:
            return
        self._stretched = False
        self.plot.setAspectLocked(True)
        elongated = self.is_elongated()
        self.seeAllButton.setVisible(elongated)
        if not elongated:
            self._fit_rect(self._bounds())
            return
        assert self._shape is not None
        view = self.plot.vb.size()
        left, top = self._tiles[0].origin[0] - 0.5, self._tiles[0].origin[1] - 0.5
        rect, what = start_rect(left, top, self._shape[1], self._shape[2], view.width(), view.height())
        self.plot.vb.setRange(rect=rect, padding=0.02)
        self.seeAllButton.setToolTip(f"Showing {what}; See all stretches the whole map to the view")

    def show_all(self) -> None:
        """The whole map in the view, stretched when it is elongated (cells no longer square)."""
        if not self._tiles:
            return
        self._stretched = self.is_elongated()
        self.plot.setAspectLocked(not self._stretched)
        self._fit_rect(self._bounds())

    def is_stretched(self) -> bool:
        return self._stretched

    def _bounds(self) -> QRectF:
        """Every tile, with the tiled captions' band above the first row of tiles."""
        assert self._shape is not None
        _, rows, cols = self._shape
        rect = QRectF()
        for tile in self._tiles:
            rect = rect.united(QRectF(tile.origin[0] - 0.5, tile.origin[1] - 0.5, cols, rows))
        if self.is_tiled():
            # The captions are sized in pixels: enough rows above the first tiles to hold them
            # at the scale this view will have (b rows hold h px when b ≥ h / scale).
            h = max((t.caption.boundingRect().height() for t in self._tiles if t.caption), default=0.0)
            view = self.plot.vb.size()
            span_rows, span_cols = rect.height(), rect.width()
            need = caption_band(rows)
            if view.height() > h > 0:
                need = max(need, h * span_rows / (view.height() - h), h * span_cols / max(view.width(), 1.0))
            rect.setTop(rect.top() - need)
        return rect

    def _fit_rect(self, rect: QRectF) -> None:
        self.plot.vb.setRange(rect=rect, padding=0.02)

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
        pen.setWidth(6 if presentation else 4)
        self._selection.setPen(pen)
        self._style_pin_marker()
        if self._tiles:  # restyled as drawn: their colours need no new pass (a rebuild did)
            map_items.restyle_tiles(self._tiles, palette.border, presentation)
            self.labels.update_legend(COLOR_FIELDS[self._field])
            self.labels.set_axis_labels()
            self._highlight_tile()
        elif self._shape is not None:
            self._rebuild()

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
                self._pinMarker.setData([x + 0.5], [y + 0.5])
                self._style_pin_marker()
                self._pinMarker.setVisible(True)
                if not self.plot.vb.viewRect().contains(QPointF(x + 0.5, y + 0.5)):
                    self._centre_on(x + 0.5, y + 0.5)  # "go to" a thread that is off screen
        self.threadPinned.emit(cell)

    def _centre_on(self, x: float, y: float) -> None:
        view = self.plot.vb.viewRect()
        self.plot.vb.setRange(
            rect=QRectF(x - view.width() / 2, y - view.height() / 2, view.width(), view.height()), padding=0
        )

    def _style_pin_marker(self) -> None:
        self._pinMarker.set_style(self._palette.selection, self._presentation)

    def pin_marker(self) -> tuple[float, float, bool]:
        """(screen size in pixels, pen width, visible) of the pinned thread's ring: for tests."""
        return self._pinMarker.describe()

    def pinned(self) -> Cell | None:
        return self._pinned

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
        """The map with its axes and colour bar as PNG bytes."""
        return render_png(self.view, width)

    def export_png(self, path: str | Path, width: int = 1600) -> Path:
        """Write the map as a PNG, atomically (a failed export leaves no half-written file)."""
        payload = self.render_png(width)
        return atomic_write(path, lambda fh: fh.write(payload))
