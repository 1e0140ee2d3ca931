"""Every message box and file dialog of the app, built here and opened window-modally.

Each returns the box after ``open()`` (the event loop keeps running; tests find boxes by their
objectName). The errors' own data (threads, estimate, limit) words the questions; the CLI's verbs
are never read back out of an exception's text.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from simtviz.backends.base import DEVICE_WORDS, BackendKind
from simtviz.core.errors import (
    BackendUnavailable,
    Cancelled,
    LaunchRejected,
    LaunchTooLarge,
    OutOfDeviceMemory,
    RecordFileError,
    SimtvizError,
    describe,
)
from simtviz.core.estimates import format_duration

if TYPE_CHECKING:
    from simtviz.qt.session import RunSession

TITLE = "Kernel launch failed"


def _sized(box: QMessageBox, parent: QWidget | None) -> QMessageBox:
    """The window's font size (presentation mode) on a dialog: the window keeps it per tab."""
    rule = getattr(parent.window() if parent is not None else None, "font_rule", None)
    if callable(rule):
        box.setStyleSheet(rule())
    return box


def launch_error_dialog(parent: QWidget | None, error: LaunchRejected, kept: str = "") -> QMessageBox:
    """A non-modal-to-the-app message box (``launchErrorDialog``); call ``open()`` to show it.

    Headed in words (which limit, what to change); the driver's or numba's text follows verbatim.
    ``kept`` says what stays on screen (the index map: "the previous map is still shown").
    """
    box = _sized(QMessageBox(parent), parent)
    box.setObjectName("launchErrorDialog")
    box.setIcon(QMessageBox.Icon.Critical)
    box.setWindowTitle(TITLE)
    # The block first: the vector add derives its grid from it (block 0 gives grid 0 too).
    messages = sorted((v.message for v in error.violations), key=lambda m: not m.startswith("block"))
    first = messages[0] if messages else "the driver refused it"
    box.setText(f"This launch cannot run: {first}.")
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    lines = [f"<b>{m}</b>" for m in messages[1:]]  # simtviz's own words: no markup in them
    said = f"{error.source} said, word for word:<br><code>{html.escape(error.driver_text)}</code>"
    ran = f"Nothing ran; {kept}." if kept else "Nothing ran."
    box.setInformativeText(
        "<br>".join([*lines, said])
        + f"<br><br>Raised by {error.source} as <code>{error.exception_type}</code>. {ran}"
    )
    details = f"Launch: {error.launch_line}\n\n{error.explanation}"
    if error.traceback_text:
        details += f"\n\n{error.traceback_text}"
    box.setDetailedText(details)
    box.setStandardButtons(QMessageBox.StandardButton.Close)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    return box


def show_launch_error(parent: QWidget | None, error: LaunchRejected, kept: str = "") -> QMessageBox:
    """Build and open the dialog window-modally (returns at once; the event loop keeps running)."""
    box = launch_error_dialog(parent, error, kept)
    box.open()
    return box


def _message(
    parent: QWidget | None,
    icon: QMessageBox.Icon,
    title: str,
    text: str,
    name: str = "",
    informative: str = "",
    details: str = "",
) -> QMessageBox:
    box = _sized(QMessageBox(icon, title, text, parent=parent), parent)
    if name:
        box.setObjectName(name)
    if informative:
        box.setInformativeText(informative)
    if details:
        box.setDetailedText(details)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    return box


# --- errors that carry data -----------------------------------------------------------------------
@dataclass(frozen=True)
class TooLarge:
    """A launch refused for its size: too slow without asking, or too big for the device's memory."""

    out_of_memory: bool
    what: str  # what happened, with no CLI or GUI verb
    estimate_s: float | None


def too_large(exc: BaseException) -> TooLarge | None:
    """The facts of a size refusal, worded from the error's data (never from its text), or None."""
    if isinstance(exc, OutOfDeviceMemory):
        return TooLarge(True, describe(exc).what, None)
    if isinstance(exc, LaunchTooLarge):
        return TooLarge(False, str(exc), exc.estimate_s)  # its text states facts, with no verb
    return None


def confirm_long_run(
    parent: QWidget | None,
    name: str,
    title: str,
    text: str,
    informative: str,
    answered: Callable[[bool], object],
) -> QMessageBox:
    """Yes/No (No the default) before a long run; ``answered(True)`` runs it anyway."""
    box = _message(parent, QMessageBox.Icon.Question, title, text, name, informative)
    box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
    box.setDefaultButton(QMessageBox.StandardButton.No)
    box.finished.connect(lambda result: answered(result == QMessageBox.StandardButton.Yes))
    box.open()
    return box


def ask_run_anyway(parent: QWidget | None, exc: LaunchTooLarge, rerun: Callable[[], object]) -> QMessageBox:
    """The one "Run it anyway?" of the app (``RunSession.confirmRequested``, any experiment):
    worded from the error's data, with the experiment's own ``detail`` (what the threads are, how
    to ask for fewer) under it; Yes calls ``rerun`` (the same request with ``force``)."""
    eta = format_duration(exc.estimate_s) if exc.estimate_s is not None else "a long time"
    question = f"Run it anyway? It should take about {eta}; Cancel (Esc) stops it at any time."
    return confirm_long_run(
        parent,
        "launchTooLargeDialog",
        "A long run",
        str(exc),
        f"{exc.detail}\n\n{question}" if exc.detail else question,
        lambda yes: rerun() if yes else None,
    )


def ask_when_too_long(parent: QWidget, session: RunSession) -> None:
    """Wire the session's ``confirmRequested`` (any experiment's run refused as too long) to one
    "Run it anyway?" over ``parent``; Yes runs the same request with ``force`` (``run_anyway``)."""
    session.confirmRequested.connect(
        lambda experiment, request, exc: ask_run_anyway(
            parent, exc, lambda: session.run_anyway(experiment, request)
        )
    )


