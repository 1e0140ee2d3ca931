"""The vector-add form as a person reads it: each box under its own label, N with thousands
separators, the guarded kernel first."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_backends import FakeVecaddBackend
from PySide6.QtWidgets import QFormLayout, QWidget
from qt_helpers import RUN_TIMEOUT_MS

from simtviz.qt.session import RunSession
from simtviz.qt.tabs.vecadd.panel import VecaddPanel


def label_of(widget: QWidget) -> str:
    parent = widget.parentWidget()
    for form in parent.findChildren(QFormLayout):
        label = form.labelForField(widget)
        if label is not None:
            return label.text()
    raise AssertionError(f"{widget.objectName()} has no label")


@pytest.fixture
def panel(qtbot) -> Iterator[VecaddPanel]:
    session = RunSession(lambda: FakeVecaddBackend())
    p = VecaddPanel(session)
    qtbot.addWidget(p)
    qtbot.waitUntil(lambda: session.backend is not None, timeout=RUN_TIMEOUT_MS)
    yield p
    session.close()


def test_the_vector_add_form(panel: VecaddPanel) -> None:
    labels = {
        name: label_of(getattr(panel, name))
        for name in ("vecaddN", "vecaddBlock", "vecaddVariant", "vecaddRepeat")
    }
    assert labels == {
        "vecaddN": "N (vector_size)",
        "vecaddBlock": "block_size",
        "vecaddVariant": "kernel",
        "vecaddRepeat": "timed launches",
    }
    assert panel.vecaddN.text() == "4,107"  # 2^12 + 11, the simulator's default
    # the guarded kernel first, the guide's unguarded one second
    assert [panel.vecaddVariant.itemData(i) for i in range(2)] == [True, False]
    assert panel.request().guarded is True
    panel.vecaddVariant.setCurrentIndex(1)
    assert panel.request().guarded is False
