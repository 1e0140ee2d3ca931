"""What the Your kernel tab's widgets draw, read back from them: an array map's colours (viridis's
ends and middle, the grey, the red and the white padding), its axes, scale and outlines; the lines
table's headers and alignment; the arrays panel's controls; and the warp picture's lanes, sectors
and banks (its QPainter calls recorded with fixed font metrics, so every position is hand-worked)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPen

from hand_traces import Row, sites_of, traced
from simtviz.core.trace.analysis import ArrayInfo
from simtviz.core.trace.stats import LineStats, SharedLineStats
from simtviz.qt.tabs.kernel import views
from simtviz.qt.tabs.kernel.views import ArraysPanel, ArrayView, LinesTable, TraceData, WarpSectorsView

# viridis (pyqtgraph's, sampled 256 times): its first, 128th and last colour
VIRIDIS_0, VIRIDIS_127, VIRIDIS_255 = (68, 1, 84), (33, 144, 141), (253, 231, 37)
GREY, RED, WHITE = (215, 215, 215), (220, 30, 30), (255, 255, 255)


def _data(
    shape: tuple[int, ...],
    rows: list[tuple[int, str, int]],
    block: tuple[int, int, int] = (32, 1, 1),
    grid: tuple[int, int, int] = (1, 1, 1),
) -> TraceData:
    """A float32 array A of ``shape``: rows of (thread, kind, flat 1-D index)."""
    arrays = (ArrayInfo("A", shape, "float32"),)
    sites = sites_of(arrays, (5, "A", "load"), (6, "A", "store"), (7, "A", "atomic"))
    site = {"load": 0, "store": 1, "atomic": 2}
    log = [Row(t, site[kind], (e,)) for t, kind, e in rows]
    return TraceData(traced(grid, block, arrays, sites, log))


def _view(qtbot: Any) -> ArrayView:
    view = ArrayView(0)
    qtbot.addWidget(view)
    return view


def _pixels(view: ArrayView) -> list[list[tuple[int, ...]]]:
    image = view.image.image
    return [
        [tuple(int(v) for v in image[r, c]) for c in range(image.shape[1])] for r in range(image.shape[0])
    ]


def test_accesses_colour_viridis_from_fewest_to_most_grey_red_and_white_padding(qtbot: Any) -> None:
    # A (5,) in rows of 3 (2 rows, the last cell padding). Accesses: A[0] 1 (thread 0 stores),
    # A[1] 2 (thread 1 stores, loads), A[2] 3 (thread 2 stores, loads twice), A[3] none,
    # A[4] stored by threads 3 and 4 (two writers: red). Touched counts run 1..3: A[0] is
    # viridis's first colour, A[2] its last (index 255), A[1] (2 - 1) / (3 - 1) × 255 = 127.5 → 127.
    rows = [(0, "store", 0), (1, "store", 1), (1, "load", 1)]
    rows += [(2, "store", 2), (2, "load", 2), (2, "load", 2), (3, "store", 4), (4, "store", 4)]
    view = _view(qtbot)
    view.show_array(_data((5,), rows), "accesses", 3)
    assert _pixels(view) == [[VIRIDIS_0, VIRIDIS_127, VIRIDIS_255], [GREY, RED, WHITE]]
    # The image is drawn as is (levels 0..255) over cells (0, 0)..(3, 2): one unit per element.
    assert list(view.image.levels) == [0, 255]
    assert view.image.mapRectToParent(view.image.boundingRect()) == QRectF(0, 0, 3, 2)
    # Ticks only over the map: columns 0..2, rows 0..1; the scale labelled with the colouring.
    assert view.plot.getAxis("bottom").bounds == (0, 2)
    assert view.plot.getAxis("left").bounds == (0, 1)
    assert view.scale.getAxis("right").labelText == "accesses"
    assert tuple(view.scale.levels()) == (1.0, 3.0)
    assert view.plot.titleLabel.text == "A float32[5]"


def test_atomics_add_to_an_elements_accesses(qtbot: Any) -> None:
    # A (3,): A[0] 3 atomics (threads 0..2), A[1] 1 store, A[2] 1 load + 1 atomic = 2.
    # Counts 3, 1, 2: A[1] fewest (first colour), A[0] most (last), A[2] (2 - 1) / 2 × 255 → 127.
    rows = [(0, "atomic", 0), (1, "atomic", 0), (2, "atomic", 0), (3, "store", 1), (4, "load", 2)]
    rows += [(4, "atomic", 2)]
    view = _view(qtbot)
    view.show_array(_data((3,), rows), "accesses", 32)
    assert _pixels(view) == [[VIRIDIS_255, VIRIDIS_0, VIRIDIS_127]]


def test_one_access_each_is_one_colour_on_a_scale_of_1_to_2(qtbot: Any) -> None:
    # A (3,): each element stored once: nothing to spread, every element viridis's first colour,
    # and the scale shows 1 to 1 + 1 = 2 (not an empty range).
    view = _view(qtbot)
    view.show_array(_data((3,), [(0, "store", 0), (1, "store", 1), (2, "store", 2)]), "accesses", 32)
    assert _pixels(view) == [[VIRIDIS_0] * 3]
    assert tuple(view.scale.levels()) == (1.0, 2.0)


def test_last_thread_warp_and_block_colourings(qtbot: Any) -> None:
    # A (4,), blocks of 4 threads: thread 5 stores A[0], thread 7 loads A[1], thread 9 stores
    # A[2] (and thread 10 loads it: the writer counts), A[3] untouched.
    # By thread: 5, 7, 9 → first colour, (7 - 5) / 4 × 255 = 127.5 → 127, last; A[3] grey.
    # By block (4 threads each): 5 // 4 = 1, 7 // 4 = 1, 9 // 4 = 2 → first, first, last.
    # By warp (one warp per 4-thread block): warps 1, 1, 2, the same colours.
    rows = [(5, "store", 0), (7, "load", 1), (9, "store", 2), (10, "load", 2)]
    data = _data((4,), rows, block=(4, 1, 1), grid=(3, 1, 1))
    view = _view(qtbot)
    view.show_array(data, "thread (last to touch)", 32)
    assert _pixels(view) == [[VIRIDIS_0, VIRIDIS_127, VIRIDIS_255, GREY]]
    assert view.scale.getAxis("right").labelText == "thread"
    assert tuple(view.scale.levels()) == (5.0, 9.0)
    view.show_array(data, "block (last to touch)", 32)
    assert _pixels(view) == [[VIRIDIS_0, VIRIDIS_0, VIRIDIS_255, GREY]]
    assert view.scale.getAxis("right").labelText == "block"
    view.show_array(data, "warp (last to touch)", 32)
    assert _pixels(view) == [[VIRIDIS_0, VIRIDIS_0, VIRIDIS_255, GREY]]
    assert tuple(view.scale.levels()) == (1.0, 2.0)


def test_a_2d_and_a_1_element_map_have_their_axes_over_their_cells(qtbot: Any) -> None:
    # M (2, 5): 2 rows of 5, ticks over columns 0..4 and rows 0..1. A (1,): one cell, (0, 0).
    arrays = (ArrayInfo("M", (2, 5), "float32"),)
    sites = sites_of(arrays, (5, "M", "store"))
    data = TraceData(traced((1, 1, 1), (32, 1, 1), arrays, sites, [Row(0, 0, (1, 4))]))
    view = _view(qtbot)
    view.show_array(data, "accesses", 256)
    assert view.image.mapRectToParent(view.image.boundingRect()) == QRectF(0, 0, 5, 2)
    assert (view.plot.getAxis("bottom").bounds, view.plot.getAxis("left").bounds) == ((0, 4), (0, 1))
    assert _pixels(view)[1][4] == VIRIDIS_0 and _pixels(view)[0][0] == GREY
    view.show_array(_data((1,), [(0, "store", 0)]), "accesses", 256)
    assert (view.plot.getAxis("bottom").bounds, view.plot.getAxis("left").bounds) == ((0, 0), (0, 0))
    assert view.image.mapRectToParent(view.image.boundingRect()) == QRectF(0, 0, 1, 1)


def test_the_map_sits_left_of_its_scale_with_no_grid_and_thread_outlines_as_hollow_squares(
    qtbot: Any,
) -> None:
    view = _view(qtbot)
    assert view.view.ci.getItem(0, 0) is view.plot and view.view.ci.getItem(0, 1) is view.scale
    # The scale: 14 pixels wide, not draggable (its levels follow the data).
    assert view.scale.layout.columnMinimumWidth(1) == 14 and not view.scale.interactive
    assert not view.plot.getAxis("bottom").grid and not view.plot.getAxis("left").grid
    margins = view.layout().contentsMargins()
    assert (margins.left(), margins.top(), margins.right(), margins.bottom()) == (0, 0, 0, 0)
    # A thread's outline: a black 2-pixel square, 0.9 of a cell (in data units), hollow so the
    # element's colour shows through.
    opts = view.marks.opts
    assert (opts["symbol"], opts["size"], opts["pxMode"]) == ("s", 0.9, False)
    assert opts["pen"].widthF() == 2 and opts["pen"].color() == QColor(0, 0, 0)
    assert opts["brush"].color().getRgb() == (0, 0, 0, 0)


def test_outlines_stop_at_5000(qtbot: Any) -> None:
    view = _view(qtbot)
    view.show_array(_data((6000,), [(0, "store", 0)]), "accesses", 100)
    view.mark(np.arange(5001))
    xs, _ys = view.marks.getData()
    assert len(xs) == 5000


# ---- the lines table ----


def test_the_lines_table_starts_empty_with_its_headers_and_right_aligned_numbers(qtbot: Any) -> None:
    table = LinesTable()
    qtbot.addWidget(table)
    assert (table.rowCount(), table.columnCount()) == (0, 7)
    assert [table.horizontalHeaderItem(c).text() for c in range(7)] == [
        "line", "array", "kind", "count", "requests", "sectors/request", "efficiency",
    ]  # fmt: skip
    assert table.verticalHeader().isHidden()
    table.show_lines(
        [LineStats(4, "A", "load", 64, 2, 8, 4.0, 1.0)],
        [SharedLineStats(3, "s", "store", 32, 1, 2, 2.0, 1, 2)],
    )
    # Shared line 3 first (by line), then line 4; with a shared line, two more columns.
    assert table.columnCount() == 9
    assert [table.item(0, c).text() for c in range(9)] == [
        "3", "s (shared)", "store", "32", "1", "—", "—", "2", "2-way",
    ]  # fmt: skip
    assert [table.item(1, c).text() for c in range(9)] == ["4", "A", "load", "64", "2", "4", "100%", "—", "—"]
    right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
    # Text columns (line, array, kind) keep the default alignment; counts from column 3 on are right.
    assert [table.item(1, c).textAlignment() == right for c in range(9)] == [False] * 3 + [True] * 6


# ---- the arrays panel ----


def test_the_arrays_panel_controls_and_layout(qtbot: Any) -> None:
    panel = ArraysPanel()
    qtbot.addWidget(panel)
    assert (panel.rowWidth.minimum(), panel.rowWidth.maximum()) == (1, 1 << 20)  # 1 .. 1,048,576
    layout = panel.layout()
    margins = layout.contentsMargins()
    assert (margins.left(), margins.top(), margins.right(), margins.bottom()) == (0, 0, 0, 0)
    # head (Colour by ▾, 1-D row width ▴▾, then a stretch pushing them left), legend, maps (stretch 1)
    head = layout.itemAt(0).layout()
    assert head.count() == 5 and head.itemAt(4).spacerItem() is not None and head.stretch(4) == 1
    assert [layout.stretch(i) for i in range(3)] == [0, 0, 1]
    # Blocks of (1, 4, 1): rows of blockDim.x = 1; blocks of (4, 2, 1): rows of 4.
    panel.show_data(_data((8,), [(0, "store", 0)], block=(1, 4, 1)))
    assert panel.rowWidth.value() == 1
    panel.show_data(_data((8,), [(0, "store", 0)], block=(4, 2, 1)))
    assert panel.rowWidth.value() == 4
    assert [panel.grid.stretch(i) for i in range(panel.grid.count())] == [1]
    # Thread 3 touched A[5] and A[6]: outlined; no thread (None): no outlines.
    panel.show_data(_data((8,), [(3, "store", 5), (3, "load", 6), (2, "store", 7)], block=(4, 2, 1)))
    panel.mark_thread(3)
    xs, ys = panel.views[0].marks.getData()
    assert xs.tolist() == [1.5, 2.5] and ys.tolist() == [1.5, 1.5]  # rows of 4: (1, 1), (2, 1)
    panel.mark_thread(None)
    assert len(panel.views[0].marks.getData()[0]) == 0


# ---- the warp picture, its painter recorded ----


class _Metrics:
    def __init__(self, height: int, char: float) -> None:
        self._height, self._char = height, char

    def height(self) -> int:
        return self._height

    def ascent(self) -> int:
        return self._height - 2

    def horizontalAdvance(self, text: str) -> float:
        return self._char * len(text)


class _Painter:
    """Records what the view draws: rects with their brush and pen, lines with their pen, texts."""

    RenderHint = views.QPainter.RenderHint
    metrics = _Metrics(12, 6)
    last: _Painter | None = None

    def __init__(self, _widget: Any) -> None:
        self.pen: Any = None
        self.brush: QColor | None = None
        self.rects: list[tuple[QRectF, str, Any]] = []
        self.lines: list[tuple[QPointF, QPointF, Any]] = []
        self.texts: list[tuple[Any, ...]] = []
        _Painter.last = self

    def setRenderHint(self, *_a: Any) -> None: ...

    def setFont(self, *_a: Any) -> None: ...

    def end(self) -> None: ...

    def fontMetrics(self) -> _Metrics:
        return self.metrics

    def setPen(self, pen: Any) -> None:
        self.pen = pen

    def setBrush(self, brush: QColor) -> None:
        self.brush = QColor(brush)

    def drawRect(self, rect: QRectF) -> None:
        assert self.brush is not None
        self.rects.append((QRectF(rect), self.brush.name(), self.pen))

    def drawLine(self, a: QPointF, b: QPointF) -> None:
        self.lines.append((QPointF(a), QPointF(b), self.pen))

    def drawText(self, *args: Any) -> None:
        self.texts.append(args)


def _paint(
    qtbot: Any, monkeypatch: Any, request: dict[str, Any], height: int = 12, char: float = 6
) -> _Painter:
    monkeypatch.setattr(views, "QPainter", _Painter)
    monkeypatch.setattr(_Painter, "metrics", _Metrics(height, char))
    view = WarpSectorsView()
    qtbot.addWidget(view)
    view.resize(336, 200)  # 8 + 32 lanes × 10 + 8
    view.show_request(request, "line 5")
    view.paintEvent(None)
    assert _Painter.last is not None
    return _Painter.last


BLUE, OFF, LINK = "#4c72b0", "#dddddd", QColor(76, 114, 176, 160)


def _link_pen(pen: Any) -> bool:
    return isinstance(pen, QPen) and pen.color() == LINK and pen.widthF() == pytest.approx(1.2)


def test_a_warps_lanes_go_to_their_sectors(qtbot: Any, monkeypatch: Any) -> None:
    # Lanes 0..3 load A[0..3] (bytes 0..12: sector 0), lane 9 loads A[40] (byte 160: sector 5).
    # Width 336: lanes 10 px wide from x = 8; font 12 px high (ascent 10): lanes at y = 12 + 14 =
    # 26, boxes max(14, 12 + 2) = 14 high; sectors at y = 200 - 14 - 12 - 8 = 166, two of
    # (336 - 16) / 2 = 160 px, centred at 8 + 80 = 88 and 8 + 240 = 248.
    request = {
        "warp": 2,
        "lanes": [0, 1, 2, 3, 9],
        "sectors": [0, 0, 0, 0, 5],
        "array": "A",
        "space": "global",
    }
    p = _paint(qtbot, monkeypatch, request)
    assert p.texts[0] == (4, 12, "line 5: warp 2, 5 active lanes → 2 sectors")
    lanes = p.rects[:32]
    assert [r for r, _brush, _pen in lanes[:2]] == [QRectF(9, 26, 8, 14), QRectF(19, 26, 8, 14)]
    assert lanes[31][0] == QRectF(8 + 310 + 1, 26, 8, 14)
    assert [brush for _r, brush, _pen in lanes] == [BLUE] * 4 + [OFF] * 5 + [BLUE] + [OFF] * 22
    assert all(pen == Qt.PenStyle.NoPen for _r, _b, pen in lanes)
    # a line from each active lane's bottom centre (x + 5, 26 + 14) to its sector's top centre
    assert [(a, b) for a, b, _pen in p.lines] == [
        (QPointF(13, 40), QPointF(88, 166)),
        (QPointF(23, 40), QPointF(88, 166)),
        (QPointF(33, 40), QPointF(88, 166)),
        (QPointF(43, 40), QPointF(88, 166)),
        (QPointF(103, 40), QPointF(248, 166)),
    ]
    assert all(_link_pen(pen) for _a, _b, pen in p.lines)
    # the sectors: yellow boxes outlined in the text colour, numbered in their middle
    assert [(r, brush) for r, brush, _pen in p.rects[32:]] == [
        (QRectF(9, 166, 158, 14), "#f0c060"),
        (QRectF(169, 166, 158, 14), "#f0c060"),
    ]
    assert all(isinstance(pen, QColor) for _r, _b, pen in p.rects[32:])
    assert p.texts[1:3] == [
        (QRectF(8, 166, 160, 14), Qt.AlignmentFlag.AlignCenter, "0"),
        (QRectF(168, 166, 160, 14), Qt.AlignmentFlag.AlignCenter, "5"),
    ]
    assert p.texts[3] == (
        4, 196, "lanes 0–31 (blue: active) above; 32-byte sectors of A (by number) below",
    )  # fmt: skip


def test_one_sector_spans_the_width_and_a_label_is_written_only_where_it_fits(
    qtbot: Any, monkeypatch: Any
) -> None:
    # One sector (7): 320 px wide centred at 168; its label fits if narrower than 320 - 2 = 318.
    request = {"warp": 0, "lanes": [4], "sectors": [7], "array": "B", "space": "global"}
    p = _paint(qtbot, monkeypatch, request, char=317.5)
    assert p.rects[32][0] == QRectF(9, 166, 318, 14) and p.lines[0][1] == QPointF(168, 166)
    assert p.texts[1] == (QRectF(8, 166, 320, 14), Qt.AlignmentFlag.AlignCenter, "7")
    p = _paint(qtbot, monkeypatch, request, char=318)  # exactly 318: not written
    assert len(p.texts) == 2


def test_a_taller_font_makes_taller_boxes(qtbot: Any, monkeypatch: Any) -> None:
    # Font 20 px high: lanes at y = 20 + 14 = 34, boxes max(14, 20 + 2) = 22 high, sectors at
    # 200 - 22 - 20 - 8 = 150.
    request = {"warp": 0, "lanes": [0], "sectors": [0], "array": "B", "space": "global"}
    p = _paint(qtbot, monkeypatch, request, height=20)
    assert p.rects[0][0] == QRectF(9, 34, 8, 22) and p.rects[32][0] == QRectF(9, 150, 318, 22)
    assert p.texts[0][:2] == (4, 20)
    p = _paint(qtbot, monkeypatch, {**request, "space": "shared", **_BANKS}, height=20)
    assert p.rects[0][0] == QRectF(9, 34, 8, 22) and p.rects[32][0] == QRectF(9, 150, 8, 22)


# lanes 0..3 of a float32 shared array at words 0, 32, 1, 2: banks 0, 0, 1, 2; bank 0 holds two
# words (2 wavefronts where 1 would do: a 2-way conflict), banks 1 and 2 one each.
_BANKS = {
    "warp": 1,
    "lanes": [0, 1, 2, 3],
    "banks": [[0], [0], [1], [2]],
    "words_per_bank": [2, 1, 1] + [0] * 29,
    "wavefronts": 2,
    "least_wavefronts": 1,
    "array": "s",
}


def test_shared_lanes_go_to_their_banks_and_a_conflicted_bank_is_red(qtbot: Any, monkeypatch: Any) -> None:
    # Banks at y = 166, one per lane column: bank b at x = 8 + 10 b, centre 8 + 10 (b + 0.5).
    p = _paint(qtbot, monkeypatch, {**_BANKS, "space": "shared"})
    assert p.texts[0] == (4, 12, "line 5: warp 1, 4 active lanes → 2 wavefronts (a 2-way bank conflict)")
    assert [brush for _r, brush, _pen in p.rects[:32]] == [BLUE] * 4 + [OFF] * 28
    assert p.rects[3][0] == QRectF(39, 26, 8, 14)
    assert [(a, b) for a, b, _pen in p.lines] == [
        (QPointF(13, 40), QPointF(13, 166)),
        (QPointF(23, 40), QPointF(13, 166)),
        (QPointF(33, 40), QPointF(23, 166)),
        (QPointF(43, 40), QPointF(33, 166)),
    ]
    assert all(_link_pen(pen) for _a, _b, pen in p.lines)
    banks = p.rects[32:]
    assert len(banks) == 32
    assert [r for r, _b, _pen in banks[:3]] == [
        QRectF(9, 166, 8, 14),
        QRectF(19, 166, 8, 14),
        QRectF(29, 166, 8, 14),
    ]
    # red: more words than 1 wavefront holds; yellow: one; light grey: none
    assert [brush for _r, brush, _pen in banks] == ["#e06040", "#f0c060", "#f0c060"] + ["#eeeeee"] * 29
    assert all(isinstance(pen, QColor) for _r, _b, pen in banks)
    # The counts, 6 px a digit, fit in 10 - 2 = 8 px: "2", "1", "1" in the banks' boxes; none in empty ones.
    assert p.texts[1:4] == [
        (QRectF(8, 166, 10, 14), Qt.AlignmentFlag.AlignCenter, "2"),
        (QRectF(18, 166, 10, 14), Qt.AlignmentFlag.AlignCenter, "1"),
        (QRectF(28, 166, 10, 14), Qt.AlignmentFlag.AlignCenter, "1"),
    ]
    assert p.texts[4][:2] == (4, 196) and p.texts[4][2].startswith(
        "lanes 0–31 (blue: active) above; banks 0–31 of s"
    )
    assert len(p.texts) == 5


def test_bank_counts_are_written_only_where_they_fit_and_one_wavefront_is_no_conflict(
    qtbot: Any, monkeypatch: Any
) -> None:
    # 2 lanes on words 0 and 1 (banks 0, 1): 1 wavefront, the least: no conflict, both yellow.
    one = {**_BANKS, "lanes": [0, 1], "banks": [[0], [1]], "words_per_bank": [1, 1] + [0] * 30}
    one.update(wavefronts=1, least_wavefronts=1, space="shared")
    p = _paint(qtbot, monkeypatch, one, char=7.5)  # 7.5 < 8: written
    assert p.texts[0][2] == "line 5: warp 1, 2 active lanes → 1 wavefront (no bank conflict)"
    assert [brush for _r, brush, _pen in p.rects[32:34]] == ["#f0c060", "#f0c060"]
    assert [t[2] for t in p.texts[1:3]] == ["1", "1"]
    p = _paint(qtbot, monkeypatch, one, char=8)  # 8, not < 8: not written
    assert len(p.texts) == 2


def test_before_a_line_is_chosen_the_picture_asks_for_one(qtbot: Any, monkeypatch: Any) -> None:
    # At least 150 px high (lanes, links, sectors and two lines of text); no request: one sentence.
    monkeypatch.setattr(views, "QPainter", _Painter)
    view = WarpSectorsView()
    qtbot.addWidget(view)
    assert view.minimumHeight() == 150
    view.resize(336, 200)
    view.paintEvent(None)
    assert _Painter.last is not None and not _Painter.last.rects and not _Painter.last.lines
    assert _Painter.last.texts == [
        (view.rect(), Qt.AlignmentFlag.AlignCenter, "Select a line in the table to see one warp's request")
    ]


def test_a_map_just_past_eight_columns_a_row_fills_the_plot(qtbot: Any) -> None:
    # A (132,) in rows of 33: 4 rows; 4 × 8 = 32 < 33 columns: a strip, cells not kept square.
    view = _view(qtbot)
    view.show_array(_data((132,), [(0, "store", 0)]), "accesses", 33)
    assert (view.rows, view.cols) == (4, 33)
    assert not view.plot.vb.state["aspectLocked"]
