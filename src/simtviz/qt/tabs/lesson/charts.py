"""The lesson's two drawings, from a probe's result: the §2.2.4 timeline and the §2.2.2.1 JIT bars.

Each is a pyqtgraph plot drawn only from the numbers in the result. On the simulator the timeline
draws what really happened there (the kernel ran inside the launch call) and says that no GPU
ran; nothing is drawn for a value the probe could not measure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QWidget

HOST_ROW, GPU_ROW = 1.0, 0.0
LAUNCH_COLOUR = "#1f77b4"  # the launch call, on the host
WAIT_COLOUR = "#ff7f0e"  # synchronize() waiting, on the host
KERNEL_COLOUR = "#2ca02c"  # the kernel, on the GPU
SECOND_COLOUR = "#8c8c8c"


def _ms(value: float) -> str:
    # 0.06 ms, 50.08 ms, 622 ms: the digits that were measured, no more.
    return f"{value:.2g} ms" if value < 1 else f"{value:.2f} ms" if value < 100 else f"{value:,.0f} ms"


def _new_plot(name: str, background: QColor, foreground: QColor, point_size: int) -> pg.PlotWidget:
    plot = pg.PlotWidget()
    plot.setObjectName(name)  # PlotWidget hands its keyword arguments to its PlotItem
    plot.setBackground(background)
    font = QFont()
    font.setPointSize(point_size)
    for axis in ("left", "bottom"):
        item = plot.getAxis(axis)
        item.setTextPen(foreground)
        item.setPen(foreground)
        item.setStyle(tickFont=font)
        item.enableAutoSIPrefix(False)
    plot.getPlotItem().getViewBox().setMouseEnabled(x=False, y=False)
    plot.getPlotItem().hideButtons()
    plot.setMenuEnabled(False)
    plot.setFixedHeight(int(point_size * 24))
    return plot


def _text(
    plot: pg.PlotWidget,
    text: str,
    x: float,
    y: float,
    colour: Any,
    size: int,
    anchor: tuple[float, float] = (0, 0.5),
) -> None:
    item = pg.TextItem(text, color=colour, anchor=anchor)
    font = QFont()
    font.setPointSize(size)
    item.setFont(font)
    item.setPos(x, y)
    plot.addItem(item)


def _title(plot: pg.PlotWidget, text: str, foreground: QColor, size: int) -> None:
    plot.setTitle(text, color=foreground.name(), size=f"{size + 1}pt")


def _label(plot: pg.PlotWidget, axis: str, text: str, foreground: QColor, size: int) -> None:
    plot.setLabel(axis, text, **{"color": foreground.name(), "font-size": f"{size}pt"})


def timeline_plot(
    result: Mapping[str, Any],
    background: QColor | None = None,
    foreground: QColor | None = None,
    point_size: int = 11,
) -> pg.PlotWidget:
    """``lessonTimeline``: the host thread and the GPU against time since the launch call."""
    bg, fg = background or QColor("#ffffff"), foreground or QColor("#111111")
    plot = _new_plot("lessonTimeline", bg, fg, point_size)
    plot.getAxis("left").setTicks([[(HOST_ROW, "host thread"), (GPU_ROW, "GPU")]])
    plot.getAxis("left").setWidth(point_size * 9)
    _label(plot, "bottom", "time since the launch call (ms)", fg, point_size)
    small = max(8, point_size - 1)
    gpu = result.get("launch_return_ms") is not None and result.get("sync_return_ms") is not None
    if gpu:
        launch, sync = float(result["launch_return_ms"]), float(result["sync_return_ms"])
        kernel = result.get("kernel_gpu_ms")
        _title(plot, "A launch returns at once; synchronize() waits for the kernel", fg, point_size)
        x0, x1, ys, brushes = (
            [0.0, launch],
            [launch, sync],
            [HOST_ROW, HOST_ROW],
            [LAUNCH_COLOUR, WAIT_COLOUR],
        )
        if kernel is not None:
            # The GPU was idle: it starts the kernel about when the host records the start event (t = 0).
            x0.append(0.0)
            x1.append(float(kernel))
            ys.append(GPU_ROW)
            brushes.append(KERNEL_COLOUR)
        plot.addItem(pg.BarGraphItem(x0=x0, x1=x1, y=ys, height=0.5, brushes=brushes, pen=None))
        end = max(sync, float(kernel or 0.0))
        for x in (launch, sync):
            plot.addItem(pg.InfiniteLine(x, angle=90, pen=pg.mkPen(fg, style=Qt.PenStyle.DashLine)))
        _text(plot, f"launch returns after {_ms(launch)}", launch, HOST_ROW + 0.45, LAUNCH_COLOUR, small)
        _text(plot, f"synchronize() waits until {_ms(sync)}", launch, HOST_ROW - 0.38, WAIT_COLOUR, small)
        if kernel is not None:
            _text(
                plot,
                f"kernel runs {_ms(float(kernel))} (GPU events)",
                0.0,
                GPU_ROW - 0.42,
                KERNEL_COLOUR,
                small,
            )
        plot.setXRange(0, end * 1.02, padding=0)
    else:
        launch = float(result.get("sim_launch_return_ms") or 0.0)
        sync = float(result.get("sim_sync_return_ms") or launch)
        _title(plot, "CPU simulator: the kernel runs inside the launch call", fg, point_size)
        bars = {"x0": [0.0, launch], "x1": [launch, sync], "y": [HOST_ROW] * 2}
        plot.addItem(pg.BarGraphItem(**bars, height=0.5, brushes=[LAUNCH_COLOUR, WAIT_COLOUR], pen=None))
        words = f"launch call returns after {_ms(launch)}: the kernel had already run"
        _text(plot, words, 0.0, HOST_ROW + 0.45, LAUNCH_COLOUR, small)
        _text(plot, "no GPU: nothing runs asynchronously, no GPU time to show", 0.0, GPU_ROW, fg, small)
        plot.setXRange(0, max(sync, 1e-3) * 1.02, padding=0)
    plot.setYRange(GPU_ROW - 0.7, HOST_ROW + 0.7, padding=0)
    return plot


def jit_plot(
    result: Mapping[str, Any],
    background: QColor | None = None,
    foreground: QColor | None = None,
    point_size: int = 11,
) -> pg.PlotWidget:
    """``lessonJitChart``: the first launch (numba compiles) beside the second."""
    bg, fg = background or QColor("#ffffff"), foreground or QColor("#111111")
    plot = _new_plot("lessonJitChart", bg, fg, point_size)
    if result.get("first_launch_ms") is not None:
        first, second = float(result["first_launch_ms"]), float(result["second_launch_ms"])
        _title(plot, "Launch call time: the first launch compiles the kernel", fg, point_size)
        _label(plot, "left", "host time of the launch call (ms)", fg, point_size)
        ticks = [(0, "1st launch (JIT compile)"), (1, "2nd launch")]
    else:
        first = float(result.get("first_sim_launch_ms") or 0.0)
        second = float(result.get("second_sim_launch_ms") or 0.0)
        _title(plot, "CPU simulator: host wall time, nothing compiled", fg, point_size)
        _label(plot, "left", "simulator wall time (ms)", fg, point_size)
        ticks = [(0, "1st launch"), (1, "2nd launch")]
    plot.addItem(
        pg.BarGraphItem(x=[0, 1], height=[first, second], width=0.55, brushes=[LAUNCH_COLOUR, SECOND_COLOUR])
    )
    plot.getAxis("bottom").setTicks([ticks])
    for x, value in ((0, first), (1, second)):
        _text(plot, _ms(value), x, value, fg, point_size, anchor=(0.5, 1.0))
    top = max(first, second, 1e-3)
    plot.setYRange(0, top * 1.2, padding=0)
    plot.setXRange(-0.6, 1.6, padding=0)
    return plot


CHARTS = {"async_timeline": timeline_plot, "jit_timing": jit_plot}


def chart_for(
    probe: str, result: Mapping[str, Any], background: QColor, foreground: QColor, point_size: int
) -> pg.PlotWidget | None:
    """The drawing for ``probe``'s result, if it has one and the probe did not fail."""
    make = CHARTS.get(probe)
    if make is None or result.get("error"):
        return None
    return make(result, background, foreground, point_size)


def widget_png(widget: QWidget) -> bytes:
    """``widget`` as it looks now, as PNG bytes (for the handout and screenshots)."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not widget.grab().save(buffer, "PNG"):
        raise OSError("Qt could not encode the figure as PNG")
    buffer.close()
    return bytes(data.data())
