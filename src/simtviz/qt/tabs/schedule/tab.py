"""The "Where blocks ran" tab: the measured schedule (``scheduleView``) beside the occupancy
(``occupancyView``); a clicked block is pinned in the index map and the thread inspector
(``RunSession.show_block``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QScrollArea, QSplitter, QVBoxLayout, QWidget

from simtviz.core.launch import LaunchConfig
from simtviz.qt.tabs.schedule.data import ShownSchedule
from simtviz.qt.tabs.schedule.occupancy import OccupancyView
from simtviz.qt.tabs.schedule.view import ScheduleView

if TYPE_CHECKING:
    from simtviz.qt.session import RunSession

__all__ = ["OccupancyView", "SchedulePanel", "ScheduleView", "ShownSchedule"]


class SchedulePanel(QWidget):
    """``scheduleTab``: the schedule view beside the occupancy view."""

    def __init__(
        self,
        session: RunSession | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("scheduleTab")
        self.scheduleView = ScheduleView(session)
        self.occupancyView = OccupancyView(session)
        occupancy_scroll = QScrollArea()
        occupancy_scroll.setWidget(self.occupancyView)
        occupancy_scroll.setWidgetResizable(True)
        occupancy_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        occupancy_scroll.setMinimumWidth(300)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setObjectName("scheduleSplitter")
        splitter.addWidget(self.scheduleView)
        splitter.addWidget(occupancy_scroll)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([800, 520])  # without a GPU the occupancy is the half that works
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)
        self.scheduleView.scheduleShown.connect(self._on_shown)
        self._session = session
        if session is not None:
            self.scheduleView.blockClicked.connect(self._show_block)

    def _on_shown(self, shown: ShownSchedule) -> None:
        s = shown.summary
        threads = int(np.prod(s["block"]))
        self.occupancyView.set_launch(threads, s["regs_per_thread"], s["smem_per_block"])

    def _show_block(self, block: int) -> None:
        shown = self.scheduleView.shown
        if shown is None or self._session is None:
            return
        # The index map tab answers: it pins the block, recording its launch first if need be.
        self._session.show_block(LaunchConfig.of(shown.grid, shown.block), shown.block_xyz(block))