def out_of_memory(parent: QWidget | None, what: str, details: str, budget: int) -> QMessageBox:
    """The device has too little memory for the window's records: forcing cannot help."""
    smaller = max(1, budget // 4)
    box = _message(
        parent,
        QMessageBox.Icon.Warning,
        "Not enough GPU memory",
        what,
        "outOfMemoryDialog",
        f"The launch itself is valid. Its recording window ({budget:,} threads at most) needs more "
        f"memory than the GPU has free. Record a smaller window: lower the recording budget "
        f"(Recording window → Budget), e.g. to {smaller:,} threads, and press Run again.",
        details,
    )
    box.open()
    return box


def run_failed(parent: QWidget | None, exc: BaseException, tb: str, map_shown: bool) -> QMessageBox:
    box = _message(
        parent,
        QMessageBox.Icon.Warning,
        "The run failed",
        str(exc).split("\n")[0],
        "runErrorDialog",
        "The previous map is still shown; the app works on. Try the launch again or another one."
        if map_shown
        else "The app works on: try the launch again or another one.",
        # A traceback only for what simtviz did not expect; its own errors are said in words.
        str(exc) if isinstance(exc, SimtvizError) else f"{exc}\n\n{tb}",
    )
    box.open()
    return box


@dataclass(frozen=True)
class RecordFailure:
    """What the index map's run failure needs besides the error to word it."""

    budget: int
    map_shown: bool
    # Unused: the session asks "Run it anyway?" and re-runs (RunSession.confirmRequested).
    run_anyway: Callable[[], None] | None = None


def report_record_error(parent: QWidget, exc: BaseException, tb: str, run: RecordFailure) -> str | None:
    """Open the dialog for a failed index-map run; returns a status-bar line, if any.

    A backend that is gone is reported by ``backend_unavailable`` (the session says so apart);
    a run too long to start unasked, by ``ask_run_anyway`` (the session asks for every experiment).
    """
    if isinstance(exc, LaunchRejected):
        show_launch_error(parent, exc, "the previous map is still shown")
        return f"Launch rejected: {exc.explanation}"
    if isinstance(exc, Cancelled):
        return "Run cancelled; the previous map is still shown."
    if isinstance(exc, BackendUnavailable):
        return None
    facts = too_large(exc)
    if facts is not None and facts.out_of_memory:
        out_of_memory(parent, facts.what, str(exc), run.budget)
        return "Not enough GPU memory for the recording; the previous map stays."
    if facts is not None:
        return None  # the session asks "Run it anyway?" (ask_run_anyway)
    run_failed(parent, exc, tb, run.map_shown)
    return None


def backend_unavailable(
    parent: QWidget, exc: BaseException, tb: str, use_simulator: Callable[[], None]
) -> QMessageBox | None:
    """No backend (e.g. ``--backend gpu`` without a driver): say so and offer the simulator.
    One such box at a time."""
    if parent.findChild(QMessageBox, "backendErrorDialog") is not None:
        return None
    box = _message(
        parent,
        QMessageBox.Icon.Critical,
        "Backend unavailable",
        str(exc),
        "backendErrorDialog",
        "The CUDA simulator runs the same kernels on the CPU (slowly, without SM or clock readings).",
        # An unexpected failure keeps its traceback for a report.
        "" if isinstance(exc, SimtvizError) else tb,
    )
    button = box.addButton(f"Use {DEVICE_WORDS[BackendKind.SIM]}", QMessageBox.ButtonRole.AcceptRole)
    button.setObjectName("useSimulatorButton")
    box.addButton(QMessageBox.StandardButton.Close)
    button.clicked.connect(use_simulator)
    box.open()
    return box


# --- information and files --------------------------------------------------------------------------
def information(parent: QWidget | None, title: str, text: str, name: str = "") -> QMessageBox:
    box = _message(parent, QMessageBox.Icon.Information, title, text, name)
    box.open()
    return box


def export_failed(parent: QWidget | None, exc: BaseException) -> QMessageBox:
    box = _message(parent, QMessageBox.Icon.Warning, "Export failed", str(exc), "exportErrorDialog")
    box.open()
    return box


def ask_save_path(parent: QWidget | None, title: str, start: Path, suffix: str, filters: str) -> Path | None:
    """A save-file dialog; the suffix is added when the name has none. None when cancelled."""
    name, _ = QFileDialog.getSaveFileName(parent, title, str(start), filters)
    if not name:
        return None
    path = Path(name)
    return path if path.suffix else path.with_suffix(f".{suffix}")


def open_failed(parent: QWidget | None, path: Path, exc: BaseException) -> QMessageBox:
    """A file that is not a simtviz record (or not readable): say which file and why, in words.
    ``load_npz`` words every way a file can be wrong (``RecordFileError``); its path becomes the
    file's name here, which is what the user picked."""
    if isinstance(exc, RecordFileError):
        text = str(exc).replace(str(path), path.name) + "."
    else:
        text = f"{path.name} could not be opened: {exc or type(exc).__name__}."
    box = _message(
        parent,
        QMessageBox.Icon.Warning,
        "Could not open the record",
        text,
        "openErrorDialog",
        informative="Open a .npz file written by `simtviz record` or File → Export records as NPZ.",
    )
    box.open()
    return box


def ask_open_path(parent: QWidget | None, title: str, start: Path, filters: str) -> Path | None:
    name, _ = QFileDialog.getOpenFileName(parent, title, str(start), filters)
    return Path(name) if name else None
