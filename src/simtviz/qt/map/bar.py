"""The map's controls: colour choice, the backend badge, Fit / See all, and the z-plane row."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from simtviz.core.recording import COLOR_FIELDS, GPU_ONLY_FIELDS


class MapOwner(Protocol):
    """What the controls drive: the map (``IndexMap``), without importing it (no import cycle)."""

    def set_color_field(self, name: str) -> None: ...
    def set_plane(self, z: int) -> None: ...
    def set_tiled(self, tiled: bool) -> None: ...
    def fit(self) -> None: ...
    def show_all(self) -> None: ...


class MapControls(QWidget):
    """Two rows over the map; the second (z-planes) shows for 3-D launches only. Every control
    may shrink: none of them sets the window's minimum width."""

    def __init__(self, owner: MapOwner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        self._bar = bar
        bar.addWidget(QLabel("Colour by"))
        self.colorBy = QComboBox(objectName="colorBy")
        self.colorBy.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.colorBy.setMinimumContentsLength(15)
        for name in COLOR_FIELDS:
            self.colorBy.addItem(name)
            if name in GPU_ONLY_FIELDS:
                index = self.colorBy.count() - 1
                self.colorBy.setItemText(index, name)
                self.colorBy.setItemData(index, "recorded on a GPU only", Qt.ItemDataRole.ToolTipRole)
        self.colorBy.currentTextChanged.connect(owner.set_color_field)
        bar.addWidget(self.colorBy)
        # The z controls get a row of their own (3-D launches only): beside the colour choice
        # their long label set the window's minimum width to 1,547 px.
        zbar = QHBoxLayout()
        self.zLabel = QLabel("z-plane", objectName="zLabel")
        self.zLabel.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.zSlice = QSlider(Qt.Orientation.Horizontal, objectName="zSlice")
        self.zSlice.setRange(0, 0)
        self.zSlice.setPageStep(1)
        self.zSlice.setMinimumWidth(60)
        self.zSlice.valueChanged.connect(owner.set_plane)
        self.tiledCheck = QCheckBox("All z-planes", objectName="tiledCheck")
        self.tiledCheck.setToolTip("Show every z-plane side by side (the slider picks the one inspected)")
        self.tiledCheck.toggled.connect(owner.set_tiled)
        zbar.addWidget(self.zSlice, stretch=2)
        zbar.addWidget(self.zLabel, stretch=3)
        zbar.addWidget(self.tiledCheck)
        bar.addStretch(1)
        self.fitButton = QPushButton("Fit", objectName="fitButton")
        self.fitButton.setToolTip("Back to the first view of the map (Ctrl+0)")
        self.fitButton.clicked.connect(owner.fit)
        bar.addWidget(self.fitButton)
        self.seeAllButton = QPushButton("See all", objectName="seeAllButton")
        self.seeAllButton.setToolTip("Show the whole map, stretched to the view (cells no longer square)")
        self.seeAllButton.clicked.connect(owner.show_all)
        self.seeAllButton.setVisible(False)
        bar.addWidget(self.seeAllButton)
        layout.addLayout(bar)
        layout.addLayout(zbar)

    def set_badge(self, label: QLabel) -> None:
        """The backend's label, boxed, between the colour choice and Fit."""
        label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        label.setMinimumWidth(60)
        label.setStyleSheet("QLabel { font-weight: bold; padding: 2px 8px; border: 2px solid palette(mid); }")
        self._bar.insertWidget(self._bar.indexOf(self.fitButton) - 1, label, stretch=4)
