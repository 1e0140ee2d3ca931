"""The index map's framing helpers (``qt.map.framing``) on hand-worked shapes: when a map counts as
elongated, which part of it opens first, where tiled z-planes go and their ticks, the caption
band above them, and the categorical legend's ids and colours. Each expected number is worked
out in the comment above it; nothing here is computed by simtviz."""

from __future__ import annotations

import pytest

from simtviz.qt.map.framing import (
    caption_band,
    elongation,
    legend_html,
    legend_ids,
    start_rect,
    tile_offsets,
    tile_ticks,
)

# --- elongation --------------------------------------------------------------------------------


def test_elongation_is_the_maps_shape_over_the_views() -> None:
    # 1 row × 7 columns in a square view: (7 / 1) / (100 / 100) = 7
    assert elongation(1, 7, 100, 100) == 7.0
    # 4 × 1 at 1,280 × 720: (1 / 4) / (1280 / 720) = 0.25 × 9 / 16 = 9 / 64
    assert elongation(4, 1, 1280, 720) == pytest.approx(9 / 64)
    # a view not laid out yet (0 × 0) counts as 1 × 1: (2 / 2) / 1 = 1
    assert elongation(2, 2, 0, 0) == 1.0
    # a map of no rows counts as one row: 5 / 1 = 5
    assert elongation(0, 5, 10, 10) == 5.0


# --- the first view of an elongated map ----------------------------------------------------------


def test_a_tall_map_of_one_column_opens_on_one_row() -> None:
    # grid 1,000 × block 1 at 1,280 × 720: 1 / 1.78 = 0.56, rounded up to 1 row (not 2)
    rect, words = start_rect(0, 0, 1000, 1, 1280, 720)
    assert (rect.width(), rect.height()) == (1, 1) and words == "the first 1 of 1,000 rows"


def test_a_wide_map_in_a_portrait_view_opens_on_one_column() -> None:
    # 1 × 1,000 in a 720 × 1,280 view: 1 × 0.5625 = 0.56, rounded up to 1 column (not 2)
    rect, words = start_rect(0, 0, 1, 1000, 720, 1280)
    assert (rect.width(), rect.height()) == (1, 1) and words == "the first 1 of 1,000 columns"


def test_the_first_part_starts_at_the_maps_corner() -> None:
    # 10 × 1,000 at 1,280 × 720: 10 × 1.78 = 17.8 → 18 columns from (-0.5, 3.5)
    rect, words = start_rect(-0.5, 3.5, 10, 1000, 1280, 720)
    assert (rect.left(), rect.top(), rect.width(), rect.height()) == (-0.5, 3.5, 18, 10)
    assert words == "the first 18 of 1,000 columns"


# --- tiled z-planes ------------------------------------------------------------------------------


@pytest.mark.parametrize(("rows", "band"), [(1, 2), (4, 2), (5, 3), (10, 5)])
def test_caption_band_is_half_the_rows_and_at_least_two(rows: int, band: int) -> None:
    # max(2, ⌈rows / 2⌉): 1 → 2, 4 → 2, 5 → ⌈2.5⌉ = 3, 10 → 5
    assert caption_band(rows) == band


def test_seven_low_tiles_three_across() -> None:
    # 7 planes of 2 × 8 at 1,280 × 720: gap x = max(1, ⌈8 × 0.15⌉) = 2, gap y = max(2, ⌈1⌉) = 2.
    # cell px for a across (d = ⌈7 / a⌉ down) = min(1280 / (a × 10), 720 / (d × 4 + 2)):
    #   a=1 d=7: min(128, 24) = 24        a=2 d=4: min(64, 40) = 40
    #   a=3 d=3: min(42.7, 51.4) = 42.7   a=4 d=2: min(32, 72) = 32
    #   a=5, 6 d=2: 25.6, 21.3            a=7 d=1: 18.3
    # → 3 across, steps of 8 + 2 = 10 in x and 2 + 2 = 4 in y, from (10, 20)
    assert tile_offsets(7, 2, 8, (10, 20), (1280, 720)) == [
        (10, 20), (20, 20), (30, 20),
        (10, 24), (20, 24), (30, 24),
        (10, 28),
    ]  # fmt: skip


def test_four_small_tiles_all_in_one_row() -> None:
    # 4 planes of 8 × 8: gap x = max(1, ⌈1.2⌉) = 2, gap y = max(2, 4) = 4; min(1280 / (a × 10),
    # 720 / (d × 12 + 4)): a=1 d=4: 13.8; a=2 d=2: 25.7; a=3 d=2: 25.7; a=4 d=1: min(32, 45) = 32
    assert tile_offsets(4, 8, 8, (0, 0), (1280, 720)) == [(0, 0), (10, 0), (20, 0), (30, 0)]


