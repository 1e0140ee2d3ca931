"""The index map against the oracle: what the window draws is what the threads recorded."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QSlider, QWidget

from simtviz.core.launch import LaunchConfig
from simtviz.core.oracle import expected_field
from simtviz.core.window import Window
from simtviz.qt.map import Cell


def _oracle_linear(config: LaunchConfig) -> np.ndarray:
    """Global linear index of every thread, laid out as CONTRACT.md's map: (planes, rows, cols)."""
    window = Window.full(config)
    g = expected_field("grid3", config, window)
    ex, ey, ez = config.extent
    linear = g[:, 0] + g[:, 1] * ex + g[:, 2] * ex * ey
    return linear.reshape(ez, ey, ex)


def test_2d_run_draws_oracle_map_and_color_by_changes_it(qtbot, window, run_launch) -> None:
    recording = run_launch((4, 3, 1), (8, 4, 1))
    index_map = window.findChild(QWidget, "indexMap")
    combo = window.findChild(QComboBox, "colorBy")
    combo.setCurrentText("global linear index")
    image = index_map.current_image()
    assert image.shape == (12, 32)
    np.testing.assert_array_equal(image, _oracle_linear(recording.config)[0])
    assert window.indexMapTab.verificationLabel.text() == "384 of 384 threads match"

    combo.setCurrentText("blockIdx.x")
    block_x = index_map.current_image()
    assert not np.array_equal(block_x, image)
    np.testing.assert_array_equal(block_x, np.repeat(np.arange(4), 8)[None, :].repeat(12, axis=0))
    combo.setCurrentText("threadIdx.y")
    np.testing.assert_array_equal(index_map.current_image()[:, 0], np.arange(12) % 4)
    for name in ("warp", "lane", "blockIdx.y", "threadIdx.x", "block linear id", "SM"):
        combo.setCurrentText(name)
        assert index_map.current_image().shape == (12, 32)


