"""The Your kernel tab's decoded log (TraceData) and its bank picture, from hand-made logs: one
warp's lanes when blocks are 48 threads, each row in words, the rows of one element."""

from __future__ import annotations

import numpy as np

from simtviz.core.trace.analysis import LOG_FIELDS, ArrayInfo, analyse
from simtviz.core.trace.model import TraceResult
from simtviz.core.trace.rewrite import Site
from simtviz.qt.tabs.kernel.views import TraceData, bank_request


def result_of(
    rows: list[list[int]], sites: tuple[Site, ...], arrays: tuple[ArrayInfo, ...], block, grid
) -> TraceResult:
    log = np.array([r + [0] * (LOG_FIELDS - 7) for r in rows], dtype=np.int64).T.reshape(LOG_FIELDS, -1)
    a = analyse(log, log.shape[1], sites, arrays, block)
    return TraceResult("sim", "k", grid, block, sites, arrays, a, log, {}, {})


def test_the_first_request_of_48_thread_blocks_holds_only_its_blocks_lanes() -> None:
    # block 48, grid 2: threads 48..63 (block 1's first warp, warp 2, lanes 0..15) load A[t]
    # first in the log, then threads 40..47 (block 0, warp 1), then 48..63 again (their second
    # time at this site: another request). The first request: warp 2, lanes 0..15 once each,
    # bytes 192..252: sectors 6 and 7.
    rows = [[t, 0, 0, 4 * t, t, 0, 0] for t in range(48, 64)]
    rows += [[t, 0, 0, 4 * t, t, 0, 0] for t in range(40, 48)]
    rows += [[t, 0, 0, 4 * (t - 48), t - 48, 0, 0] for t in range(48, 64)]
    arrays = (ArrayInfo("A", (96,), "float32"),)
    r = result_of(rows, (Site(0, 3, 4, "A", "load", 1),), arrays, (48, 1, 1), (2, 1, 1))
    req = TraceData(r).warp_request([0])
    assert req is not None
    assert (req["warp"], req["lanes"]) == (2, list(range(16)))
    assert req["offsets"] == [4 * t for t in range(48, 64)] and set(req["sectors"]) == {6, 7}
    assert (req["array"], req["space"], req["itemsize"]) == ("A", "global", 4)


def test_a_site_never_performed_is_skipped_for_the_next() -> None:
    # site 0's only row is out of bounds; site 1 (thread 3 stores B[0]) is the first request
    rows = [[0, 0, 1, 400, 100, 0, 0], [3, 1, 1 << 1 | 1 << 3, 0, 0, 0, 0]]
    sites = (Site(0, 3, 4, "A", "load", 1), Site(1, 4, 4, "B", "store", 1))
    arrays = (ArrayInfo("A", (8,), "float32"), ArrayInfo("B", (8,), "float64"))
    data = TraceData(result_of(rows, sites, arrays, (32, 1, 1), (1, 1, 1)))
    req = data.warp_request([0, 1])
    assert req is not None and (req["site"], req["lanes"], req["array"], req["itemsize"]) == (1, [3], "B", 8)
    assert data.warp_request([0]) is None
    assert data.row_words(0) == "line 3: load A[100] (out of bounds, skipped)"
    assert data.row_words(1) == "line 4: store B[0]"


def test_rows_of_an_element_and_of_a_thread() -> None:
    # M (3, 5): thread 7 stores M[2, 4] (flat 14), thread 9 loads it, thread 7 loads M[0, 4] (flat 4)
    rows = [[7, 0, 1 << 1, 56, 2, 4, 0], [9, 1, 0, 56, 2, 4, 0], [7, 1, 0, 16, 0, 4, 0]]
    sites = (Site(0, 5, 4, "M", "store", 2), Site(1, 6, 4, "M", "load", 2))
    data = TraceData(result_of(rows, sites, (ArrayInfo("M", (3, 5), "float32"),), (32, 1, 1), (1, 1, 1)))
    assert data.element_rows(0, 14).tolist() == [0, 1]
    assert data.element_rows(0, 4).tolist() == [2]
    assert data.thread_rows(7).tolist() == [0, 2]
    assert data.row_words(0) == "line 5: store M[2, 4]"


