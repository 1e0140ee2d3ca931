"""Progress of a long run: a bar, the time left, and Cancel (shown once a run passes half a second)."""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from simtviz.backends.base import format_duration

SHOW_AFTER_MS = 500


class ProgressPanel(QWidget):
    """``progressPanel``: hidden until a run has taken ``SHOW_AFTER_MS``; ``cancelButton`` stops it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("progressPanel")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        self.label = QLabel(objectName="progressLabel")
        self.bar = QProgressBar(objectName="runProgress")
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(True)
        self.cancelButton = QPushButton("Cancel", objectName="cancelButton")
        self.cancelButton.setToolTip("Stop the run (Esc)")
        layout.addWidget(self.label, stretch=2)
        layout.addWidget(self.bar, stretch=3)
        layout.addWidget(self.cancelButton)
        self._timer = QTimer(self, singleShot=True, interval=SHOW_AFTER_MS)
        self._timer.timeout.connect(self._reveal)
        self._started = 0.0
        self._estimate: float | None = None
        self._what = ""
        self._fraction = 0.0
        self.setVisible(False)

    def start(self, what: str, estimate_s: float | None) -> None:
        """A run began: show the panel if it is still running after half a second."""
        self._started = time.monotonic()
        self._estimate, self._what, self._fraction = estimate_s, what, 0.0
        self.bar.setValue(0)
        self._update_label()
        self._timer.start()

    def set_fraction(self, fraction: float) -> None:
        self._fraction = max(0.0, min(1.0, fraction))
        self.bar.setValue(int(self._fraction * 1000))
        self._update_label()

    def finish(self) -> None:
        self._timer.stop()
        self.setVisible(False)

    def _reveal(self) -> None:
        self._update_label()
        self.setVisible(True)

    def _update_label(self) -> None:
        elapsed = time.monotonic() - self._started
        if self._fraction > 0.02:
            left = elapsed * (1 - self._fraction) / self._fraction
            eta = f"about {format_duration(left)} left"
        elif self._estimate is not None:
            eta = f"estimated {format_duration(self._estimate)}"
        else:
            eta = ""
        self.label.setText(f"{self._what} — {eta}" if eta else self._what)
