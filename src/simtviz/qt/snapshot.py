"""``simtviz snapshot``: the index map rendered offscreen to a PNG, for slides and handouts.

The same ``IndexMap`` the app shows draws a recording, pyqtgraph's exporter writes the PNG.
The command line part is ``simtviz.cli.snapshot``; errors are raised as simtviz exceptions.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from simtviz.core.errors import SimtvizError
from simtviz.core.recording import COLOR_FIELDS, Recording

SNAPSHOT_SIZE = (1600, 1000)  # pixels: sharp on a 1080p projector, readable from the back


def render_snapshot(
    recording: Recording,
    color: str,
    out: str | Path,
    z: int = 0,
    size: tuple[int, int] = SNAPSHOT_SIZE,
    theme: str = "light",
) -> Path:
    """Draw ``recording`` coloured by ``color`` (z-plane ``z``) and write it to ``out`` as PNG."""
    if color not in COLOR_FIELDS:
        raise SimtvizError(f"unknown colour field {color!r}; choose one of: {', '.join(COLOR_FIELDS)}")
    planes = recording.plane_shape()[0]
    if not 0 <= z < planes:
        raise SimtvizError(f"--z {z} is outside the launch's z-planes 0..{planes - 1}")
    if "PySide6.QtWidgets" not in sys.modules or _no_app():
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from simtviz.qt.map import IndexMap
    from simtviz.qt.theme import PALETTES

    app: Any = QApplication.instance() or QApplication(["simtviz-snapshot"])
    _, rows, cols = recording.plane_shape()
    # Height follows the map's aspect so the image is not mostly margin (axes and title: ~170 px).
    size = (size[0], int(min(size[1], max(480, (size[0] - 220) * rows / max(cols, 1) + 170))))
    view = IndexMap()
    try:
        view.apply_style(PALETTES[theme], presentation=True)
        view.set_color_field(color)
        # No session here: the map computes the plane it shows on this thread. The plane is set
        # first so that only that plane of a device record crosses to the host.
        view.set_plane(z)
        view.set_recording(recording)
        view.resize(*size)
        view.view.resize(*size)
        view.show()
        app.processEvents()
        view.fit()
        app.processEvents()
        return view.export_png(out, width=size[0])
    finally:
        view.close()
        view.deleteLater()
        app.processEvents()


def _no_app() -> bool:
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() is None
