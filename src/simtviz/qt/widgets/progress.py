"""Progress of a long run: a bar, the time left, and Cancel (shown once a run passes half a second).

One panel per tab, each following one experiment of the session (the index map's record, the
vector add): it starts, moves and hides with that experiment's runs.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from simtviz.core.estimates import format_duration
from simtviz.qt.session import RunSession

SHOW_AFTER_MS = 500

# A request → what runs, in words, and the estimated seconds (None: no estimate).
Describe = Callable[[Any], tuple[str, "float | None"]]


class ProgressPanel(QWidget):
    """Hidden until a run has taken ``SHOW_AFTER_MS``; its Cancel button stops the run.

    The index map's is ``progressPanel`` with ``cancelButton``; other tabs name theirs.
    """

    def __init__(
        self,
        session: RunSession | None = None,
        experiment: str = "record",
        describe: Describe | None = None,
        name: str = "progressPanel",
        cancel_name: str = "cancelButton",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        self.label = QLabel(objectName=f"{name}Label" if name != "progressPanel" else "progressLabel")
        self.bar = QProgressBar(objectName=f"{name}Bar" if name != "progressPanel" else "runProgress")
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(True)
        self.cancelButton = QPushButton("Cancel", objectName=cancel_name)
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
        self._experiment = experiment
        self._describe = describe
        if session is not None:
            self.cancelButton.clicked.connect(session.cancel)
            session.runStarted.connect(self._on_started)
            session.runProgress.connect(self._on_progress)
            session.busyChanged.connect(self._on_busy)

    def _on_busy(self, busy: bool) -> None:
        if not busy:
            self.finish()

    def _on_started(self, experiment: str, request: Any) -> None:
        if experiment == self._experiment and self._describe is not None:
            self.start(*self._describe(request))

    def _on_progress(self, experiment: str, fraction: float) -> None:
        if experiment == self._experiment:
            self.set_fraction(fraction)

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
