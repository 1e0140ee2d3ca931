"""Spin boxes for sizes and coordinates, past what a QSpinBox holds.

A QSpinBox is 32-bit: it holds 0 … 2^31 − 1 (``INT32_MAX``), enough for a grid or block
dimension (CUDA's own limit) and the vector add's N, so those stay QSpinBoxes (docs/CONTRACT.md
names them so) with that range: invalid values must be enterable, never clamped lower; so do
Your kernel's window boxes (linear block ids; the tab says in words when a launch has more).
Global thread coordinates go further (a 1-D launch of 2^31 − 1 blocks of 1,024 reaches
x ≈ 2.2 × 10^12): ``LargeIntSpinBox`` holds them, up to 2^53, where a double still holds every
integer exactly.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtWidgets import QDoubleSpinBox, QWidget

INT32_MAX: Final = 2**31 - 1  # the most a QSpinBox holds
LARGE_INT_MAX: Final = 2**53  # every integer up to here is exact in a double


class LargeIntSpinBox(QDoubleSpinBox):
    """A whole-number spin box up to ``LARGE_INT_MAX``: a QDoubleSpinBox with no decimals whose
    ``value()`` is an ``int`` and whose ``setValue`` clamps an ``int`` exactly (a Python int past
    2^53 would lose digits on its way to a double before Qt clamped it)."""

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        objectName: str = "",
        minimum: int = 0,
        maximum: int = LARGE_INT_MAX,
    ) -> None:
        super().__init__(parent)
        if objectName:
            self.setObjectName(objectName)
        self.setDecimals(0)
        self.setRange(minimum, min(maximum, LARGE_INT_MAX))

    def value(self) -> int:
        return round(super().value())

    def setValue(self, val: float) -> None:
        low, high = round(self.minimum()), round(self.maximum())
        super().setValue(float(min(max(round(val), low), high)))
