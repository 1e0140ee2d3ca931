"""The Your kernel tab's settings, under the editor: the launch, the kernel's parameters, the
check, the budget, the time limit and the window of logged blocks (``kernelSettings``).

The tab keeps each input under its own name too (``tab.spins``, ``tab.args``, ``tab.budget``…:
docs/CONTRACT.md's objectNames, the settings file, tests); this panel builds and lays them out
and reads the launch and the window back.
"""

from __future__ import annotations

import math

from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QGridLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from simtviz.core.trace.model import DEFAULT_BUDGET, DEFAULT_TIME_LIMIT_S
from simtviz.qt.tabs.kernel.run import ArgsTable
from simtviz.qt.widgets.spins import INT32_MAX

WINDOW_HELP = (
    "Window: only the threads of these blocks (numbered x, then y, then z) are logged; every "
    "thread still runs. Blocks 'all' = to the last block."
)


def _block_spin(name: str, tip: str) -> QSpinBox:
    # A QSpinBox, as docs/CONTRACT.md names it: 0 … 2^31 − 1. Linear block ids of a launch can
    # go further ((2^31 − 1) × 65,535²); the help under the boxes says so when they do.
    spin = QSpinBox(objectName=name)
    spin.setRange(0, INT32_MAX)
    spin.setToolTip(tip)
    return spin


def window_reach(blocks: int) -> str:
    """What the window boxes cannot reach in a launch of ``blocks`` blocks, in words; "" when
    they reach every block (ids 0 … ``INT32_MAX``, so up to 2^31 blocks)."""
    if blocks <= INT32_MAX + 1:
        return ""
    return (
        f"This launch has {blocks:,} blocks (0–{blocks - 1:,}), more than these boxes reach: "
        f"a window can start at block {INT32_MAX:,} at the latest and take {INT32_MAX:,} blocks "
        "or 'all' (to the last block). For a window further on: simtviz trace --window FIRST:COUNT."
    )


class KernelSettings(QWidget):
    """``kernelSettings``: what a traced Run launches, and how much of it is logged."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("kernelSettings")
        launch = QGroupBox("Launch")
        grid = QGridLayout(launch)
        self.spins: dict[str, QSpinBox] = {}
        for col, axis in enumerate("XYZ"):
            grid.addWidget(QLabel(axis), 0, col + 1)
            for row, what in enumerate(("Grid", "Block")):
                spin = QSpinBox(objectName=f"kernel{what}{axis}")
                spin.setRange(0, INT32_MAX)
                spin.setValue(1)
                spin.setMinimumWidth(40)
                self.spins[f"{what.lower()}{axis}"] = spin
                if what == "Grid":
                    spin.valueChanged.connect(self._say_window_reach)
                grid.addWidget(spin, row + 1, col + 1)
        grid.addWidget(QLabel("grid (blocks)"), 1, 0)
        grid.addWidget(QLabel("block (threads)"), 2, 0)
        launch.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

        self.args = ArgsTable()
        self.args.setMinimumHeight(120)  # the header and a few parameters, not 1.5 rows
        self.refreshButton = QPushButton("Read parameters from the code", objectName="kernelRefreshArgs")
        self.check = QLineEdit(objectName="kernelCheck")
        self.check.setPlaceholderText("optional NumPy check over the final arrays, e.g. C == A + B")
        self.budget = QSpinBox(objectName="kernelBudget")
        self.budget.setRange(1, INT32_MAX)
        self.budget.setValue(DEFAULT_BUDGET)
        self.budget.setToolTip("most accesses logged; more are counted but not recorded")
        self.timeLimit = QDoubleSpinBox(objectName="kernelTimeLimit")
        self.timeLimit.setRange(0.5, 3600)
        self.timeLimit.setValue(DEFAULT_TIME_LIMIT_S)
        self.timeLimit.setSuffix(" s")
        self.windowFirst = _block_spin("kernelWindowFirst", "the window's first block (linear id, from 0)")
        self.windowBlocks = _block_spin(
            "kernelWindowBlocks", "how many blocks the window takes ('all': through the last block)"
        )
        self.windowBlocks.setSpecialValueText("all")
        # A grid, not a row: every input keeps its place whatever is typed.
        opts = QGridLayout()
        opts.addWidget(QLabel("Budget (accesses)"), 0, 0)
        opts.addWidget(self.budget, 0, 1)
        opts.addWidget(QLabel("Time limit"), 0, 2)
        opts.addWidget(self.timeLimit, 0, 3)
        opts.addWidget(QLabel("Window: first block"), 1, 0)
        opts.addWidget(self.windowFirst, 1, 1)
        opts.addWidget(QLabel("blocks"), 1, 2)
        opts.addWidget(self.windowBlocks, 1, 3)
        self.windowHelp = window_help = QLabel(WINDOW_HELP, objectName="kernelWindowHelp")
        window_help.setWordWrap(True)
        window_help.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        opts.addWidget(window_help, 2, 0, 1, 4)
        note = QLabel(
            "Your own code, run on your machine: opening a file never runs it; only Run does, "
            "in a separate process that is stopped at the time limit."
        )
        note.setWordWrap(True)
        note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 4, 0)
        layout.addWidget(launch)
        layout.addWidget(QLabel("Parameters"))
        layout.addWidget(self.args, 1)
        layout.addWidget(self.refreshButton)
        layout.addWidget(self.check)
        layout.addLayout(opts)
        layout.addWidget(note)

    def grid(self) -> tuple[int, int, int]:
        x, y, z = (self.spins[f"grid{a}"].value() for a in "XYZ")
        return x, y, z

    def block(self) -> tuple[int, int, int]:
        x, y, z = (self.spins[f"block{a}"].value() for a in "XYZ")
        return x, y, z

    def set_dims(self, grid: str, block: str, key: str = "") -> None:
        """The launch from its saved text (``"4,1,1"``); ValueError names ``key`` when a value
        is out of range."""
        for what, text in (("grid", grid), ("block", block)):
            values = [int(v) for v in text.split(",")] + [1, 1, 1]
            for axis, v in zip("XYZ", values, strict=False):
                if not 0 <= v <= INT32_MAX:
                    raise ValueError(f"{key}{what}={text} is out of range")
                self.spins[f"{what}{axis}"].setValue(v)

    def _say_window_reach(self) -> None:
        """The help under the window boxes, with what they cannot reach in this launch."""
        reach = window_reach(math.prod(self.grid()))
        self.windowHelp.setText(f"{WINDOW_HELP} {reach}" if reach else WINDOW_HELP)

    def window_inputs(self) -> tuple[int, int]:
        """(first block, blocks) as typed; blocks 0 means through the last block."""
        return self.windowFirst.value(), self.windowBlocks.value()

    def set_window(self, first: int = 0, blocks: int = 0) -> None:
        """The window's inputs; the defaults are the whole launch. ValueError (in words) for a
        value the boxes cannot hold: never a silently different window."""
        for what, v in (("first block", first), ("number of blocks", blocks)):
            if not 0 <= v <= INT32_MAX:
                raise ValueError(
                    f"the window's {what} {v:,} is past what the boxes hold (0 to {INT32_MAX:,}); "
                    "for a window further on: simtviz trace --window FIRST:COUNT"
                )
        self.windowFirst.setValue(first)
        self.windowBlocks.setValue(blocks)