def test_bank_request_of_float64_lanes_is_two_wavefronts_the_least() -> None:
    # 32 lanes × 8 bytes: words 0..63, bank b holds words b and b + 32: 2 wavefronts, least 2
    got = bank_request([8 * lane for lane in range(32)], 2)
    assert got["words"][1] == [2, 3] and got["banks"][16] == [0, 1]
    assert got["words_per_bank"] == [2] * 32
    assert (got["wavefronts"], got["least_wavefronts"]) == (2, 2)
    # float32 at stride 2 words, 16 lanes: words 0, 2, .., 30 in the even banks: 1 wavefront
    half = bank_request([8 * lane for lane in range(16)], 1)
    assert (half["wavefronts"], half["least_wavefronts"]) == (1, 1)
    assert half["words_per_bank"][:4] == [1, 0, 1, 0]
    # 4 lanes on words 0, 32, 64 and 0 again: 3 distinct words in bank 0 (a broadcast shares one)
    assert bank_request([0, 128, 256, 0], 1)["wavefronts"] == 3


def test_rows_of_an_element_of_a_3d_array() -> None:
    # T (2, 3, 4): T[1, 2, 3] is flat (1 × 3 + 2) × 4 + 3 = 23; T[0, 1, 0] is flat 4.
    rows = [[5, 0, 1 << 1, 92, 1, 2, 3], [6, 0, 1 << 1, 16, 0, 1, 0]]
    data = TraceData(
        result_of(
            rows,
            (Site(0, 7, 4, "T", "store", 3),),
            (ArrayInfo("T", (2, 3, 4), "float32"),),
            (32, 1, 1),
            (1, 1, 1),
        )
    )
    assert data.flat[0].tolist() == [23, 4]
    assert data.element_rows(0, 23).tolist() == [0] and data.element_rows(0, 4).tolist() == [1]
    assert data.row_words(0) == "line 7: store T[1, 2, 3]"


def test_array_maps_lay_out_3d_arrays_as_planes_of_rows(qtbot) -> None:  # type: ignore[no-untyped-def]
    # (2, 3, 4): 2 planes of 3 rows, one under the other: 6 rows of 4. (5, 7): as it is.
    # 1-D 1,000 elements at width 256: ceil(1000 / 256) = 4 rows of 256; 10 elements: 1 row of 10.
    from simtviz.qt.tabs.kernel.views import ArrayView

    view = ArrayView(0)
    qtbot.addWidget(view)
    assert view.layout_shape((2, 3, 4), 256) == (6, 4)
    assert view.layout_shape((5, 7), 256) == (5, 7)
    assert view.layout_shape((1000,), 256) == (4, 256)
    assert view.layout_shape((10,), 256) == (1, 10)


def _stores(elements: list[tuple[int, int]], size: int) -> TraceData:
    # (thread, element) stores into A (size,) float32 at one site
    rows = [[t, 0, 1 << 1, 4 * e, e, 0, 0] for t, e in elements]
    arrays = (ArrayInfo("A", (size,), "float32"),)
    return TraceData(result_of(rows, (Site(0, 5, 4, "A", "store", 1),), arrays, (32, 1, 1), (1, 1, 1)))


def test_an_array_map_greys_what_no_thread_touched_and_reds_a_second_writer(qtbot) -> None:  # type: ignore[no-untyped-def]
    # A (8,): threads 0..3 store A[0..3], thread 5 stores A[3] too; A[4..7] untouched.
    from simtviz.qt.tabs.kernel.views import MULTI_WRITER_RGB, UNTOUCHED_RGB, ArrayView

    view = ArrayView(0)
    qtbot.addWidget(view)
    view.show_array(_stores([(0, 0), (1, 1), (2, 2), (3, 3), (5, 3)], 8), "accesses", 256)
    image = view.image.image
    assert image.shape == (1, 8, 3)
    assert [tuple(image[0, e]) for e in range(4, 8)] == [UNTOUCHED_RGB] * 4
    assert tuple(image[0, 3]) == MULTI_WRITER_RGB
    assert all(tuple(image[0, e]) not in (UNTOUCHED_RGB, MULTI_WRITER_RGB) for e in range(3))
    # Coloured by accesses: A[0..2] once each, so one colour; the scale runs 1 to 2 (A[3]).
    assert tuple(image[0, 0]) == tuple(image[0, 1]) == tuple(image[0, 2])
    assert tuple(view.scale.levels()) == (1.0, 2.0)


