"""The thread inspector: what the pinned thread recorded, and the index formulas worked out with it."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QTextBrowser, QVBoxLayout, QWidget

from simtviz.core.launch import WARP_SIZE, LaunchConfig
from simtviz.core.recording import Recording


def _check(value: int, recorded: int, what: str) -> str:
    if value == recorded:
        return f"  ✓ {what}"
    return f"  ✗ but {what} is {recorded}"


def formula_lines(config: LaunchConfig, t: dict[str, Any]) -> list[str]:
    """The formulas of the chapter with this thread's numbers, each checked against what it recorded.

    ``t`` is ``Recording.thread_at(row)``: threadIdx, blockIdx, grid1, grid2, grid3, laneid, warp.
    """
    tx, ty, tz = t["threadIdx"]
    bx, by, bz = t["blockIdx"]
    dx, dy, dz = config.block.as_tuple()
    gx, gy, _gz = config.grid.as_tuple()
    rank = config.rank
    lines: list[str] = []
    x = tx + bx * dx
    if rank == 1:
        lines.append(
            f"idx = threadIdx.x + blockIdx.x * blockDim.x = {tx} + {bx} × {dx} = {x}"
            + _check(x, t["grid1"], "= cuda.grid(1)")
        )
    else:
        y = ty + by * dy
        lines.append(
            f"x = threadIdx.x + blockIdx.x * blockDim.x = {tx} + {bx} × {dx} = {x}"
            + _check(x, t["grid3"][0], "as recorded")
        )
        lines.append(
            f"y = threadIdx.y + blockIdx.y * blockDim.y = {ty} + {by} × {dy} = {y}"
            + _check(y, t["grid3"][1], "as recorded")
        )
        width = gx * dx
        if rank == 2:
            linear = x + y * width
            lines.append(
                f"global linear index = x + y * (gridDim.x * blockDim.x) = {x} + {y} × {width} = {linear}"
            )
        else:
            z = tz + bz * dz
            lines.append(
                f"z = threadIdx.z + blockIdx.z * blockDim.z = {tz} + {bz} × {dz} = {z}"
                + _check(z, t["grid3"][2], "as recorded")
            )
            height = gy * dy
            linear = x + y * width + z * width * height
            lines.append(
                f"global linear index = x + y * W + z * W * H (W = {width}, H = {height})"
                f" = {x} + {y} × {width} + {z} × {width * height} = {linear}"
            )
        lines.append(f"cuda.grid(1) = threadIdx.x + blockIdx.x * blockDim.x = {x} (x only)")
    tid = tx + ty * dx + tz * dx * dy
    if rank == 1:
        lines.append(f"thread id in block = threadIdx.x = {tid}")
    else:
        lines.append(
            "thread id in block = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x "
            f"* blockDim.y = {tx} + {ty} × {dx} + {tz} × {dx * dy} = {tid}"
        )
    lines.append(
        f"warp = thread id // {WARP_SIZE} = {tid} // {WARP_SIZE} = {tid // WARP_SIZE}"
        + _check(tid // WARP_SIZE, t["warp"], "as recorded")
    )
    lines.append(
        f"lane = thread id % {WARP_SIZE} = {tid} % {WARP_SIZE} = {tid % WARP_SIZE}"
        + _check(tid % WARP_SIZE, t["laneid"], "= cuda.laneid")
    )
    block_id = bx + by * gx + bz * gx * gy
    if rank > 1:
        lines.append(
            "block linear id = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y"
            f" = {bx} + {by} × {gx} + {bz} × {gx * gy} = {block_id}"
        )
    return lines


def value_lines(recording: Recording, t: dict[str, Any]) -> list[tuple[str, str]]:
    config = recording.config
    hw = recording.has_hardware_fields
    return [
        ("threadIdx", str(t["threadIdx"])),
        ("blockIdx", str(t["blockIdx"])),
        ("blockDim", str(config.block)),
        ("gridDim", str(config.grid)),
        ("cuda.grid(1)", str(t["grid1"])),
        ("cuda.grid(2)", str(t["grid2"])),
        ("cuda.grid(3)", str(t["grid3"])),
        ("lane (cuda.laneid)", str(t["laneid"])),
        ("warp", str(t["warp"])),
        ("SM (%smid)", str(t["smid"]) if hw else "unknown in the simulator"),
        ("start (%globaltimer)", f"{t['t_ns']:,} ns" if hw else "unknown in the simulator"),
    ]


def _formula_html(line: str) -> str:
    """A formula on one line and its numbers on the next: easier to read off a projector."""
    parts = line.split(" = ")
    symbolic = " = ".join(parts[:2])
    worked = " = ".join(parts[2:])
    body = html.escape(symbolic) + (f"<br>&nbsp;&nbsp;= {html.escape(worked)}" if worked else "")
    return f"<p style='font-family: monospace; margin-top: 0; margin-bottom: 8px'>{body}</p>"


class ThreadInspector(QWidget):
    """``threadInspector``: shows one thread; empty until a cell is clicked."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("threadInspector")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.heading = QLabel("<b>Thread inspector</b>", objectName="inspectorHeading")
        layout.addWidget(self.heading)
        self.browser = QTextBrowser(objectName="inspectorText")
        self.browser.setOpenLinks(False)
        self.browser.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        layout.addWidget(self.browser)
        self._row: int | None = None
        self.clear()

    def set_point_size(self, size: int) -> None:
        """Rich text keeps its own sizes: set the document's default font to follow the window's."""
        font = self.browser.document().defaultFont()
        font.setPointSize(size)
        self.browser.document().setDefaultFont(font)

    def show_fetching(self, row: int, where: str = "") -> None:
        """A device recording's thread is on its way from the GPU."""
        self._row = row
        self.browser.setHtml(f"<p>{html.escape(where)}</p><p>Fetching this thread's record …</p>")

    def clear(self) -> None:
        self._row = None
        self.browser.setHtml("<p>Click a cell of the map to pin its thread here.</p>")

    @property
    def row(self) -> int | None:
        return self._row

    def text(self) -> str:
        """Plain text now shown (what tests and screen readers see)."""
        return self.browser.toPlainText()

    def show_thread(
        self, recording: Recording, row: int, where: str = "", thread: dict[str, Any] | None = None
    ) -> None:
        """Show ``thread`` (``recording.thread_at(row)``, read here when not given: host recordings)."""
        self._row = row
        t = thread if thread is not None else recording.thread_at(row)
        table = "".join(
            f"<tr><td style='padding-right:12px'><b>{html.escape(k)}</b></td><td>{html.escape(v)}</td></tr>"
            for k, v in value_lines(recording, t)
        )
        formulas = "".join(_formula_html(line) for line in formula_lines(recording.config, t))
        self.browser.setHtml(
            f"<p>{html.escape(where)}</p><table>{table}</table><p><b>Worked out</b></p>{formulas}"
        )
