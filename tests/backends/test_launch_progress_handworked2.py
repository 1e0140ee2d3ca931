"""Record's progress for the smallest launches, worked by hand: one block, one thread."""

from __future__ import annotations

from simtviz.backends.record.sim import launch_progress
from simtviz.core.launch import LaunchConfig


def test_a_launch_of_one_block_is_done_when_its_block_is() -> None:
    one_block = LaunchConfig.of(1, 64)
    # 16 of its 64 threads recorded, no block finished: 16 / 64 = 25 %.
    assert launch_progress(rows_written=16, blocks_done=0, config=one_block) == 0.25
    # Its one block finished: 1 / 1 = 100 %, even before the rows are counted.
    assert launch_progress(rows_written=0, blocks_done=1, config=one_block) == 1.0


def test_a_launch_of_one_thread_is_done_when_its_row_is_written() -> None:
    # 1 block of 1 thread: its one row written = 1 / 1 = 100 % (the block not yet counted).
    assert launch_progress(rows_written=1, blocks_done=0, config=LaunchConfig.of(1, 1)) == 1.0
