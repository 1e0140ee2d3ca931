"""File → Open of a record, and the Schedule tab's Open…, given files a careless or malicious
user might pick (issue 24, items 2 and 8): a pipe, a crafted launch. Each is refused in a dialog
(or the tab's message) in words, at once; the window is never left at "Opening…"."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
from PySide6.QtWidgets import QMessageBox
from qt_helpers import RUN_TIMEOUT_MS

from simtviz.gui import create_main_window


@pytest.fixture
def window(qtbot):
    w = create_main_window(backend="sim")
    qtbot.addWidget(w)
    yield w
    w.close()


def record_arrays(grid: list[int], block: list[int]) -> dict[str, np.ndarray]:
    """Every key a record has, for a 1-row window; only the launch is what the test varies."""
    names = {"threadIdx": 3, "blockIdx": 3, "grid2": 2, "grid3": 3}
    arrays = {n: np.zeros((1, w), np.int32) for n, w in names.items()}
    for n in ("grid1", "laneid", "warp", "smid", "t_ns"):
        arrays[n] = np.zeros(1, np.int64)
    arrays.update(
        gridDim=np.array(grid), blockDim=np.array(block), backend=np.array("sim"),
        window_origin=np.zeros(3, np.int64), window_size=np.ones(3, np.int64),
    )  # fmt: skip
    return arrays


def dialog_text(qtbot) -> str:
    def box():
        return next((b for b in qtbot_boxes() if b.objectName() == "openErrorDialog"), None)

    qtbot.waitUntil(lambda: box() is not None, timeout=RUN_TIMEOUT_MS)
    b = box()
    text = b.text()
    b.close()
    b.deleteLater()
    return text


def qtbot_boxes():
    from PySide6.QtWidgets import QApplication

    return [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]


@pytest.mark.parametrize(
    ("grid", "block", "words"),
    [
        ([0, 1, 1], [32, 1, 1], "gridDim.x is 0"),
        ([1 << 62, 1, 1], [32, 1, 1], "4,611,686,018,427,387,904"),
        ([1, 1, 1], [2048, 1, 1], "2,048 threads"),
    ],
)
def test_a_crafted_launch_is_refused_in_a_dialog(qtbot, window, tmp_path, grid, block, words) -> None:
    path = tmp_path / "crafted.npz"
    np.savez(path, **record_arrays(grid, block))
    assert window.open_record(path)
    assert words in dialog_text(qtbot)
    qtbot.waitUntil(lambda: not window.busy, timeout=RUN_TIMEOUT_MS)
    assert window.session.opened_from is None  # nothing half-shown


def test_a_fifo_named_npz_is_refused_at_once(qtbot, window, tmp_path) -> None:
    fifo = tmp_path / "r.npz"
    os.mkfifo(fifo)
    started = time.monotonic()
    assert window.open_record(fifo)
    assert "is a pipe" in dialog_text(qtbot)
    qtbot.waitUntil(lambda: not window.busy, timeout=5000)
    assert time.monotonic() - started < 5


def test_the_schedule_tab_says_a_refused_file_in_words(qtbot, tmp_path) -> None:
    from simtviz.qt.tabs.schedule.view import ScheduleView

    view = ScheduleView()
    qtbot.addWidget(view)
    fifo = tmp_path / "f.npz"
    os.mkfifo(fifo)
    assert view.open_file(fifo) is False
    assert "is a pipe" in view.scheduleMessage.text()
