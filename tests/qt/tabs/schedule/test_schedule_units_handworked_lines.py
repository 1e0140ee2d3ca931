"""The schedule and occupancy forms as a person reads them: each box under its own label, with
its unit and thousands separators (2,464
blocks, 20.0 µs, 40,960 B)."""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QWidget

from simtviz.qt.tabs.schedule.occupancy import OccupancyView
from simtviz.qt.tabs.schedule.view import ScheduleView


def label_of(widget: QWidget) -> str:
    parent = widget.parentWidget()
    for form in parent.findChildren(QFormLayout):
        label = form.labelForField(widget)
        if label is not None:
            return label.text()
    raise AssertionError(f"{widget.objectName()} has no label")


def test_the_schedule_form(qtbot) -> None:
    view = ScheduleView()
    qtbot.addWidget(view)
    labels = {
        name: label_of(getattr(view, name))
        for name in ("scheduleGridX", "scheduleBlockX", "scheduleWork", "scheduleSmem", "scheduleColorBy")
    }
    assert labels == {
        "scheduleGridX": "blocks (grid.x)",
        "scheduleBlockX": "threads per block",
        "scheduleWork": "work per thread",
        "scheduleSmem": "shared memory",
        "scheduleColorBy": "colour by",
    }
    assert view.scheduleGridX.text() == "2,464" and view.scheduleBlockX.text() == "256"
    assert view.scheduleWork.text() == "20.0 µs"
    view.scheduleSmem.setValue(40960)
    assert view.scheduleSmem.text() == "40,960 B"
    assert view.scheduleSmem.singleStep() == 1024  # a KiB a click
    assert [view.scheduleColorBy.itemData(i) for i in range(2)] == ["wave", "block"]
    assert view.scheduleFacts.horizontalHeaderItem(0).text() == "theory"


def test_the_occupancy_form(qtbot) -> None:
    view = OccupancyView()
    qtbot.addWidget(view)
    labels = {
        name: label_of(getattr(view, name)) for name in ("occupancyBlock", "occupancyRegs", "occupancySmem")
    }
    assert labels == {
        "occupancyBlock": "threads per block",
        "occupancyRegs": "registers per thread",
        "occupancySmem": "shared memory per block",
    }
    assert view.device() == "9.0"  # Hopper first: the fixtures' GPU
    view.occupancySmem.setValue(2048)
    assert view.occupancySmem.text() == "2,048 B"
    heads = [view.occupancyLimits.horizontalHeaderItem(c).text() for c in range(2)]
    assert heads == ["allows blocks", "because"]
