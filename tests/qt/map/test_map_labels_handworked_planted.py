"""The index map's axis labels, by hand: columns run along x (the bottom axis), rows along y (the
left axis), as cuda.grid numbers them; a 1-D launch is one row per block."""

from __future__ import annotations

import pytest

from simtviz.core.launch import LaunchConfig
from simtviz.core.oracle import expected_field
from simtviz.core.recording import Recording
from simtviz.core.window import Window
from simtviz.qt.map import IndexMap


def recording(grid: tuple[int, int], block: tuple[int, int]) -> Recording:
    config = LaunchConfig.of(grid, block)
    window = Window.full(config)
    names = ("threadIdx", "blockIdx", "grid1", "grid2", "grid3", "laneid", "warp")
    fields = {n: expected_field(n, config, window) for n in names}
    return Recording(config, window, fields, "sim")


@pytest.fixture
def index_map(qtbot) -> IndexMap:
    widget = IndexMap()
    qtbot.addWidget(widget)
    return widget


def test_a_2d_map_puts_x_along_the_bottom_and_y_down_the_side(index_map: IndexMap) -> None:
    # 3 × 2 blocks of 8 × 4: 24 columns (x) by 8 rows (y); a 2-D launch reads cuda.grid(2).
    index_map.set_recording(recording((3, 2), (8, 4)))
    assert index_map.current_image().shape == (8, 24)
    assert index_map.plot.getAxis("bottom").labelText == "x = cuda.grid(2)[0]"
    assert index_map.plot.getAxis("left").labelText == "y = cuda.grid(2)[1]"


def test_a_1d_map_is_one_row_per_block(index_map: IndexMap) -> None:
    index_map.set_recording(recording((4, 1), (32, 1)))
    assert index_map.plot.getAxis("bottom").labelText == "threadIdx.x"
    assert index_map.plot.getAxis("left").labelText == "blockIdx.x (one row per block)"
