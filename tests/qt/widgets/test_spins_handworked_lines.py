"""``LargeIntSpinBox`` by hand: a fractional value is rounded to the nearest whole number, not cut."""

from __future__ import annotations

from simtviz.qt.widgets.spins import LargeIntSpinBox


def test_set_value_rounds_to_the_nearest_whole_number(qtbot) -> None:
    box = LargeIntSpinBox(minimum=0, maximum=100)
    qtbot.addWidget(box)
    box.setValue(2.7)
    assert box.value() == 3  # not 2
    box.setValue(99.6)
    assert box.value() == 100
    box.setValue(100.4)  # rounds to 100: the maximum itself
    assert box.value() == 100
    assert (box.minimum(), box.maximum()) == (0, 100)
