"""Size boxes past 32 bits: what a person types is the number the app reads, to the last digit."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDoubleSpinBox

from simtviz.qt.widgets.spins import INT32_MAX, LARGE_INT_MAX, LargeIntSpinBox


def type_into(qtbot, box, text: str) -> None:
    box.setFocus()
    box.lineEdit().selectAll()
    qtbot.keyClicks(box.lineEdit(), text)
    qtbot.keyClick(box.lineEdit(), Qt.Key.Key_Return)


def test_the_limits_are_int32_and_two_to_the_53() -> None:
    assert INT32_MAX == 2_147_483_647  # 2^31 - 1: QSpinBox's own maximum
    assert LARGE_INT_MAX == 9_007_199_254_740_992  # 2^53: doubles hold every integer below


def test_a_typed_coordinate_past_int32_reads_back_exactly(qtbot) -> None:
    box = LargeIntSpinBox(objectName="windowX")
    qtbot.addWidget(box)
    assert isinstance(box, QDoubleSpinBox) and box.objectName() == "windowX" and box.decimals() == 0
    # A 1-D launch of 2^31 - 1 blocks of 1,024 ends at x = 2,199,023,254,527; its last block
    # starts at 2,199,023,253,504 (= 2,147,483,646 × 1,024).
    type_into(qtbot, box, "2199023253504")
    assert box.value() == 2_199_023_253_504 and type(box.value()) is int
    type_into(qtbot, box, "9007199254740991")  # 2^53 - 1: the last odd integer a double holds
    assert box.value() == 9_007_199_254_740_991


def test_set_value_clamps_a_python_int_exactly(qtbot) -> None:
    box = LargeIntSpinBox(minimum=0)
    qtbot.addWidget(box)
    box.setValue(2**60 + 1)  # past 2^53: the box's maximum, not a rounded double
    assert box.value() == 2**53
    box.setValue(-5)
    assert box.value() == 0
    box.setValue(12_345_678_901)
    assert box.value() == 12_345_678_901
