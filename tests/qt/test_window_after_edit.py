"""The recording window's arrows after the launch was edited mid-run (issue 11.7)."""

from __future__ import annotations

from PySide6.QtWidgets import QDoubleSpinBox, QPushButton, QSpinBox
from qt_helpers import RUN_TIMEOUT_MS


def test_arrows_never_move_an_edited_launch_from_the_old_launch_origin(qtbot, window) -> None:
    window.set_budget_threads(64)
    qtbot.waitUntil(lambda: window.session.info is not None, timeout=RUN_TIMEOUT_MS)
    for name, value in (
        ("gridX", 8),
        ("gridY", 1),
        ("gridZ", 1),
        ("blockX", 32),
        ("blockY", 1),
        ("blockZ", 1),
    ):
        window.findChild(QSpinBox, name).setValue(value)
    window.run()
    assert window.busy
    # Mid-run, the launch becomes 3 blocks of 32: its window starts at x = 0 again.
    window.findChild(QSpinBox, "gridX").setValue(3)
    qtbot.waitUntil(lambda: window.recording is not None and not window.busy, timeout=RUN_TIMEOUT_MS)
    assert window.recording.config.grid.x == 8  # what ran, shown
    # The arrows and origin are the new launch's: at its start, nothing to move from yet.
    assert window.findChild(QDoubleSpinBox, "windowX").value() == 0
    for name in ("windowUp", "windowDown", "windowLeft", "windowRight"):
        assert not window.findChild(QPushButton, name).isEnabled(), name