def test_1d_run_is_one_row_per_block(qtbot, window, run_launch) -> None:
    run_launch((3, 1, 1), (40, 1, 1))
    index_map = window.findChild(QWidget, "indexMap")
    window.findChild(QComboBox, "colorBy").setCurrentText("global linear index")
    np.testing.assert_array_equal(index_map.current_image(), np.arange(120).reshape(3, 40))
    window.findChild(QComboBox, "colorBy").setCurrentText("warp")
    np.testing.assert_array_equal(index_map.current_image()[0], np.arange(40) // 32)


def test_3d_slice_control_selects_each_plane(qtbot, window, run_launch) -> None:
    recording = run_launch((2, 2, 2), (4, 4, 2))
    index_map = window.findChild(QWidget, "indexMap")
    window.findChild(QComboBox, "colorBy").setCurrentText("global linear index")
    slider = window.findChild(QSlider, "zSlice")
    assert slider.isVisible()
    assert slider.maximum() == 3
    oracle = _oracle_linear(recording.config)
    for z in range(4):
        slider.setValue(z)
        assert index_map.plane() == z
        np.testing.assert_array_equal(index_map.current_image(), oracle[z])
    window.findChild(QComboBox, "colorBy").setCurrentText("threadIdx.z")
    for z in range(4):
        slider.setValue(z)
        assert (index_map.current_image() == z % 2).all()

    # Tiled: every plane drawn; the slider still picks the plane current_image() returns.
    window.findChild(QCheckBox, "tiledCheck").setChecked(True)
    assert len(index_map._tiles) == 4
    slider.setValue(2)
    assert (index_map.current_image() == 0).all()
    # Clicking a cell of another tile selects that plane.
    qtbot.mouseClick(
        index_map.view.viewport(), Qt.MouseButton.LeftButton, pos=index_map.cell_view_pos(Cell(3, 1, 2))
    )
    assert index_map.plane() == 3
    assert index_map.pinned() == Cell(3, 1, 2)


def test_hover_and_click_show_thread_in_inspector(qtbot, window, run_launch) -> None:
    recording = run_launch((4, 3, 1), (8, 4, 1))
    index_map = window.findChild(QWidget, "indexMap")
    inspector = window.findChild(QWidget, "threadInspector")
    # Row 1, column 19: threadIdx (3, 1, 0), blockIdx (2, 0, 0).
    nudge = iter(range(10**6))

    def hovered() -> bool:
        # The view may still settle its range after the first draw: aim again on every try
        # (a pixel to the side each time, so that each try is a real mouse move).
        target = index_map.cell_view_pos(Cell(0, 1, 19))
        qtbot.mouseMove(index_map.view.viewport(), target + QPoint(next(nudge) % 2, 0))
        return "threadIdx = (3, 1, 0)" in index_map.tooltip()

    qtbot.waitUntil(hovered)
    pos = index_map.cell_view_pos(Cell(0, 1, 19))
    assert "blockIdx = (2, 0, 0)" in index_map.tooltip()

    qtbot.mouseClick(index_map.view.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    qtbot.waitUntil(lambda: inspector.row == recording.row_of(0, 1, 19))
    text = inspector.text()
    assert "(3, 1, 0)" in text and "(2, 0, 0)" in text
    assert "x = threadIdx.x + blockIdx.x * blockDim.x" in text
    assert "= 3 + 2 × 8 = 19" in text
    assert "y = threadIdx.y + blockIdx.y * blockDim.y" in text
    assert "= 1 + 0 × 4 = 1" in text
    assert "✗" not in text


def test_1d_inspector_formula_reads_like_the_chapter(qtbot, window, run_launch) -> None:
    from simtviz.core.formulas import formula_lines

    recording = run_launch((4, 1, 1), (8, 1, 1))
    row = recording.row_of(0, 2, 3)
    lines = formula_lines(recording.config, recording.thread_at(row))
    assert lines[0].startswith("idx = threadIdx.x + blockIdx.x * blockDim.x = 3 + 2 × 8 = 19")
    window.findChild(QWidget, "indexMap").pin(Cell(0, 2, 3))
    assert "= 3 + 2 × 8 = 19" in window.findChild(QWidget, "threadInspector").text()


def test_a_2048_square_map_draws_quickly_with_bounded_borders(qtbot) -> None:
    """4 million cells: no per-cell objects, borders only where the zoom resolves them."""
    import time

    from PySide6.QtCore import QRectF

    from simtviz.core.recording import Recording
    from simtviz.core.window import Window
    from simtviz.qt.map import MIN_BORDER_SPACING_PX, IndexMap

    config = LaunchConfig.of((256, 256, 1), (8, 8, 1))
    window = Window.full(config)
    fields = {name: expected_field(name, config, window) for name in ("grid3", "blockIdx", "threadIdx")}
    rec = Recording(config, window, fields, "gpu:oracle")
    view = IndexMap()
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    qtbot.waitExposed(view)

    started = time.perf_counter()
    view.set_recording(rec)
    view.view.grab()
    elapsed = time.perf_counter() - started
    assert elapsed < 3.0, f"drawing 2048 × 2048 took {elapsed:.2f} s"
    assert view.current_image().shape == (2048, 2048)
    assert len(view.plot.items) < 20  # an image, text, borders: never one item per cell
    borders = view._tiles[0].borders
    # Fitted, 256 blocks across ~730 px (under 3 px each) are too close to draw: the outline only.
    assert borders.last_resolved == (False, False)
    assert borders.last_line_count <= 4 + (1200 + 800) / MIN_BORDER_SPACING_PX

    # Zoomed into 40 × 40 cells every block edge in view (one each 8 cells) is drawn.
    view.plot.vb.setRange(QRectF(99.5, 199.5, 40, 40), padding=0)
    view.view.grab()
    assert borders.last_resolved == (True, True)
    assert 4 + 2 * 4 <= borders.last_line_count <= 4 + 2 * 12  # the view is wider than 40 (aspect)
    view.set_color_field("blockIdx.x")
    view.plot.vb.setRange(QRectF(99.5, 199.5, 40, 40), padding=0)
    view.view.grab()
    assert view.current_image()[200, 100] == 100 // 8
