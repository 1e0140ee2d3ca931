"""A small complete recording (2×2 blocks of 4×4 threads, every field the oracle's) for tests of
files and exports."""

from __future__ import annotations

import numpy as np

from simtviz.core.launch import LaunchConfig
from simtviz.core.oracle import expected_field
from simtviz.core.recording import Recording
from simtviz.core.window import Window


def make_recording() -> Recording:
    config = LaunchConfig.of((2, 2), (4, 4))
    window = Window.full(config)
    fields = {
        n: expected_field(n, config, window)
        for n in ("threadIdx", "blockIdx", "grid1", "grid2", "grid3", "laneid", "warp")
    }
    fields["smid"] = np.full(window.threads, -1, np.int32)
    fields["t_ns"] = np.full(window.threads, -1, np.int64)
    return Recording(config, window, fields, "sim")
