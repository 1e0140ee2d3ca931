"""The recording window controls: the budget, where the window sits, and buttons that move it.

A launch larger than the budget still runs in full, but only threads inside the window record
(``simtviz.core.window``). This panel says which part is recorded and moves the window over the
launch; every move re-runs the launch to record the new region.
"""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QGridLayout,
    QGroupBox,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QWidget,
)

from simtviz.core.launch import LaunchConfig
from simtviz.core.window import BYTES_PER_THREAD, Window
from simtviz.qt.widgets.spins import LargeIntSpinBox

# The GUI's budget stays below 2^28 threads (≈24 GiB of records): more would not fit a laptop.
BUDGET_MAX = 1 << 28


def budget_text(threads: int) -> str:
    return f"{threads:,} threads ≈ {threads * BYTES_PER_THREAD / 2**20:,.0f} MiB of records"


def moved_origin(config: LaunchConfig, window: Window, d_rows: int, d_cols: int) -> tuple[int, int, int]:
    """The origin one window further along the map's rows (``d_rows``) or columns (``d_cols``).

    1-D maps have one row per block, so a row step moves x by whole blocks; 2-D and 3-D maps
    step y (rows) and x (columns). The result is clipped to the launch (``choose_window`` clips
    it again and snaps 1-D origins to blocks).
    """
    ox, oy, oz = window.origin
    wx, wy, _ = window.size
    ex, ey, _ = config.extent
    if config.rank == 1:
        ox = ox + d_rows * wx
        return (min(max(0, ox), max(0, ex - wx)), 0, 0)
    ox = min(max(0, ox + d_cols * wx), max(0, ex - wx))
    oy = min(max(0, oy + d_rows * wy), max(0, ey - wy))
    return (ox, oy, oz)


class RecordingWindowPanel(QGroupBox):
    """``windowPanel``: budget spin box, origin x/y/z, arrows that move the window and re-run."""

    moveRequested = Signal(object)  # (x, y, z) origin to record next
    budgetChanged = Signal(int)

    def __init__(self, budget_threads: int, parent: QWidget | None = None) -> None:
        super().__init__("Recording window", parent)
        self.setObjectName("windowPanel")
        self._config: LaunchConfig | None = None
        self._window: Window | None = None
        grid = QGridLayout(self)

        grid.addWidget(QLabel("Budget"), 0, 0)
        self.budgetSpin = QSpinBox(objectName="budgetThreads")
        self.budgetSpin.setRange(1, BUDGET_MAX)
        self.budgetSpin.setSingleStep(1 << 20)
        self.budgetSpin.setSuffix(" threads")
        self.budgetSpin.setGroupSeparatorShown(True)
        self.budgetSpin.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.budgetSpin.setValue(min(max(1, budget_threads), BUDGET_MAX))
        self.budgetSpin.setToolTip(
            "Most threads one run records. Larger launches still run in full; only the window records."
        )
        self.budgetSpin.valueChanged.connect(self._on_budget)
        grid.addWidget(self.budgetSpin, 0, 1, 1, 3)
        self.budgetNote = QLabel(budget_text(self.budgetSpin.value()), objectName="budgetNote", wordWrap=True)
        self.budgetNote.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        grid.addWidget(self.budgetNote, 1, 1, 1, 3)

        grid.addWidget(QLabel("Origin"), 2, 0)
        # Global coordinates: past int32 for a long 1-D launch (LargeIntSpinBox says how far).
        self.originSpins: list[LargeIntSpinBox] = []
        for col, axis in enumerate("XYZ", start=1):
            spin = LargeIntSpinBox(objectName=f"window{axis}")
            spin.setPrefix(f"{axis.lower()} ")
            spin.setMinimumWidth(70)
            spin.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
            spin.setToolTip(f"Global {axis.lower()} (cuda.grid(3)) where the recorded window starts")
            grid.addWidget(spin, 2, col)
            self.originSpins.append(spin)

        self.upButton = QPushButton("▲ Previous rows", objectName="windowUp")
        self.downButton = QPushButton("▼ Next rows", objectName="windowDown")
        self.leftButton = QPushButton("◀ Columns", objectName="windowLeft")
        self.rightButton = QPushButton("Columns ▶", objectName="windowRight")
        self.recordButton = QPushButton("Record this window", objectName="windowRecordButton")
        for button in (self.upButton, self.downButton, self.leftButton, self.rightButton, self.recordButton):
            # The panel follows the launch panel's width, not the buttons' words at 20 pt.
            button.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
            button.setMinimumWidth(40)
        self.upButton.clicked.connect(lambda: self._move(-1, 0))
        self.downButton.clicked.connect(lambda: self._move(1, 0))
        self.leftButton.clicked.connect(lambda: self._move(0, -1))
        self.rightButton.clicked.connect(lambda: self._move(0, 1))
        self.recordButton.clicked.connect(lambda: self.moveRequested.emit(self.origin()))
        grid.addWidget(self.upButton, 3, 0, 1, 2)
        grid.addWidget(self.downButton, 3, 2, 1, 2)
        grid.addWidget(self.leftButton, 4, 0, 1, 2)
        grid.addWidget(self.rightButton, 4, 2, 1, 2)
        grid.addWidget(self.recordButton, 5, 0, 1, 4)
        self.description = QLabel(objectName="windowDescription", wordWrap=True)
        self.description.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        grid.addWidget(self.description, 6, 0, 1, 4)
        self.description.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._update_buttons()

    # --- model -------------------------------------------------------------------------------
    def budget(self) -> int:
        return self.budgetSpin.value()

    def set_budget(self, threads: int) -> None:
        self.budgetSpin.setValue(min(max(1, threads), BUDGET_MAX))

    def origin(self) -> tuple[int, int, int]:
        x, y, z = (s.value() for s in self.originSpins)
        return x, y, z

    def set_origin(self, origin: tuple[int, int, int]) -> None:
        for spin, value in zip(self.originSpins, origin, strict=True):
            with QSignalBlocker(spin):
                spin.setValue(value)

    def reset(self) -> None:
        """A new launch configuration: record from its start again."""
        self.set_origin((0, 0, 0))
        self._config = self._window = None
        self.description.setText("")
        self._update_buttons()

    def show_window(self, config: LaunchConfig, window: Window) -> None:
        """What the last run recorded: the spin boxes follow the window actually used."""
        self._config, self._window = config, window
        self.set_origin(window.origin)
        self.description.setText(window.describe(config))
        self._update_buttons()

    # --- reactions ---------------------------------------------------------------------------
    def _on_budget(self, value: int) -> None:
        self.budgetNote.setText(budget_text(value))
        self.budgetChanged.emit(value)

    def _move(self, d_rows: int, d_cols: int) -> None:
        if self._config is None or self._window is None:
            return
        origin = moved_origin(self._config, self._window, d_rows, d_cols)
        self.set_origin(origin)
        self.moveRequested.emit(origin)

    def _update_buttons(self) -> None:
        config, window = self._config, self._window
        partial = config is not None and window is not None and not window.covers(config)
        for button in (self.upButton, self.downButton, self.leftButton, self.rightButton):
            button.setEnabled(False)
        if not partial:
            return
        assert config is not None and window is not None
        for button, d_rows, d_cols in (
            (self.upButton, -1, 0),
            (self.downButton, 1, 0),
            (self.leftButton, 0, -1),
            (self.rightButton, 0, 1),
        ):
            button.setEnabled(moved_origin(config, window, d_rows, d_cols) != window.origin)
