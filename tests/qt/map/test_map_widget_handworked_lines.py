"""The index map widget, worked out by hand line by line, on non-square maps: which cell a point
is, where the pin and the block borders go, the axes' bounds and ticks, the tiled captions and
title, the colours of ids and of unknown values, and the sizes presentation mode gives.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QLabel

from simtviz.core.launch import LaunchConfig
from simtviz.core.oracle import RECORD_FIELDS, expected_field
from simtviz.core.recording import Recording
from simtviz.core.window import Window
from simtviz.qt.map import Cell, IndexMap
from simtviz.qt.map.colours import CATEGORICAL, categorical_color, colorize, light_text_mask
from simtviz.qt.map.items import CellTextItem, IntegerAxis
from simtviz.qt.theme import PALETTES

WIDE = LaunchConfig.of((3, 5, 1), (48, 2, 1))  # 144 columns × 10 rows


def recording(config: LaunchConfig, window: Window | None = None) -> Recording:
    window = window or Window.full(config)
    fields = {n: expected_field(n, config, window) for n in RECORD_FIELDS if n not in ("smid", "t_ns")}
    n = window.threads
    fields["smid"] = np.full(n, -1, dtype=np.int32)
    fields["t_ns"] = np.full(n, -1, dtype=np.int64)
    return Recording(config, window, fields, "sim")


@pytest.fixture
def index_map(qtbot) -> IndexMap:
    widget = IndexMap()
    qtbot.addWidget(widget)
    widget.resize(900, 500)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


# --- cells under a point -------------------------------------------------------------------------
def test_a_point_is_the_cell_of_its_column_and_row(index_map: IndexMap) -> None:
    index_map.set_recording(recording(WIDE))
    assert index_map.current_image().shape == (10, 144)
    # Cell (r, c) is centred on view (c, r): x 50.2, y 3.4 is row 3, column 50.
    assert index_map.cell_at(50.2, 3.4) == Cell(0, 3, 50)
    assert index_map.cell_at(143.4, 9.4) == Cell(0, 9, 143)  # the last column and row
    assert index_map.cell_at(143.6, 0) is None  # past column 143
    assert index_map.cell_at(20, 9.6) is None  # past row 9
    assert index_map.cell_at(-0.6, 0) is None


def test_a_cells_place_in_the_widget_runs_x_across_and_y_down(index_map: IndexMap) -> None:
    index_map.set_recording(recording(WIDE))
    right, low = index_map.cell_view_pos(Cell(0, 0, 100)), index_map.cell_view_pos(Cell(0, 9, 0))
    assert right.x() > low.x() and right.y() < low.y()


def test_the_tooltip_gives_the_hovered_cells_own_value(index_map: IndexMap) -> None:
    index_map.set_recording(recording(WIDE))
    # Global linear index of row 3, column 50: 3 × 144 + 50 = 482.
    text = index_map.hover(Cell(0, 3, 50))
    assert "482" in text
    assert "483" not in text and "432" not in text


def test_only_a_left_click_pins(index_map: IndexMap) -> None:
    index_map.set_recording(recording(WIDE))
    scene = index_map.plot.vb.mapViewToScene(QPointF(50, 3))

    class Click:
        def __init__(self, button):
            self._button = button

        def button(self):
            return self._button

        def scenePos(self):
            return scene

    index_map.cells.on_mouse_clicked(Click(Qt.MouseButton.RightButton))
    assert index_map.pinned() is None
    index_map.cells.on_mouse_clicked(Click(Qt.MouseButton.LeftButton))
    assert index_map.pinned() == Cell(0, 3, 50)


# --- pin, borders, axes --------------------------------------------------------------------------
def test_the_pin_outlines_its_column_and_row(index_map: IndexMap) -> None:
    index_map.set_recording(recording(WIDE))
    index_map.pin(Cell(0, 3, 50))
    rect = index_map._selection.rect()
    assert (rect.x(), rect.y(), rect.width(), rect.height()) == (49.5, 2.5, 1.0, 1.0)
    xs, ys = index_map._pinMarker.getData()
    assert (float(xs[0]), float(ys[0])) == (50.0, 3.0)


def test_block_borders_follow_a_windows_origin_in_x_and_y(index_map: IndexMap) -> None:
    # Blocks 48 wide, 2 high; a window from x 5, y 3: the next block edge in x is 48 − 5 = 43 cells in,
    # in y it is 2 − 3 % 2 = 1 row in.
    config = LaunchConfig.of((3, 5, 1), (48, 2, 1))
    index_map.set_recording(recording(config, Window((5, 3, 0), (96, 4, 1))))
    borders = index_map._tiles[0].borders
    assert borders._x == (48.0, 43.0)
    assert borders._y == (2.0, 1.0)


def test_a_1d_map_has_a_border_between_every_two_rows(index_map: IndexMap) -> None:
    index_map.set_recording(recording(LaunchConfig.of((4, 1, 1), (48, 1, 1))))  # 4 rows × 48
    borders = index_map._tiles[0].borders
    assert borders._x == (48.0, 0.0)
    assert borders._y == (1.0, 0.0)


def test_the_axes_tick_only_the_maps_columns_and_rows(index_map: IndexMap) -> None:
    index_map.set_recording(recording(WIDE, Window((5, 3, 0), (96, 4, 1))))
    # x 5 … 5 + 96 − 1 = 100, y 3 … 3 + 4 − 1 = 6.
    assert index_map.plot.getAxis("bottom").bounds == (5, 100)
    assert index_map.plot.getAxis("left").bounds == (3, 6)


def test_an_integer_axis_ticks_its_first_and_last_row() -> None:
    axis = IntegerAxis("left")
    axis.set_bounds(0, 9)
    values = sorted(v for _spacing, vs in axis.tickValues(-3, 12, 600) for v in vs)
    assert values[0] == 0 and values[-1] == 9
    assert axis.tickStrings([2.0, 10.0], 1.0, 1.0) == ["2", "10"]


def test_value_text_has_room_for_a_minus_sign(qtbot) -> None:
    item = CellTextItem()
    item.set_data(np.array([[-12, 7]]), np.zeros((1, 2, 4), dtype=np.uint8), (0.0, 0.0))
    assert item._digits == 3  # "-12"
    item.set_data(np.array([[12, 7]]), np.zeros((1, 2, 4), dtype=np.uint8), (0.0, 0.0))
    assert item._digits == 2


# --- 3-D: planes, tiles, captions, title ---------------------------------------------------------
CUBE = LaunchConfig.of((3, 1, 3), (48, 2, 2))  # x 0 … 143, y 0 … 1, z 0 … 5


def test_a_plane_past_the_last_is_refused(index_map: IndexMap) -> None:
    index_map.set_recording(recording(CUBE, Window((0, 0, 4), (144, 2, 2))))
    index_map.set_plane(1)
    with pytest.raises(IndexError):
        index_map.set_plane(2)


def test_the_title_names_the_z_of_the_window_untiled_only(index_map: IndexMap) -> None:
    index_map.set_recording(recording(CUBE, Window((0, 0, 4), (144, 2, 2))))
    index_map.set_plane(1)  # z = 4 + 1 = 5
    title = index_map.labels.title()
    assert (
        title
        == "kernel[(3, 1, 3), (48, 2, 2)] — global linear index — z = 5<br>ran on the CUDA simulator (CPU)"
    )
    index_map.set_tiled(True)
    assert " — z = " not in index_map.labels.title()


def test_tiled_captions_and_their_block_and_thread_z(index_map: IndexMap) -> None:
    index_map.set_recording(recording(CUBE, Window((0, 0, 4), (144, 2, 2))))
    index_map.set_tiled(True)
    captions = [t.caption for t in index_map._tiles]
    # z 4: blockIdx.z 4 // 2 = 2, threadIdx.z 4 % 2 = 0; z 5: 2 and 1.
    assert [c.textItem.toPlainText() for c in captions] == ["z = 4", "z = 5"]
    assert [c.toolTip() for c in captions] == [
        "z = 4: blockIdx.z 2, threadIdx.z 0",
        "z = 5: blockIdx.z 2, threadIdx.z 1",
    ]
    assert index_map.plot.getAxis("left").labelText == "y"
    assert index_map.plot.getAxis("bottom").labelText == "each tile: x = cuda.grid(3)[0], y = cuda.grid(3)[1]"


def test_tiled_ticks_count_from_the_windows_x_and_y(index_map: IndexMap) -> None:
    # A window from x 5, y 1 of 20 × 1 threads: each tile's x ticks say 5 and 24, its y tick 1.
    index_map.set_recording(recording(CUBE, Window((5, 1, 0), (20, 1, 2))))
    index_map.set_tiled(True)
    bottom = index_map.plot.getAxis("bottom")._tickLevels[0]
    left = index_map.plot.getAxis("left")._tickLevels[0]
    assert [label for _, label in bottom][:2] == ["5", "24"]
    assert {label for _, label in left} == {"1"}


def test_an_untiled_3d_map_reads_grid3(index_map: IndexMap) -> None:
    index_map.set_recording(recording(CUBE))
    assert index_map.plot.getAxis("bottom").labelText == "x = cuda.grid(3)[0]"
    assert index_map.plot.getAxis("left").labelText == "y = cuda.grid(3)[1]"


def test_the_tiled_legend_lists_every_planes_ids(index_map: IndexMap) -> None:
    # Blocks of 48 × 2 × 2 = 192 threads: warps 0 … 5; z-plane 0 holds warps 0 … 2, plane 1 warps 3 … 5.
    index_map.set_recording(recording(LaunchConfig.of((1, 1, 1), (48, 2, 2))))
    index_map.set_color_field("warp")
    index_map.set_tiled(True)
    lines = index_map.legend.text.split("<br>")
    assert lines[-1].endswith("</span> 5")
    assert len(lines) == 1 + 6  # the field's name, then warps 0 … 5


# --- colour bar, legend, placeholder, message ----------------------------------------------------
def test_continuous_values_get_the_colour_bar_ids_the_legend(index_map: IndexMap) -> None:
    assert index_map._placeholder.textItem.toPlainText() == "Press Run to launch the kernel"
    index_map.set_recording(recording(WIDE))
    assert not index_map._placeholder.isVisible()
    assert index_map.colorBar.isVisible() and not index_map.legend.isVisible()
    index_map.set_color_field("blockIdx.y")
    assert not index_map.colorBar.isVisible() and index_map.legend.isVisible()


def test_a_gpu_only_field_on_the_simulator_says_every_thread_is_unknown(index_map: IndexMap) -> None:
    index_map.set_recording(recording(WIDE))
    assert index_map.message.isHidden()
    index_map.set_color_field("SM")
    assert not index_map.message.isHidden()
    assert "“SM” is recorded only on a GPU" in index_map.message.text()
    assert not index_map.legend.isVisible()  # no id to list


def test_an_elongated_map_says_which_part_it_opens_on(index_map: IndexMap) -> None:
    index_map.set_recording(recording(LaunchConfig.of((256, 1, 1), (32, 32, 1))))  # 8,192 × 32
    assert index_map.seeAllButton.isVisibleTo(index_map)
    tip = index_map.seeAllButton.toolTip()
    assert tip.startswith("Showing the first ") and tip.endswith(
        " of 8,192 columns; See all stretches the whole map to the view"
    )
    index_map.show_all()
    assert index_map.is_stretched() and not index_map.plot.vb.state["aspectLocked"]
    index_map.fit()
    assert not index_map.is_stretched() and index_map.plot.vb.state["aspectLocked"]


# --- colours -------------------------------------------------------------------------------------
def test_unknown_values_are_grey_both_ways() -> None:
    values = np.array([[-1, 0]])
    assert tuple(colorize(values, True, (0, 1))[0, 0]) == (150, 150, 150, 255)
    assert tuple(colorize(values, False, (0, 1))[0, 0]) == (150, 150, 150, 255)
    assert categorical_color(-1, (0, 1)) == (150, 150, 150)


def test_the_lowest_id_shown_gets_the_first_colour() -> None:
    # Ids 3 … 10 shown: id 5 is the third colour, as the legend says.
    assert categorical_color(5, (3, 10)) == tuple(int(c) for c in CATEGORICAL[2])
    assert tuple(colorize(np.array([[5]]), True, (3, 10))[0, 0, :3]) == tuple(int(c) for c in CATEGORICAL[2])


def test_white_text_on_dark_cells_only() -> None:
    rgb = np.array([[[0, 0, 0], [255, 255, 255], [140, 140, 140], [139, 139, 139]]])
    # Luminance of grey g is g: 140 is not below 140 (black text), 139 is (white).
    assert light_text_mask(rgb).tolist() == [[True, False, False, True]]


# --- presentation sizes and the bar --------------------------------------------------------------
def test_presentation_mode_makes_marks_and_words_bigger(index_map: IndexMap) -> None:
    index_map.set_recording(recording(CUBE))
    index_map.set_color_field("warp")  # ids: the legend shows
    index_map.set_tiled(True)
    index_map.pin(Cell(0, 0, 0))
    light = PALETTES["light"]
    index_map.apply_style(light, False)
    assert index_map.pin_marker()[:2] == (22.0, 3.0)
    assert index_map._selection.pen().width() == 4
    assert index_map._tiles[0].borders.pen.width() == 2
    assert index_map._tiles[0].caption.textItem.font().pointSize() == 10
    assert index_map.colorBar.getAxis("right").fixedWidth == 60
    assert index_map.plot.getAxis("left").labelStyle["font-size"] == "12pt"
    assert index_map.legend.opts["size"] == "10pt"
    assert index_map.plot.getAxis("bottom").style["tickFont"].pointSize() == 10
    index_map.apply_style(light, True)
    assert index_map.pin_marker()[:2] == (44.0, 6.0)
    assert index_map._selection.pen().width() == 6
    assert index_map._tiles[0].borders.pen.width() == 3
    assert index_map._tiles[0].caption.textItem.font().pointSize() == 14
    assert index_map.colorBar.getAxis("right").fixedWidth == 110
    assert index_map.plot.getAxis("left").labelStyle["font-size"] == "16pt"
    assert index_map.legend.opts["size"] == "15pt"
    assert index_map.plot.getAxis("bottom").style["tickFont"].pointSize() == 18


def test_the_badge_sits_left_of_fit_and_gpu_fields_say_so(index_map: IndexMap) -> None:
    badge = QLabel("CUDA simulator")
    index_map.set_badge(badge)
    bar = index_map.controls._bar
    assert bar.indexOf(badge) < bar.indexOf(index_map.fitButton)
    combo = index_map.colorBy
    sm = combo.findText("SM")
    assert combo.itemData(sm, Qt.ItemDataRole.ToolTipRole) == "recorded on a GPU only"
    assert combo.itemData(combo.findText("warp"), Qt.ItemDataRole.ToolTipRole) is None
    assert index_map.tiledCheck.text() == "All z-planes"
    assert index_map.fitButton.toolTip() == "Back to the first view of the map (Ctrl+0)"


def test_the_image_covers_the_maps_columns_across_and_rows_down(index_map: IndexMap) -> None:
    index_map.set_recording(recording(WIDE, Window((5, 3, 0), (96, 4, 1))))
    image = index_map._tiles[0].image
    rect = image.mapRectToParent(image.boundingRect())
    # 96 columns from x 5 − 0.5, 4 rows from y 3 − 0.5.
    assert (rect.x(), rect.y(), rect.width(), rect.height()) == (4.5, 2.5, 96.0, 4.0)


def test_pinning_a_cell_of_another_plane_shows_that_plane(index_map: IndexMap) -> None:
    index_map.set_recording(recording(CUBE, Window((0, 0, 4), (144, 2, 2))))
    assert index_map.plane() == 0
    index_map.pin(Cell(1, 1, 7))
    assert index_map.plane() == 1
    assert index_map.zLabel.text() == "z = 5  (blockIdx.z 2, threadIdx.z 1)"  # 4 + 1; 5 // 2, 5 % 2
    assert index_map.pinned() == Cell(1, 1, 7)


def test_a_point_in_a_window_counts_rows_from_its_y_and_columns_from_its_x(index_map: IndexMap) -> None:
    index_map.set_recording(recording(WIDE, Window((5, 3, 0), (96, 4, 1))))
    # View x 55.2 is column 55.2 − 5 → 50; y 5.4 is row 5.4 − 3 → 2.
    assert index_map.cell_at(55.2, 5.4) == Cell(0, 2, 50)
    assert index_map.cell_at(4.4, 5.4) is None  # left of x 5
    assert index_map.cell_at(55.2, 2.4) is None  # above y 3


def test_going_to_a_cell_off_screen_centres_the_view_on_it(index_map: IndexMap) -> None:
    index_map.set_recording(recording(LaunchConfig.of((256, 1, 1), (32, 32, 1))))  # 8,192 × 32
    assert not index_map.plot.vb.viewRect().contains(QPointF(8000, 10))  # opened on its start
    index_map.pin(Cell(0, 10, 8000))
    view = index_map.plot.vb.viewRect()
    assert view.contains(QPointF(8000, 10))
    assert abs(view.center().x() - 8000) < 1 and abs(view.center().y() - 10) < 1


def test_block_edges_in_view_from_the_first_one_in() -> None:
    from simtviz.qt.map.items import BlockBorderItem

    # A tile's left edge at −0.5, blocks 48 wide, the first edge 43 cells in: −0.5 + 43 = 42.5, then 90.5;
    # 138.5 is past 100.
    assert BlockBorderItem._edges(0, 100, -0.5, 48, 43).tolist() == [42.5, 90.5]
    assert BlockBorderItem._edges(42.5, 90.5, -0.5, 48, 43).tolist() == [42.5, 90.5]  # both ends count
    assert BlockBorderItem._edges(43, 90, -0.5, 48, 43).tolist() == []


def test_integer_axis_spacings_are_whole_rows() -> None:
    axis = IntegerAxis("bottom")
    spacings = [s for s, _offset in axis.tickSpacing(0, 3, 2000)]
    assert spacings and all(s >= 1 and s == int(s) for s in spacings)


def test_the_first_ten_id_colours_are_tab10_and_all_48_differ() -> None:
    from simtviz.qt.map.colours import TAB10

    assert CATEGORICAL.shape == (48, 3)
    assert (CATEGORICAL[:10] == TAB10).all()
    assert tuple(int(c) for c in CATEGORICAL[1]) == (255, 127, 14)  # id 1 is orange
    assert len({tuple(c) for c in CATEGORICAL.tolist()}) == 48


def test_the_z_controls_show_for_3d_launches_and_drive_the_map(index_map: IndexMap) -> None:
    index_map.set_recording(recording(WIDE))
    assert index_map.zSlice.isHidden() and index_map.tiledCheck.isHidden()
    index_map.set_recording(recording(CUBE, Window((0, 0, 3), (144, 2, 3))))  # z 3, 4, 5
    assert not index_map.zSlice.isHidden() and not index_map.tiledCheck.isHidden()
    assert (index_map.zSlice.minimum(), index_map.zSlice.maximum()) == (0, 2)
    index_map.zSlice.setValue(2)
    assert index_map.plane() == 2
    assert index_map.zLabel.text() == "z = 5  (blockIdx.z 2, threadIdx.z 1)"  # 3 + 2; 5 // 2, 5 % 2
    index_map.set_plane(1)
    assert index_map.zSlice.value() == 1
    index_map.tiledCheck.setChecked(True)
    assert index_map.is_tiled()
    index_map.colorBy.setCurrentText("lane")
    assert index_map.color_field() == "lane"
    with pytest.raises(KeyError):
        index_map.set_color_field("lanes")


def test_untiled_again_the_axes_tick_on_their_own(index_map: IndexMap) -> None:
    index_map.set_recording(recording(CUBE, Window((5, 1, 0), (20, 1, 2))))
    index_map.set_tiled(True)
    assert index_map.plot.getAxis("bottom")._tickLevels is not None
    index_map.set_tiled(False)
    assert index_map.plot.getAxis("bottom")._tickLevels is None
    assert index_map.plot.getAxis("left")._tickLevels is None
    assert index_map.plot.getAxis("bottom").labelText == "x = cuda.grid(3)[0]"


def test_fit_keeps_the_tiled_captions_above_the_first_tiles_in_view(index_map: IndexMap) -> None:
    # Three tall z-planes of 40 rows × 2 columns: at least max(2, ⌈40 × 0.5⌉) = 20 rows of room above
    # the tiles' top edge at y −0.5, so the view starts at y −20.5 or higher up.
    index_map.set_recording(recording(LaunchConfig.of((1, 20, 3), (2, 2, 1))))
    index_map.set_tiled(True)
    index_map.fit()
    view = index_map.plot.vb.viewRect()
    assert view.top() <= -20.5
    for tile in index_map._tiles:
        assert view.contains(QPointF(tile.origin[0] + 1, tile.origin[1] + 39))  # each tile's last cell


def test_hover_text_comes_and_goes_with_the_cell(index_map: IndexMap) -> None:
    index_map.set_recording(recording(WIDE))
    texts: list[str] = []
    hovered: list[Cell | None] = []
    index_map.tooltipChanged.connect(texts.append)
    index_map.cellHovered.connect(hovered.append)
    index_map.hover(Cell(0, 9, 143))
    index_map.hover(None)
    # 9 × 144 + 143 = 1439, the last thread: threadIdx (143 % 48, 9 % 2) = (47, 1), blockIdx (2, 4).
    assert texts[0].startswith(
        "<b>global linear index = 1439</b><br>threadIdx = (47, 1, 0)<br>blockIdx = (2, 4, 0)"
    )
    assert texts[-1] == "" and index_map.tooltip() == ""
    assert hovered == [Cell(0, 9, 143), None]


def test_stretched_block_borders_are_drawn_only_along_the_axis_they_fit(index_map: IndexMap) -> None:
    # 8,192 × 32 threads in blocks of 32 × 32, stretched: 8,192 columns in < 900 px put block edges
    # 32 × < 0.11 px < 4 px apart (not drawn); 32 rows in a few hundred px put them far apart (drawn).
    index_map.set_recording(recording(LaunchConfig.of((256, 1, 1), (32, 32, 1))))
    index_map.show_all()
    index_map.view.grab()  # paints
    assert index_map._tiles[0].borders.last_resolved == (False, True)
