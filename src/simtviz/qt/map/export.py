"""The index map as a PNG, with its axes and colour bar (pyqtgraph's ImageExporter)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QBuffer, QByteArray, QIODevice


def render_png(view: pg.GraphicsLayoutWidget, width: int = 1600) -> bytes:
    """PNG bytes of everything in ``view``'s scene, ``width`` pixels wide."""
    from pyqtgraph.exporters import ImageExporter

    exporter = ImageExporter(view.scene())
    exporter.parameters()["width"] = int(width)
    image = exporter.export(toBytes=True)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise OSError("Qt could not encode the map as PNG")
    buffer.close()
    return bytes(data.data())
