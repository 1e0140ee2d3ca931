"""The Your kernel tab's run and arguments: the traced run on a plain thread (the kernel runs in a
child process of its own, so this process makes no CUDA call), and the table of the kernel's
parameters in the CLI's ``--arg`` syntax."""

from __future__ import annotations

import logging
import threading
from typing import Any

from PySide6.QtCore import QObject, QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHeaderView,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextEdit,
    QWidget,
)

from simtviz.core.trace.args import DTYPES, INITS, ArgSpecError, ArraySpec, parse_spec

log = logging.getLogger(__name__)


class ChildRunner(QObject):
    """Runs one request at a time in a child process (the student's code never runs in this
    one), from a plain thread; results come back as signals. ``job`` says what a run does; the
    next run's child is started as soon as one ends, so its imports are done before the click."""

    finished = Signal(object)  # the job's result
    failed = Signal(object)  # exception
    progress = Signal(float)
    thread_name = "simtviz-child-run"

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        from simtviz.backends.trace.isolated import WarmChild

        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self.warm = WarmChild()

    @property
    def busy(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def job(self, kind: str, request: Any, cancel: threading.Event, child: Any) -> Any:
        """Run ``request`` on backend ``kind`` in ``child`` (None: a new one); on this thread."""
        raise NotImplementedError

    def start(self, kind: str, request: Any) -> None:
        self._cancel = threading.Event()
        cancel = self._cancel

        def work() -> None:
            try:
                result = self.job(kind, request, cancel, self.warm.take(kind))
            except BaseException as exc:  # every failure is shown in words
                self.failed.emit(exc)
            else:
                self.finished.emit(result)
            try:  # the next run finds numba already imported, after a failure too
                self.warm.prepare(kind)
            except Exception:
                log.exception("could not start the next run's process")

        self._thread = threading.Thread(target=work, name=self.thread_name, daemon=True)
        self._thread.start()

    def prewarm(self, kind: str) -> None:
        """Start the next run's child process now, off the GUI thread (numba imported; on a GPU
        also warmed up: see ``backends.trace.child.warm_up``)."""
        if self.busy:
            return

        def start() -> None:
            try:
                self.warm.prepare(kind)
            except Exception:
                log.exception("could not start the process ahead")

        threading.Thread(target=start, name=f"{self.thread_name}-prewarm", daemon=True).start()

    def cancel(self) -> None:
        self._cancel.set()

    def close(self) -> None:
        self._cancel.set()
        if self._thread is not None:
            self._thread.join(3.0)
        self.warm.close()


class TraceRunner(ChildRunner):
    """The Your kernel tab's traced runs (``finished`` carries a TraceResult)."""

    thread_name = "simtviz-trace"

    def job(self, kind: str, request: Any, cancel: threading.Event, child: Any) -> Any:
        from simtviz.backends.trace.fallback import run_traced

        # On emu, a kernel the emulator cannot run goes to the simulator; the result's notes
        # say so first, and the findings show them.
        return run_traced(kind, request, self.progress.emit, cancel, child)


class ArgsTable(QTableWidget):
    """The kernel's parameters: array (dtype, shape, initial values) or scalar (type, value)."""

    HEADERS = ("parameter", "kind", "type", "shape", "initial values / value")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(self.HEADERS), parent)
        self.setObjectName("kernelArgs")
        self.setHorizontalHeaderLabels(list(self.HEADERS))
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.verticalHeader().setVisible(False)

    def set_specs(self, params: list[str], specs: dict[str, str]) -> None:
        with QSignalBlocker(self):
            self.setRowCount(len(params))
            for r, name in enumerate(params):
                item = QTableWidgetItem(name)
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                self.setItem(r, 0, item)
                kind, dtype, shape, init = "array", "float32", "1000", "zeros"
                text = specs.get(name)
                if text:
                    try:
                        spec = parse_spec(name, text)
                        if isinstance(spec, ArraySpec):
                            shape = ",".join(map(str, spec.shape))
                            init = spec.spec().rsplit(":", 1)[1]
                            dtype = spec.dtype
                        else:
                            kind, dtype, shape, init = "scalar", spec.dtype, "", spec.spec().split(":", 1)[1]
                    except ArgSpecError:
                        pass
                kinds = QComboBox()
                kinds.addItems(["array", "scalar"])
                kinds.setCurrentText(kind)
                types = QComboBox()
                types.addItems(list(DTYPES))
                types.setCurrentText(dtype)
                self.setCellWidget(r, 1, kinds)
                self.setCellWidget(r, 2, types)
                self.setItem(r, 3, QTableWidgetItem(shape))
                value = QTableWidgetItem(init)
                value.setToolTip(f"an array: {', '.join(INITS)} or a number; a scalar: its value")
                self.setItem(r, 4, value)
                kinds.currentTextChanged.connect(lambda _t: self.itemChanged.emit(self.item(0, 0)))
                types.currentTextChanged.connect(lambda _t: self.itemChanged.emit(self.item(0, 0)))

    def specs(self) -> dict[str, str]:
        """NAME → SPEC in the CLI's syntax (checked when the run starts)."""
        out = {}
        for r in range(self.rowCount()):
            name = self._text(r, 0)
            kind, dtype = self._choice(r, 1), self._choice(r, 2)
            shape, value = self._text(r, 3).strip(), self._text(r, 4).strip()
            if kind == "array":
                out[name] = f"{dtype}[{shape}]" + (f":{value}" if value else "")
            else:
                out[name] = f"{dtype}:{value}"
        return out

    def _text(self, row: int, col: int) -> str:
        item = self.item(row, col)
        return item.text() if item is not None else ""

    def _choice(self, row: int, col: int) -> str:
        box = self.cellWidget(row, col)
        return box.currentText() if isinstance(box, QComboBox) else ""


def fit_findings(result: QTextEdit, splitter: QSplitter) -> None:
    """Give the findings box 8 lines at its font size where the window has room (not a minimum:
    the window must still fit 1024 × 640); the maps under it get the rest."""
    lines = 8 * result.fontMetrics().lineSpacing()
    frame = 2 * result.frameWidth() + 2 * int(result.document().documentMargin()) + 2
    total = sum(splitter.sizes())
    maps = splitter.widget(1)
    if total > 0 and maps is not None:
        below = maps.minimumSizeHint().height()
        top = max(min(lines + frame, total - below), total // 3)
        splitter.setSizes([top, total - top])
