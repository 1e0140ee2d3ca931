from __future__ import annotations

import numpy as np

from simtviz.core.launch import LaunchConfig
from simtviz.core.oracle import expected_field, verify
from simtviz.core.window import Window, choose_window


def oracle_fields(config: LaunchConfig, window: Window) -> dict[str, np.ndarray]:
    fields = {
        name: expected_field(name, config, window)
        for name in ("threadIdx", "blockIdx", "grid1", "grid2", "grid3", "laneid", "warp")
    }
    fields["smid"] = np.full(window.threads, -1, np.int32)
    fields["t_ns"] = np.full(window.threads, -1, np.int64)
    return fields


def test_the_inspectors_example_thread() -> None:
    # idx = threadIdx.x + blockIdx.x * blockDim.x = 3 + 2 × 8 = 19
    config = LaunchConfig.of(4, 8)
    window = Window.full(config)
    assert expected_field("grid1", config, window)[19] == 19
    assert tuple(expected_field("threadIdx", config, window)[19]) == (3, 0, 0)
    assert tuple(expected_field("blockIdx", config, window)[19]) == (2, 0, 0)


def test_2d_rows_are_raster_order_of_cuda_grid_2() -> None:
    config = LaunchConfig.of((4, 3), (8, 4))
    window = Window.full(config)
    grid2 = expected_field("grid2", config, window)
    assert grid2.shape == (384, 2)
    assert tuple(grid2[33]) == (1, 1)  # second row of the 32-wide image
    block = expected_field("blockIdx", config, window)
    assert tuple(block[383]) == (3, 2, 0)


def test_warp_and_lane_follow_the_linear_thread_id() -> None:
    config = LaunchConfig.of(1, (8, 8))  # 64 threads: two warps of 32, 4 rows each
    window = Window.full(config)
    warp = expected_field("warp", config, window)
    lane = expected_field("laneid", config, window)
    assert warp.reshape(8, 8)[:4].max() == 0 and warp.reshape(8, 8)[4:].min() == 1
    assert lane[8 * 5 + 3] == (5 * 8 + 3) % 32


def test_verify_counts_and_reports_a_corrupted_thread() -> None:
    config = LaunchConfig.of((2, 2), (4, 4))
    window = Window.full(config)
    fields = oracle_fields(config, window)
    assert verify(fields, config, window).summary() == "64 of 64 threads match"
    fields["blockIdx"][10, 1] = 7
    fields["laneid"][20] = -1  # a row nobody wrote
    result = verify(fields, config, window)
    assert not result.ok
    assert result.matched == 62
    assert result.mismatched_by_field["blockIdx"] == 1
    assert result.first_mismatch is not None and result.first_mismatch.row == 10
    assert "MISMATCH" in result.summary()


def test_window_over_budget_keeps_whole_blocks_in_1d() -> None:
    config = LaunchConfig.of(2**31 - 1, 1024)
    window = choose_window(config, budget_threads=1 << 20)
    assert window.size == (1 << 20, 1, 1)
    assert window.threads <= 1 << 20
    assert "recording 1,048,576 of 2,199,023,254,528 threads" in window.describe(config)


def test_window_over_budget_2d_is_squareish_and_inside() -> None:
    config = LaunchConfig.of((65535, 65535), (32, 32))
    window = choose_window(config, budget_threads=1 << 22)
    assert window.size == (2048, 2048, 1)
    assert window.describe(config).endswith("window x 0–2047, y 0–2047")
    moved = choose_window(config, 1 << 22, origin=(10**9, 5, 0))
    assert moved.end[0] == config.extent[0] and moved.origin[1] == 5


def test_oracle_inside_a_window() -> None:
    config = LaunchConfig.of((8, 8), (4, 4))
    window = Window((8, 4, 0), (8, 8, 1))
    grid2 = expected_field("grid2", config, window)
    assert tuple(grid2[0]) == (8, 4) and tuple(grid2[-1]) == (15, 11)
    assert verify(oracle_fields(config, window), config, window).ok


def test_verify_finds_a_wrong_first_or_last_column_alone() -> None:
    # Grid (2, 2, 2) × block (2, 2, 2): 64 threads. Only row 9's threadIdx.x is made wrong
    # (column 0 of 3), then only row 20's grid3 z (column 2): one mismatched row each, in that
    # field alone.
    from simtviz.core.schema import CHECKED_FIELDS

    config = LaunchConfig.of((2, 2, 2), (2, 2, 2))
    window = Window.full(config)
    good = {name: expected_field(name, config, window).copy() for name in CHECKED_FIELDS}
    fields = {k: v.copy() for k, v in good.items()}
    fields["threadIdx"][9, 0] += 1
    result = verify(fields, config, window)
    assert (result.matched, result.mismatched_by_field["threadIdx"]) == (63, 1)
    first = result.first_mismatch
    assert first is not None and (first.row, first.field) == (9, "threadIdx")
    fields = {k: v.copy() for k, v in good.items()}
    fields["grid3"][20, 2] += 1
    result = verify(fields, config, window)
    assert (result.matched, result.mismatched_by_field["grid3"]) == (63, 1)