def test_a_click_names_an_element_only_inside_the_array(qtbot) -> None:  # type: ignore[no-untyped-def]
    # A (10,) at width 4: 3 rows of 4, the last row half empty (elements 8, 9 then padding).
    from types import SimpleNamespace

    from PySide6.QtCore import QPointF

    from simtviz.qt.tabs.kernel.views import ArrayView

    view = ArrayView(0)
    qtbot.addWidget(view)
    view.show_array(_stores([(0, 0)], 10), "accesses", 4)
    assert (view.rows, view.cols) == (3, 4)
    assert view.plot.vb.state["yInverted"]  # row 0 at the top, as the array is printed
    clicked: list[tuple[int, int]] = []
    view.elementClicked.connect(lambda aid, e: clicked.append((aid, e)))
    for x, y in [
        (0.5, 0.5),
        (2.5, 1.5),
        (1.2, 2.9),
        (-0.5, 1.5),
        (4.5, 0.5),
        (0.5, -0.2),
        (0.5, 3.1),
        (2.5, 2.5),
    ]:
        view.plot.vb.mapSceneToView = lambda _p, x=x, y=y: QPointF(x, y)
        view._clicked(SimpleNamespace(scenePos=lambda: QPointF()))
    # (0.5, 0.5): the first cell, element 0; (2.5, 1.5): row 1, column 2 → element 6; (1.2, 2.9):
    # row 2, column 1 → 9; (2.5, 2.5): 10, past the end (padding); the others lie outside the map.
    assert clicked == [(0, 0), (0, 6), (0, 9)]
    # A thread's elements 5 and 9 outlined at their cells' centres: (column + 0.5, row + 0.5).
    view.mark(np.array([5, 9]))
    xs, ys = view.marks.getData()
    assert xs.tolist() == [1.5, 1.5] and ys.tolist() == [1.5, 2.5]


def test_a_one_element_array_is_one_cell_and_a_one_column_array_outlines_down_its_column(qtbot) -> None:  # type: ignore[no-untyped-def]
    # A (1,) at width 256: min(256, 1) = 1 column, 1 row: no blank cell beside it.
    # M (4, 1): 4 rows of 1; its element 3 is row 3, column 0: outlined at (0.5, 3.5).
    from simtviz.qt.tabs.kernel.views import ArrayView

    view = ArrayView(0)
    qtbot.addWidget(view)
    assert view.layout_shape((1,), 256) == (1, 1)
    view.show_array(_stores([(0, 0)], 1), "accesses", 256)
    assert view.image.image.shape == (1, 1, 3)
    rows = [[t, 0, 1 << 1, 4 * t, t, 0, 0] for t in range(4)]
    arrays = (ArrayInfo("M", (4, 1), "float32"),)
    data = TraceData(result_of(rows, (Site(0, 5, 4, "M", "store", 2),), arrays, (32, 1, 1), (1, 1, 1)))
    view.show_array(data, "accesses", 256)
    assert (view.rows, view.cols) == (4, 1)
    view.mark(np.array([3]))
    xs, ys = view.marks.getData()
    assert xs.tolist() == [0.5] and ys.tolist() == [3.5]


def test_the_accesses_colouring_counts_atomics_with_loads_and_stores(qtbot) -> None:  # type: ignore[no-untyped-def]
    # H (2,): threads 0..2 atomically add to H[0] (3 atomics), thread 3 loads H[1] then stores it
    # (1 load + 1 store). Accesses: H[0] = 3, H[1] = 2, so the scale runs 2 to 3.
    from simtviz.qt.tabs.kernel.views import ArrayView

    rows = [[t, 0, 2 << 1, 0, 0, 0, 0] for t in range(3)]
    rows += [[3, 1, 0, 4, 1, 0, 0], [3, 2, 1 << 1, 4, 1, 0, 0]]
    sites = (Site(0, 5, 4, "H", "atomic", 1), Site(1, 6, 4, "H", "load", 1), Site(2, 7, 4, "H", "store", 1))
    data = TraceData(result_of(rows, sites, (ArrayInfo("H", (2,), "int32"),), (32, 1, 1), (1, 1, 1)))
    view = ArrayView(0)
    qtbot.addWidget(view)
    view.show_array(data, "accesses", 256)
    assert view.values is not None and view.values.tolist() == [3.0, 2.0]
    assert tuple(view.scale.levels()) == (2.0, 3.0)


def test_square_cells_unless_the_array_is_a_strip(qtbot) -> None:  # type: ignore[no-untyped-def]
    # Cells stay square while rows × 8 ≥ columns: A (128,) at width 32 is 4 rows of 32 (4 × 8 = 32,
    # square); A (1,000,) at width 256 is 4 rows of 256 (32 < 256), a strip that fills the plot
    # instead of a hairline across it.
    from simtviz.qt.tabs.kernel.views import ArrayView

    view = ArrayView(0)
    qtbot.addWidget(view)
    view.show_array(_stores([(0, 0)], 128), "accesses", 32)
    assert (view.rows, view.cols) == (4, 32)
    assert view.plot.vb.state["aspectLocked"]
    view.show_array(_stores([(0, 0)], 1000), "accesses", 256)
    assert (view.rows, view.cols) == (4, 256)
    assert not view.plot.vb.state["aspectLocked"]
