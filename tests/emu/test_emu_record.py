"""The index map's recording on the CPU emulator: verified by the oracle, windows of huge launches."""

from __future__ import annotations

import numpy as np

from simtviz.backends.record import RECORD, RecordRequest
from simtviz.backends.record.emu import recording_blocks
from simtviz.core.launch import Dim3, LaunchConfig
from simtviz.core.window import Window


def test_a_window_of_a_huge_launch_runs_only_its_own_blocks_and_verifies() -> None:
    # grid (2^31 - 1) × 1024 threads: 2.2 × 10^12 threads; a window x 3,000,000 .. +4,096 covers
    # blocks 3,000,000 // 1024 = 2929 .. (3,004,095) // 1024 = 2933: 5 blocks.
    config = LaunchConfig(Dim3(2**31 - 1, 1, 1), Dim3(1024, 1, 1))
    window = Window((3_000_000, 0, 0), (4096, 1, 1))
    assert recording_blocks(config, window).tolist() == [2929, 2930, 2931, 2932, 2933]
    r = RECORD.run_emu(RecordRequest(config, window), None, None)  # type: ignore[arg-type]
    assert r.backend == "emu" and r.verification.ok and r.verification.total == 4096
    assert r.fields["grid1"][0] == 3_000_000 and r.fields["blockIdx"][0].tolist() == [2929, 0, 0]
    assert (r.fields["smid"] == -1).all() and r.timings_ms["kernel_ms"] is None


def test_a_2d_window_takes_the_blocks_it_touches_in_linear_order() -> None:
    # grid (10, 10) of 8 × 8 blocks; window x 12..27, y 30..33 touches block columns 1..3
    # (12 // 8 .. 27 // 8) and block row 3 (30 // 8 .. 33 // 8 = 3, 4): rows 3 and 4.
    config = LaunchConfig(Dim3(10, 10, 1), Dim3(8, 8, 1))
    window = Window((12, 30, 0), (16, 4, 1))
    assert recording_blocks(config, window).tolist() == [31, 32, 33, 41, 42, 43]
    r = RECORD.run_emu(RecordRequest(config, window), None, None)  # type: ignore[arg-type]
    assert r.verification.ok and r.verification.total == 64
    np.testing.assert_array_equal(r.fields["grid2"][0], [12, 30])


def test_a_launch_a_gpu_would_refuse_is_refused_with_the_drivers_words() -> None:
    # 2048 threads per block: a GPU's limit is 1024; the emulator would run it, so it refuses.
    import pytest

    from simtviz.backends.sim import sim_info
    from simtviz.core.errors import LaunchRejected

    with pytest.raises(LaunchRejected, match="CUDA_ERROR_INVALID_VALUE"):
        RECORD.run_emu(RecordRequest(LaunchConfig(Dim3(1, 1, 1), Dim3(2048, 1, 1))), sim_info(), None)
