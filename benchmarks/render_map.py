"""Index map rendering offscreen: time to show a recording of 2^16, 2^20, 2^24 threads and write a PNG.

No simulator run: the record arrays are what the oracle says every thread records (what a GPU
run hands the map), so only drawing is timed. Usage:

    QT_QPA_PLATFORM=offscreen python benchmarks/render_map.py [--out DIR] [--repeat N]

Columns: ``set`` — IndexMap.set_recording (colour values, colours, items); ``paint`` — one
offscreen paint of the widget at 1600 × 1000 (downsampled image, visible borders);
``png`` — render_png (pyqtgraph's exporter at 1600 px wide, PNG encoding); ``zoom`` — a paint
zoomed into a 64 × 64-cell corner; ``lines`` — block-border lines drawn fitted / zoomed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np

from simtviz.core.launch import LaunchConfig
from simtviz.core.oracle import expected_field
from simtviz.core.recording import Recording
from simtviz.core.window import Window

# (label, grid, block): 2-D maps of 2^16, 2^20, 2^24 threads and a 1-D map of 2^24 (16384 rows).
CASES = [
    ("2^16 2-D", (16, 16, 1), (16, 16, 1)),
    ("2^20 2-D", (64, 64, 1), (16, 16, 1)),
    ("2^24 2-D", (256, 256, 1), (16, 16, 1)),
    ("2^24 1-D", (16384, 1, 1), (1024, 1, 1)),
]


def fake_recording(grid: tuple[int, int, int], block: tuple[int, int, int]) -> Recording:
    """A recording of the whole launch with the fields the default colouring reads, from the oracle."""
    config = LaunchConfig.of(grid, block)
    window = Window.full(config)
    fields = {name: expected_field(name, config, window) for name in ("grid3", "blockIdx", "threadIdx")}
    return Recording(config, window, fields, "gpu:oracle")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="also write each case's PNG here")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--color", default="global linear index")
    args = parser.parse_args()

    from PySide6.QtCore import QRectF
    from PySide6.QtWidgets import QApplication

    from simtviz.qt.map import IndexMap

    app = QApplication.instance() or QApplication([])
    view = IndexMap()
    view.resize(1600, 1000)
    view.set_color_field(args.color)
    view.show()
    app.processEvents()
    print(
        f"{'map':<10} {'threads':>11} {'image':>12} {'set ms':>8} {'paint ms':>9} {'png ms':>8} "
        f"{'zoom ms':>8} {'lines':>10}"
    )
    for label, grid, block in CASES:
        rec = fake_recording(grid, block)
        sets, paints, pngs, zooms = [], [], [], []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            view.set_recording(rec)
            t1 = time.perf_counter()
            view.view.grab()
            t2 = time.perf_counter()
            png = view.render_png(1600)
            t3 = time.perf_counter()
            fitted = view._tiles[0].borders.last_line_count
            view.plot.vb.setRange(QRectF(-0.5, -0.5, 64, 64), padding=0)
            t4 = time.perf_counter()
            view.view.grab()
            t5 = time.perf_counter()
            zoomed = view._tiles[0].borders.last_line_count
            sets.append(t1 - t0)
            paints.append(t2 - t1)
            pngs.append(t3 - t2)
            zooms.append(t5 - t4)
        shape = view.current_image().shape
        print(
            f"{label:<10} {rec.threads:>11,} {f'{shape[0]}×{shape[1]}':>12} "
            f"{statistics.median(sets) * 1000:>8.0f} {statistics.median(paints) * 1000:>9.0f} "
            f"{statistics.median(pngs) * 1000:>8.0f} {statistics.median(zooms) * 1000:>8.0f} "
            f"{f'{fitted}/{zoomed}':>10}"
        )
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            name = label.replace("^", "").replace(" ", "_")
            (args.out / f"{name}.png").write_bytes(png)
            view.view.grab().save(str(args.out / f"{name}_zoomed.png"))
        view.set_recording(None)
        del rec
        app.processEvents()
    print(f"(median of {args.repeat}; {os.cpu_count()} CPUs, offscreen Qt, {np.__name__} {np.__version__})")


if __name__ == "__main__":
    main()