def test_three_wide_tiles_one_under_another() -> None:
    # 3 planes of 8 × 64: gap x = ⌈9.6⌉ = 10, gap y = 4; min(1280 / (a × 74), 720 / (d × 12 + 4)):
    # a=1 d=3: min(17.3, 18) = 17.3; a=2 d=2: 8.6; a=3 d=1: 5.8 → one across, rows 12 apart
    assert tile_offsets(3, 8, 64, (0, 0), (1280, 720)) == [(0, 0), (0, 12), (0, 24)]


def test_narrow_tiles_have_a_gap_of_one_column() -> None:
    # 7 planes of 1 × 5: gap x = max(1, ⌈0.75⌉) = 1, gap y = max(2, ⌈0.5⌉) = 2.
    # min(1280 / (a × 6), 720 / (d × 3 + 2)): a=1 d=7: 31.3; a=2 d=4: 51.4; a=3 d=3: min(71.1, 65.5)
    # = 65.5; a=4 d=2: min(53.3, 90) = 53.3; a=5..7 smaller → 3 across, steps 6 and 3
    assert tile_offsets(7, 1, 5, (0, 0), (1280, 720)) == [
        (0, 0), (6, 0), (12, 0),
        (0, 3), (6, 3), (12, 3),
        (0, 6),
    ]  # fmt: skip


def test_one_plane_is_one_tile_at_the_base() -> None:
    assert tile_offsets(1, 4, 4, (2, 3), (1280, 720)) == [(2, 3)]


def test_each_tile_has_its_own_first_and_last_x_and_y() -> None:
    # the seven tiles above (x at 10, 20, 30; y at 20, 24, 28), 2 × 8 cells, window origin
    # (64, 8): x ticks at x and x + 7 read 64 and 71; y ticks at y and y + 1 read 8 and 9
    offsets = [(10, 20), (20, 20), (30, 20), (10, 24), (20, 24), (30, 24), (10, 28)]
    bottom, left = tile_ticks(offsets, 2, 8, (64, 8))
    assert bottom == [(10, "64"), (17, "71"), (20, "64"), (27, "71"), (30, "64"), (37, "71")]
    assert left == [(20, "8"), (21, "9"), (24, "8"), (25, "9"), (28, "8"), (29, "9")]


def test_a_one_cell_tile_has_one_tick_each_way() -> None:
    # 1 × 1 tiles at x 0 and 3: first and last column are the same, one tick per tile
    bottom, left = tile_ticks([(0, 0), (3, 0)], 1, 1, (5, 6))
    assert bottom == [(0, "5"), (3, "5")] and left == [(0, "6")]


# --- the categorical legend ----------------------------------------------------------------------


def test_legend_ids_all_when_twelve_or_fewer() -> None:
    assert legend_ids(5, 5) == [5]
    # 3 … 14 is 12 ids: all listed
    assert legend_ids(3, 14) == list(range(3, 15))


def test_legend_ids_shortened_past_twelve() -> None:
    # 3 … 15 is 13 ids: the first 11 (3 … 13), "⋮", then the last
    assert legend_ids(3, 15) == [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, None, 15]


# tab10's first four colours, the palette's first entries: #1f77b4 #ff7f0e #2ca02c #d62728
BLUE, ORANGE, GREEN, RED = "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"


def _swatch(colour: str, value: int) -> str:
    return f"<span style='color: {colour}'>██</span> {value}"


def test_legend_of_four_warps() -> None:
    assert legend_html("warp", (0.0, 3.0)) == "<br>".join(
        ["<b>warp</b>", _swatch(BLUE, 0), _swatch(ORANGE, 1), _swatch(GREEN, 2), _swatch(RED, 3)]
    )


def test_legend_stops_at_the_largest_id_on_the_map() -> None:
    # one warp: the levels are stretched to 0 … 1, but only warp 0 exists
    assert legend_html("warp", (0.0, 1.0), top=0) == "<b>warp</b><br>" + _swatch(BLUE, 0)


def test_legend_starts_with_the_lowest_id_in_the_first_colour() -> None:
    # blocks 10 … 24 (15 ids): 10 … 20 listed, "⋮", 24; block 10 takes the first colour
    lines = legend_html("block <x>", (10.0, 24.0)).split("<br>")
    assert lines[0] == "<b>block &lt;x&gt;</b>" and lines[1] == _swatch(BLUE, 10)
    assert lines[2] == _swatch(ORANGE, 11)
    assert [line.rsplit(" ", 1)[-1] for line in lines[1:]] == [*map(str, range(10, 21)), "&nbsp;⋮", "24"]


def test_legend_says_colours_repeat_past_48_ids() -> None:
    # 10 … 57 is 57 − 10 + 1 = 48 ids: one colour each, nothing said
    assert "colours repeat" not in legend_html("block", (10.0, 57.0))
    # 10 … 58 is 49 ids: the 49th repeats the first
    assert legend_html("block", (10.0, 58.0)).endswith("<br><i>colours repeat<br>every 48 ids</i>")
