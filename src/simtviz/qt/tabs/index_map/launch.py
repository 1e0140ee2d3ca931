"""The launch panel: grid and block spin boxes, presets, live totals and warnings, the Python code."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QGroupBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from simtviz.backends.base import DEVICE_WORDS, BackendInfo, BackendKind
from simtviz.core.estimates import estimate_seconds, format_duration, max_threads_unasked
from simtviz.core.formulas import launch_code, totals_text
from simtviz.core.launch import Dim3, LaunchConfig
from simtviz.core.limits import DeviceLimits, validate
from simtviz.qt.session import RunSession
from simtviz.qt.widgets.spins import INT32_MAX as SPIN_MAX
from simtviz.resources import presets

# CUDA's own maximum for any dimension; the spin boxes accept every value up to it, so an invalid
# launch can be typed in and tried (the driver's error is part of the lesson).
CUSTOM = "Custom"
RUN_TIP = "Launch the instrumented kernel (Ctrl+R or F5)"


class LaunchPanel(QWidget):
    """Edits one ``LaunchConfig``; emits ``configChanged`` on every edit and ``runRequested``."""

    configChanged = Signal(object)  # LaunchConfig
    runRequested = Signal()

    def __init__(self, session: RunSession | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("launchPanel")
        self._session = session
        self._limits = DeviceLimits()
        self._backend_kind = "sim"
        self._presets = presets()

        layout = QVBoxLayout(self)

        self.presetCombo = QComboBox(objectName="presetCombo")
        self.presetCombo.addItem(CUSTOM)
        for preset in self._presets:
            self.presetCombo.addItem(preset["name"])
        self.presetCombo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.presetCombo.setMinimumContentsLength(8)
        self.presetCombo.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        # The note goes below the inputs: above them, its coming and going moved every spin box
        # under the cursor (a click meant for gridDim.y landed on blockDim.y).
        self.presetNote = QLabel(objectName="presetNote", wordWrap=True)
        self.presetNote.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        layout.addWidget(QLabel("Preset"))
        layout.addWidget(self.presetCombo)

        dims = QGroupBox("kernel[grid, block]")
        grid = QGridLayout(dims)
        self.spins: dict[str, QSpinBox] = {}
        for col, axis in enumerate("xyz", start=1):
            grid.addWidget(QLabel(axis, alignment=Qt.AlignmentFlag.AlignCenter), 0, col)
        for row, (what, title) in enumerate((("grid", "gridDim"), ("block", "blockDim")), start=1):
            grid.addWidget(QLabel(title), row, 0)
            for col, axis in enumerate("xyz", start=1):
                spin = QSpinBox(objectName=f"{what}{axis.upper()}")
                spin.setRange(0, SPIN_MAX)
                spin.setValue(1)
                spin.setAccelerated(True)
                # Sized to the panel, not to the 10 digits of the maximum: three must fit side by side.
                spin.setMinimumWidth(60)
                spin.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
                spin.setToolTip(f"{title}.{axis}: 0 … {SPIN_MAX:,}; invalid values can be tried")
                spin.valueChanged.connect(self._on_edited)
                grid.addWidget(spin, row, col)
                self.spins[f"{what}{axis.upper()}"] = spin
        layout.addWidget(dims)

        self.runButton = QPushButton("Run", objectName="runButton")
        self.runButton.setToolTip(RUN_TIP)
        self.runButton.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.runButton.clicked.connect(self.runRequested)
        layout.addWidget(self.runButton)

        # Below the inputs, wrapped to the panel's width: they may grow and shrink while typing
        # without moving (or widening past the screen) anything above them.
        self.totals = QLabel(objectName="launchTotals", textFormat=Qt.TextFormat.RichText, wordWrap=True)
        self.warnings = QLabel(objectName="launchWarnings", wordWrap=True, textFormat=Qt.TextFormat.RichText)
        for label in (self.totals, self.warnings):
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        layout.addWidget(self.warnings)
        layout.addWidget(self.totals)
        layout.addWidget(self.presetNote)

        layout.addWidget(QLabel("The launch in Python"))
        self.code = QPlainTextEdit(objectName="launchCode", readOnly=True)
        self.code.setMinimumWidth(0)
        self.code.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Expanding)
        self.code.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.code.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        layout.addWidget(self.code, stretch=1)

        self.presetCombo.currentIndexChanged.connect(self._on_preset)
        self.set_config(LaunchConfig.of((4, 3, 1), (8, 4, 1)))
        if session is not None:
            session.backendReady.connect(self._on_backend_ready)
            session.backendFailed.connect(self._on_backend_failed)
            session.busyChanged.connect(self._update_run)

    # --- session -----------------------------------------------------------------------------
    def _update_run(self) -> None:
        if self._session is not None:
            self.runButton.setEnabled(self._session.can_run)

    def _on_backend_ready(self, info: BackendInfo) -> None:
        self.runButton.setToolTip(RUN_TIP)
        self.set_limits(info.limits, info.kind)
        self._update_run()

    def _on_backend_failed(self, _exc: BaseException, _tb: str) -> None:
        self.runButton.setToolTip(f"No backend could start; use {DEVICE_WORDS[BackendKind.SIM]} instead.")
        self._update_run()

    # --- model -------------------------------------------------------------------------------
    def config(self) -> LaunchConfig:
        s = self.spins
        return LaunchConfig(
            Dim3(s["gridX"].value(), s["gridY"].value(), s["gridZ"].value()),
            Dim3(s["blockX"].value(), s["blockY"].value(), s["blockZ"].value()),
        )

    def set_config(self, config: LaunchConfig) -> None:
        for what, dim in (("grid", config.grid), ("block", config.block)):
            for axis, value in zip("XYZ", dim.as_tuple(), strict=True):
                with QSignalBlocker(self.spins[f"{what}{axis}"]):
                    self.spins[f"{what}{axis}"].setValue(min(value, SPIN_MAX))
        self._refresh()
        self._sync_preset()

    def set_limits(self, limits: DeviceLimits, backend_kind: str) -> None:
        self._limits = limits
        self._backend_kind = backend_kind
        self._refresh()

    def select_preset(self, index: int) -> None:
        """Select preset ``index`` (0-based, in presets.json order)."""
        self.presetCombo.setCurrentIndex(index + 1)

    # --- reactions ---------------------------------------------------------------------------
    def _on_preset(self, combo_index: int) -> None:
        if combo_index <= 0:
            self.presetNote.setText("")
            return
        preset = self._presets[combo_index - 1]
        self.set_config(LaunchConfig.of(tuple(preset["grid"]), tuple(preset["block"])))
        self.configChanged.emit(self.config())

    def _on_edited(self) -> None:
        self._refresh()
        self._sync_preset()
        self.configChanged.emit(self.config())

    def _sync_preset(self) -> None:
        config = self.config()
        index = 0
        for i, preset in enumerate(self._presets, start=1):
            if LaunchConfig.of(tuple(preset["grid"]), tuple(preset["block"])) == config:
                index = i
                break
        with QSignalBlocker(self.presetCombo):
            self.presetCombo.setCurrentIndex(index)
        self.presetNote.setText(self._presets[index - 1].get("note", "") if index else "")

    def _refresh(self) -> None:
        config = self.config()
        self.totals.setText(totals_text(config))
        problems = validate(config, self._limits)
        lines = [f"⚠ {p.message}" for p in problems]
        if problems:
            lines.append("Run stays enabled: press it to see the error the driver gives.")
        elif self._backend_kind != "gpu" and config.total_threads > max_threads_unasked(self._backend_kind):
            eta = format_duration(estimate_seconds(self._backend_kind, config.total_threads))
            where = DEVICE_WORDS[BackendKind(self._backend_kind)]
            lines.append(f"⏱ about {eta} on {where}; you will be asked before it runs.")
        self.warnings.setText("<br>".join(lines))
        self.warnings.setVisible(bool(lines))
        self.code.setPlainText(launch_code(config))
