"""A launch over the recording budget runs in full, records only its window, says so, and the window moves."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDoubleSpinBox, QLabel, QPushButton, QSpinBox, QWidget
from qt_helpers import RUN_TIMEOUT_MS

from simtviz.core.launch import LaunchConfig
from simtviz.core.oracle import CHECKED_FIELDS, expected_field
from simtviz.core.window import Window
from simtviz.qt.settings import APP_BUDGET_THREADS, load_settings


def assert_records_window(recording, window: Window) -> None:
    assert recording.window == window
    assert recording.threads == window.threads
    assert recording.verification is not None and recording.verification.ok, recording.verification
    for name in CHECKED_FIELDS:
        np.testing.assert_array_equal(
            recording.fields[name], expected_field(name, recording.config, window), err_msg=name
        )


def click_and_wait(qtbot, w, name: str, previous) -> object:
    button = w.findChild(QPushButton, name)
    assert button.isEnabled(), name
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: w.recording is not previous and not w.busy, timeout=RUN_TIMEOUT_MS)
    return w.recording


def test_budget_is_a_setting_with_a_laptop_default(qtbot, window, settings_file) -> None:
    spin = window.findChild(QSpinBox, "budgetThreads")
    assert spin.value() == APP_BUDGET_THREADS == 1 << 22
    assert "MiB" in window.findChild(QLabel, "budgetNote").text()
    window.set_budget_threads(1000)
    window.close()
    assert load_settings(settings_file)[0].budget_threads == 1000


def test_1d_launch_over_the_budget_records_whole_blocks_of_the_window_and_moves(
    qtbot, window, run_launch
) -> None:
    window.set_budget_threads(64)
    config = LaunchConfig.of((8, 1, 1), (32, 1, 1))  # 256 threads, budget 64: two blocks recorded
    recording = run_launch((8, 1, 1), (32, 1, 1))
    assert_records_window(recording, Window((0, 0, 0), (64, 1, 1)))
    message = window.findChild(QLabel, "windowMessage")
    assert message.isVisible()
    assert "recording 64 of 256 threads: window x 0–63" in message.text()
    assert "Recording 64 of 256 threads: window x 0–63" in window.statusBar().currentMessage()
    image = window.findChild(QWidget, "indexMap").current_image()
    assert image.shape == (2, 32)  # one row per recorded block
    np.testing.assert_array_equal(image.ravel(), np.arange(64))

    assert not window.findChild(QPushButton, "windowUp").isEnabled()  # already at the start
    recording = click_and_wait(qtbot, window, "windowDown", recording)
    assert_records_window(recording, Window((64, 0, 0), (64, 1, 1)))
    assert "window x 64–127" in message.text()
    assert window.findChild(QDoubleSpinBox, "windowX").value() == 64
    np.testing.assert_array_equal(window.indexMap.current_image().ravel(), np.arange(64, 128))

    # An origin typed in the middle of a block snaps to the block's start.
    window.findChild(QDoubleSpinBox, "windowX").setValue(200)
    recording = click_and_wait(qtbot, window, "windowRecordButton", recording)
    assert_records_window(recording, Window((192, 0, 0), (64, 1, 1)))
    assert not window.findChild(QPushButton, "windowDown").isEnabled()  # the last blocks
    assert config == recording.config


def test_2d_launch_over_the_budget_records_the_window_and_moves_both_ways(qtbot, window, run_launch) -> None:
    window.set_budget_threads(256)
    recording = run_launch((4, 4, 1), (8, 8, 1))  # 32 × 32 threads, budget 16 × 16
    assert_records_window(recording, Window((0, 0, 0), (16, 16, 1)))
    assert "recording 256 of 1,024 threads: window x 0–15, y 0–15" in window.indexMapTab.windowMessage.text()
    recording = click_and_wait(qtbot, window, "windowDown", recording)
    assert_records_window(recording, Window((0, 16, 0), (16, 16, 1)))
    recording = click_and_wait(qtbot, window, "windowRight", recording)
    assert_records_window(recording, Window((16, 16, 0), (16, 16, 1)))
    assert "window x 16–31, y 16–31" in window.indexMapTab.windowMessage.text()
    # The map is drawn at the window's place: row 0 of the image is global y 16.
    image = window.indexMap.current_image()
    np.testing.assert_array_equal(image[0], np.arange(16, 32) + 16 * 32)

    # Within the budget again: the whole launch records and the message goes away.
    window.set_budget_threads(1 << 22)
    window.launchPanel.spins["gridX"].setValue(2)  # a new launch starts from its origin
    assert window.windowPanel.origin() == (0, 0, 0)
    recording = click_and_wait(qtbot, window, "runButton", recording)
    assert recording.window.covers(recording.config)
    assert not window.indexMapTab.windowMessage.isVisible()


def test_window_origin_reaches_past_int32_on_the_widest_1d_launch(qtbot) -> None:
    from simtviz.core.launch import LaunchConfig
    from simtviz.core.window import choose_window
    from simtviz.qt.tabs.index_map.window import RecordingWindowPanel

    panel = RecordingWindowPanel(1 << 20)
    qtbot.addWidget(panel)
    config = LaunchConfig.of(2**31 - 1, 1024)  # x reaches 2,199,023,254,527
    far = 2**40 + 5 * 1024
    panel.set_origin((far, 0, 0))
    assert panel.origin() == (far, 0, 0)  # not clamped to 2^31 - 1
    window = choose_window(config, 1 << 20, panel.origin())
    assert window.origin[0] == far  # a block boundary, inside the launch
