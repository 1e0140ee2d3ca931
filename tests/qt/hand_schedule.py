"""A schedule worked out by hand, shared by the schedule view's and chart's line-by-line tests: a
non-square launch, grid (3, 2, 1) of blocks (48, 2, 1), on 2 SMs with 2 lanes each."""

from __future__ import annotations

import numpy as np

from simtviz.core.schedule import analyse
from simtviz.qt.tabs.schedule.data import ShownSchedule

# Six blocks on 2 SMs, at most 2 at once on an SM (times in ns):
#   SM 0: blocks 0 and 2 run [0, 4,000), then blocks 4 and 5 run [4,000, 6,000) (wave 2)
#   SM 1: blocks 1 and 3 run [1,000, 5,000)
# SM 0 ran 4 blocks, SM 1 ran 2; the whole run is 0 → 6,000 ns = 6 µs.
SMID = np.array([0, 1, 0, 1, 0, 0])
START = np.array([0, 1000, 0, 1000, 4000, 4000])
END = np.array([4000, 5000, 4000, 5000, 6000, 6000])
SUMMARY = {
    "backend": "gpu:NVIDIA H100",
    "grid": [3, 2, 1],
    "block": [48, 2, 1],
    "blocks": 6,
    "work_us": 2.5,
    "regs_per_thread": 40,
    "smem_per_block": 1536,
    "sms": 2,
    "driver_blocks_per_sm": 2,
    "theoretical": {"blocks_per_sm": 2, "waves": 2, "limiter": "threads"},
    "measured": {"max_resident_blocks_per_sm": 2, "waves": 2, "sms_used": 2, "span_us": 6.0},
}


def shown(source: str = "hand.npz") -> ShownSchedule:
    return ShownSchedule(SUMMARY, SMID, START, END, analyse(SMID, START, END), source)
