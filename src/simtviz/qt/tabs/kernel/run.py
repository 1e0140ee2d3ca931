"""The Your kernel tab's arguments (the table of the kernel's parameters in the CLI's ``--arg``
syntax), what Run refuses at once, and the findings box's size; the traced run itself goes
through ``RunSession.run``."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHeaderView,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextEdit,
    QWidget,
)

from simtviz.backends.base import BackendInfo
from simtviz.core.errors import LaunchTooLarge
from simtviz.core.trace.args import DTYPES, INITS, ArgSpecError, ArraySpec, parse_spec
from simtviz.core.trace.model import TraceRequest
from simtviz.core.trace.source import TraceUnsupported


def refused_now(request: TraceRequest, info: BackendInfo) -> BaseException | None:
    """What the trace's own check refuses at once, here (a few ms, nothing runs), to be said
    without starting a run; None: start it. A construct the tracer refuses that a GPU may refuse
    for a reason of its own goes on: the run's check compiles it for a GPU first (numba-cuda's
    reason comes before the tracer's). A long launch goes on too: the session asks "Run it
    anyway?" when the run's check refuses it."""
    from simtviz.backends.trace import TRACE

    try:
        TRACE.check(request, info, ask_gpu=False)
    except TraceUnsupported as exc:
        from simtviz.backends.trace.gpu_compile import worth_asking

        return None if worth_asking(exc, request.source) else exc
    except LaunchTooLarge:
        return None
    except Exception as exc:
        return exc
    return None


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
        self.blockSignals(True)
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
        self.blockSignals(False)

    def specs(self) -> dict[str, str]:
        """NAME → SPEC in the CLI's syntax (checked when the run starts)."""
        out = {}
        for r in range(self.rowCount()):
            name = self.item(r, 0).text()
            kind = self.cellWidget(r, 1).currentText()  # type: ignore[union-attr]
            dtype = self.cellWidget(r, 2).currentText()  # type: ignore[union-attr]
            shape = (self.item(r, 3).text() if self.item(r, 3) else "").strip()
            value = (self.item(r, 4).text() if self.item(r, 4) else "").strip()
            if kind == "array":
                out[name] = f"{dtype}[{shape}]" + (f":{value}" if value else "")
            else:
                out[name] = f"{dtype}:{value}"
        return out


def fit_findings(result: QTextEdit, splitter: QSplitter) -> None:
    """Give the findings box 8 lines at its font size where the window has room (not a minimum:
    the window must still fit 1024 × 640); the maps under it get the rest."""
    lines = 8 * result.fontMetrics().lineSpacing()
    frame = 2 * result.frameWidth() + 2 * int(result.document().documentMargin()) + 2
    total = sum(splitter.sizes())
    if total > 0:
        below = splitter.widget(1).minimumSizeHint().height()
        top = max(min(lines + frame, total - below), total // 3)
        splitter.setSizes([top, total - top])
