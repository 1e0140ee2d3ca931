"""The dialog shown when a launch is rejected: the driver's words, then which limit and by how much."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from simtviz.core.errors import LaunchRejected

TITLE = "Kernel launch failed"


def launch_error_dialog(parent: QWidget | None, error: LaunchRejected) -> QMessageBox:
    """A non-modal-to-the-app message box (``launchErrorDialog``); call ``open()`` to show it."""
    box = QMessageBox(parent)
    box.setObjectName("launchErrorDialog")
    box.setIcon(QMessageBox.Icon.Critical)
    box.setWindowTitle(TITLE)
    box.setText(error.driver_text)
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    lines = [f"<b>{v.message}</b>" for v in error.violations] or [error.explanation]
    box.setInformativeText(
        "<br>".join(lines) + f"<br><br>Raised by {error.source} as <code>{error.exception_type}</code>. "
        "Nothing ran; the previous map is still shown."
    )
    details = f"Launch: {error.launch_line}\n\n{error.explanation}"
    if error.traceback_text:
        details += f"\n\n{error.traceback_text}"
    box.setDetailedText(details)
    box.setStandardButtons(QMessageBox.StandardButton.Close)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    return box


def show_launch_error(parent: QWidget | None, error: LaunchRejected) -> QMessageBox:
    """Build and open the dialog window-modally (returns at once; the event loop keeps running)."""
    box = launch_error_dialog(parent, error)
    box.open()
    return box
