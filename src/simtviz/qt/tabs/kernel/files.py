"""The Your kernel tab's files: Open…, Save… and its settings (restored at start, saved on
every edit, debounced). Every failure is said in the window, never only on stderr: Open… refuses
a pipe, a device or a file over 1 MB by its kind and size before reading a byte; a bad saved
value falls back to its default with one visible line; a failure to save the settings is said
once."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QSettings

from simtviz.core.trace.model import DEFAULT_BUDGET, DEFAULT_TIME_LIMIT_S
from simtviz.core.trace.templates import templates
from simtviz.qt.widgets.spins import INT32_MAX

if TYPE_CHECKING:
    from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QLineEdit, QSpinBox, QTextEdit

    from simtviz.qt.tabs.kernel.editor import CodeEditor
    from simtviz.qt.tabs.kernel.run import ArgsTable


class KernelTab(Protocol):
    """What these functions read and write of the Your kernel tab (``tab.KernelTab``), named
    here so that the tab and this module do not import each other."""

    template: QComboBox
    editor: CodeEditor
    args: ArgsTable
    check: QLineEdit
    budget: QSpinBox
    timeLimit: QDoubleSpinBox
    result: QTextEdit
    _qs: QSettings
    _filename: str
    _loading: bool
    _said_too_long: bool
    _said_unsaved: bool

    def grid(self) -> tuple[int, int, int]: ...
    def block(self) -> tuple[int, int, int]: ...
    def window_inputs(self) -> tuple[int, int]: ...
    def set_window(self, first: int = 0, blocks: int = 0) -> None: ...
    def refresh_params(self, specs: dict[str, str] | None = None) -> None: ...
    def load_template(self, name: str, save: bool = True) -> None: ...
    def _set_dims(self, grid: str, block: str) -> None: ...
    def _say(self, text: str) -> None: ...
    def _status(self, text: str) -> None: ...


log = logging.getLogger(__name__)
KEY = "kernel/"


def open_into(tab: KernelTab, path: str | Path) -> bool:
    """Put the file's text in the editor (it is never run here). A pipe, a device or a file
    over 1 MB is refused by its kind and size before a byte is read; every failure is said in
    the window and leaves the editor as it was."""
    from simtviz.core.files import read_user_text

    try:
        text = read_user_text(path)
    except OSError as exc:
        tab._say(f"Could not open: {exc}")
        return False
    tab.template.setCurrentIndex(0)
    tab.editor.setPlainText(text)
    tab._filename = Path(path).name
    tab.refresh_params()
    tab._say(f"Opened {path}")
    return True


def save_from(tab: KernelTab, path: str | Path) -> Path | None:
    """Write the editor's text atomically; the outcome (saved where, or why not) is said in
    the window. None when nothing was written."""
    from simtviz.core.files import atomic_write, check_writable

    text = tab.editor.toPlainText()

    def write(fh: Any) -> None:
        fh.write(text)

    try:
        check_writable(path)
        written = atomic_write(Path(path), write, mode="w")
    except OSError as exc:
        tab._say(f"Could not save: {exc}. The text is still in the editor.")
        return None
    tab._say(f"Saved {written}")
    return written


def save_state(tab: KernelTab) -> None:
    """Into the settings now (also called on every edit, after a short pause). A text over
    1 MB is not stored (the settings file stays small, so saving never makes typing wait);
    a failure to save is said once in the status bar."""
    from simtviz.core.files import KERNEL_FILE_LIMIT, format_bytes

    qs = tab._qs
    text = tab.editor.toPlainText()
    if len(text) <= KERNEL_FILE_LIMIT:
        qs.setValue(KEY + "source", text)
    elif not tab._said_too_long:
        tab._said_too_long = True
        tab._status(
            f"The kernel's text is over {format_bytes(KERNEL_FILE_LIMIT)}: it is not kept in "
            "the settings; use Save… to keep it."
        )
    qs.setValue(KEY + "template", tab.template.currentData() or "")
    qs.setValue(KEY + "grid", ",".join(str(v) for v in tab.grid()))
    qs.setValue(KEY + "block", ",".join(str(v) for v in tab.block()))
    qs.setValue(KEY + "args", json.dumps(tab.args.specs()))
    qs.setValue(KEY + "check", tab.check.text())
    qs.setValue(KEY + "budget", tab.budget.value())
    qs.setValue(KEY + "time_limit", tab.timeLimit.value())
    first, blocks = tab.window_inputs()
    qs.setValue(KEY + "window_first", first)
    qs.setValue(KEY + "window_blocks", blocks)
    qs.sync()
    if qs.status() != QSettings.Status.NoError and not tab._said_unsaved:
        from simtviz.qt.settings import unwritable

        tab._said_unsaved = True
        tab._status(f"Warning: {unwritable(qs) or 'the settings could not be saved'}")


def restore(tab: KernelTab) -> None:
    from simtviz.qt.settings import read_number

    qs = tab._qs
    source = qs.value(KEY + "source", None)
    if not source:
        # A first start: the unguarded vecadd, not saved until the student changes something.
        tab.load_template(templates()[1].name if len(templates()) > 1 else templates()[0].name, save=False)
        return
    tab._loading = True
    problems: list[str] = []
    try:
        tab.editor.setPlainText(str(source))
        tab._set_dims(str(qs.value(KEY + "grid", "1,1,1")), str(qs.value(KEY + "block", "32,1,1")))
        try:
            specs = json.loads(str(qs.value(KEY + "args", "{}")))
        except ValueError:
            specs = {}
        tab.refresh_params(specs if isinstance(specs, dict) else {})
        tab.check.setText(str(qs.value(KEY + "check", "")))
        tab.budget.setValue(int(read_number(qs, KEY + "budget", DEFAULT_BUDGET, 1, INT32_MAX, problems)))
        limit = read_number(
            qs, KEY + "time_limit", DEFAULT_TIME_LIMIT_S, tab.timeLimit.minimum(),
            tab.timeLimit.maximum(), problems, whole=False,
        )  # fmt: skip
        tab.timeLimit.setValue(limit)
        tab.set_window(
            int(read_number(qs, KEY + "window_first", 0, 0, INT32_MAX, problems)),
            int(read_number(qs, KEY + "window_blocks", 0, 0, INT32_MAX, problems)),
        )
    except (TypeError, ValueError, OverflowError) as exc:
        problems.append(f"the saved launch could not be read ({exc}); kept the text only")
    finally:
        tab._loading = False
    if problems:
        line = f"Settings: {'; '.join(problems)}."
        log.warning("%s", line)
        tab.result.setPlainText(line)
        tab._status(line)
