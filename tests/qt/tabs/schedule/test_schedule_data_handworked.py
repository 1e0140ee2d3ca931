"""The schedule tab's data helpers, by hand: the presets say in their labels what they launch,
blocks are numbered x fastest, the table's cells are read-only and bold where asked, and the
empty chart explains itself and offers the sample.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton

from simtviz.qt.tabs.schedule.data import PRESETS, ShownSchedule, empty_chart, sample_path, table_item

# The four presets of the H100/H200 fixtures, as the teacher reads them in the menu:
# label → (blocks, threads per block, work µs, shared memory bytes, register-heavy).
EXPECTED = {
    "threads limit: 2,464 × 256": (2464, 256, 20.0, 0, False),
    "registers limit: 1,232 × 256, register-heavy": (1232, 256, 20.0, 0, True),
    "shared memory limit: 1,540 × 128, 40 KiB": (1540, 128, 20.0, 40 * 1024, False),  # 40 KiB = 40,960 B
    "blocks limit: 9,856 × 32": (9856, 32, 20.0, 0, False),
}


def test_each_preset_launches_what_its_label_says() -> None:
    assert PRESETS == EXPECTED
    for label, (blocks, threads, _work, _smem, heavy) in PRESETS.items():
        shown = re.search(r"([\d,]+) × (\d+)", label)
        assert shown is not None
        assert (int(shown[1].replace(",", "")), int(shown[2])) == (blocks, threads)
        assert heavy == ("register-heavy" in label)


def _shown(grid: tuple[int, int, int]) -> ShownSchedule:
    n = grid[0] * grid[1] * grid[2]
    empty = np.zeros(n, np.int64)
    summary = {"grid": list(grid), "block": [32, 1, 1]}
    return ShownSchedule(summary, empty.astype(np.int32), empty, empty, None, "test")


@pytest.mark.parametrize(
    ("linear", "expected"),
    [
        # grid (3, 5, 2): x = linear % 3, y = (linear // 3) % 5, z = linear // 15
        (0, (0, 0, 0)),
        (2, (2, 0, 0)),
        (3, (0, 1, 0)),
        (14, (2, 4, 0)),  # 14 % 3 = 2, 14 // 3 = 4
        (17, (2, 0, 1)),  # 17 % 3 = 2, (17 // 3) % 5 = 0, 17 // 15 = 1
        (29, (2, 4, 1)),  # the last block
    ],
)
def test_block_rows_are_numbered_x_fastest(linear: int, expected: tuple[int, int, int]) -> None:
    shown = _shown((3, 5, 2))
    assert shown.grid == (3, 5, 2) and shown.block == (32, 1, 1)
    assert shown.block_xyz(linear) == expected


def test_table_cells_are_read_only_and_bold_only_when_asked(qtbot) -> None:
    plain, bold = table_item("8"), table_item("7", bold=True)
    for item in (plain, bold):
        assert not item.flags() & Qt.ItemFlag.ItemIsEditable
        assert item.flags() & Qt.ItemFlag.ItemIsSelectable and item.flags() & Qt.ItemFlag.ItemIsEnabled
    assert plain.text() == "8" and not plain.font().bold()
    assert bold.text() == "7" and bold.font().bold()


def test_the_empty_chart_explains_and_its_button_opens_the_sample(qtbot) -> None:
    opened: list[int] = []
    widget = empty_chart(lambda: opened.append(1))
    qtbot.addWidget(widget)
    widget.resize(400, 300)
    widget.show()
    text = widget.findChild(QLabel, "scheduleEmptyText")
    button = widget.findChild(QPushButton, "scheduleSampleButton")
    assert text.wordWrap()  # a paragraph, not one line running off a 1280 px window
    assert "one bar per block" in text.text()
    assert sample_path() is not None  # the sample ships in resources
    assert button.isVisible() and "H100" in button.text()
    button.click()
    assert opened == [1]
    # The text sits above the button, both at the top: the stretch goes under them.
    assert text.geometry().top() < button.geometry().top() < widget.height() // 2
