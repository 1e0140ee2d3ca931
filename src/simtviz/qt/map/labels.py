"""The index map's words: its title (launch, field, backend), axis labels, tiled ticks and legend.

``MapLabels`` is a part of ``IndexMap`` (``indexMap.labels``), made and owned by it: it reads the
map's recording, images, palette and mode and writes them onto the map's pyqtgraph items.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from simtviz.core.formulas import backend_words
from simtviz.qt.map.framing import legend_html, tile_ticks

if TYPE_CHECKING:
    from simtviz.qt.map.parts import MapState


class MapLabels:
    """Title, axis labels, tile ticks and legend of one index map."""

    def __init__(self, index_map: MapState) -> None:
        self._map = index_map

    def set_axis_labels(self) -> None:
        m = self._map
        rec = m.recording
        if rec is None:
            return
        size = "16pt" if m._presentation else "12pt"
        style = {"color": m._palette.foreground, "font-size": size}
        if rec.config.rank == 1:
            m.plot.setLabel("left", "blockIdx.x (one row per block)", **style)
            m.plot.setLabel("bottom", "threadIdx.x", **style)
        else:
            n = rec.config.rank  # a 3-D launch's plane is laid out by cuda.grid(3)'s x and y
            if m.is_tiled():  # short on the side: a tiled map is often wide and low
                m.plot.setLabel("left", "y", **style)
                m.plot.setLabel("bottom", f"each tile: x = cuda.grid({n})[0], y = cuda.grid({n})[1]", **style)
            else:
                m.plot.setLabel("left", f"y = cuda.grid({n})[1]", **style)
                m.plot.setLabel("bottom", f"x = cuda.grid({n})[0]", **style)
        self.set_title()

    def set_tile_ticks(self, offsets: list[tuple[float, float]] | None) -> None:
        """Tiled z-planes: every tile's own x and y (``tile_ticks``); None: pyqtgraph's own."""
        m = self._map
        bottom, left = m.plot.getAxis("bottom"), m.plot.getAxis("left")
        if offsets is None or m.recording is None or m._shape is None:
            bottom.setTicks(None)
            left.setTicks(None)
            return
        ox, oy, _ = m.recording.window.origin
        x_ticks, y_ticks = tile_ticks(offsets, m._shape[1], m._shape[2], (ox, oy))
        bottom.setTicks([x_ticks, []])
        left.setTicks([y_ticks, []])

    def title(self) -> str:
        m = self._map
        rec = m.recording
        assert rec is not None
        title = f"{rec.config.launch_line('kernel', None)} — {m.color_field()}"
        if rec.config.rank == 3 and not m.is_tiled():
            title += f" — z = {rec.window.origin[2] + m.plane()}"
        # Which backend ran, on the map itself: it goes into every exported PNG and snapshot.
        return f"{title}<br>{backend_words(rec.backend)}"

    def set_title(self) -> None:
        m = self._map
        if m.recording is not None:
            m.plot.setTitle(
                self.title(), color=m._palette.foreground, size="14pt" if m._presentation else "11pt"
            )
            # pyqtgraph fixes the title row at 30 px: room for both lines, or the map covers the second.
            height = math.ceil(m.plot.titleLabel.item.boundingRect().height()) + 4
            m.plot.titleLabel.setMaximumHeight(height)
            m.plot.layout.setRowFixedHeight(0, height)

    def update_legend(self, categorical: bool) -> None:
        """For ids: a colour swatch per id shown, then how colours repeat (``legend_html``)."""
        m = self._map
        images = m._images.values()
        known = any((img >= 0).any() for img in images if img.size)
        m.legend.setVisible(categorical and known)
        if categorical and known:
            size = "15pt" if m._presentation else "10pt"
            top = max(int(img.max()) for img in images if img.size)
            html = legend_html(m.color_field(), m._levels, top)
            m.legend.setText(html, color=m._palette.foreground, size=size)
