"""Qt-free parts of the lecture-hall fixes: the global warp id, going to a thread by its indices."""

from __future__ import annotations

import numpy as np
import pytest

from simtviz.core.launch import LaunchConfig
from simtviz.core.locate import LocateError, ThreadAddress, locate, parse_address
from simtviz.core.oracle import expected_field
from simtviz.core.recording import COLOR_FIELDS, Recording
from simtviz.core.schema import RECORD_FIELDS
from simtviz.core.window import Window


def synthetic(config: LaunchConfig, window: Window | None = None, backend: str = "sim") -> Recording:
    """What the kernel would record, from the formulas (smid and t_ns unknown: -1)."""
    window = window or Window.full(config)
    fields = {}
    for name, (shape, kind) in RECORD_FIELDS.items():
        if name in ("smid", "t_ns"):
            fields[name] = np.full((window.threads, *shape), -1, dtype=kind)
        else:
            fields[name] = np.asarray(expected_field(name, config, window)).astype(kind)
    return Recording(config, window, fields, backend)


def test_global_warp_id_numbers_the_warps_of_the_whole_launch() -> None:
    # Two blocks of 48 threads: 2 warps per block (the second one partial).
    rec = synthetic(LaunchConfig.of((2, 1, 1), (48, 1, 1)))
    assert COLOR_FIELDS["global warp id"] is True  # an id: categorical colours and a legend
    ids = rec.color_values("global warp id")
    # block 0: threads 0–31 warp 0, 32–47 warp 1; block 1: threads 0–31 warp 2, 32–47 warp 3
    assert ids[0] == 0 and ids[31] == 0 and ids[32] == 1 and ids[47] == 1
    assert ids[48] == 2 and ids[48 + 31] == 2 and ids[48 + 32] == 3 and ids[95] == 3
    # the per-block "warp" repeats itself in every block: the reason for this field
    assert rec.color_values("warp")[48] == 0


def test_global_warp_id_in_2d_blocks() -> None:
    # 2 × 2 blocks of 8 × 8 threads = 64 threads = 2 warps per block; block linear id = x + 2 y.
    rec = synthetic(LaunchConfig.of((2, 2, 1), (8, 8, 1)))
    image = rec.image("global warp id")
    assert image[0, 0] == 0  # block (0,0), thread (0,0)
    assert image[4, 0] == 1  # block (0,0), thread (0,4): id 32 → warp 1
    assert image[0, 8] == 2  # block (1,0) → linear 1 → warps 2, 3
    assert image[12, 8] == 7  # block (1,1) → linear 3, thread (0,4) → 3 × 2 + 1


@pytest.mark.parametrize(
    "text, address",
    [
        ("1,2 3,0", ThreadAddress(block=(1, 2, 0), thread=(3, 0, 0))),
        ("blockIdx 1, 2 threadIdx 3, 0", ThreadAddress(block=(1, 2, 0), thread=(3, 0, 0))),
        ("(1,2,0) (3,0,0)", ThreadAddress(block=(1, 2, 0), thread=(3, 0, 0))),
        ("42", ThreadAddress(linear=42)),
    ],
)
def test_parse_address(text: str, address: ThreadAddress) -> None:
    assert parse_address(text) == address


def test_locate_by_indices_and_by_global_index() -> None:
    config = LaunchConfig.of((4, 3, 1), (8, 4, 1))  # a 32 × 12 map
    full = Window.full(config)
    # x = 1 × 8 + 3 = 11, y = 2 × 4 + 0 = 8
    assert locate(config, full, parse_address("1,2 3,0")) == (0, 8, 11)
    # 42 = 10 + 1 × 32
    assert locate(config, full, parse_address("42")) == (0, 1, 10)
    one_d = LaunchConfig.of((4, 1, 1), (32, 1, 1))  # one row per block
    assert locate(one_d, Window.full(one_d), parse_address("2 5")) == (0, 2, 5)
    three_d = LaunchConfig.of((2, 2, 2), (4, 2, 2))
    # z = 1 × 2 + 1 = 3, y = 0, x = 1 × 4 + 2 = 6
    assert locate(three_d, Window.full(three_d), parse_address("1,0,1 2,0,1")) == (3, 0, 6)


def test_locate_says_why_a_thread_is_not_there() -> None:
    config = LaunchConfig.of((4, 3, 1), (8, 4, 1))
    with pytest.raises(LocateError, match=r"blockIdx.x = 9 is outside 0 … 3 \(gridDim.x = 4\)"):
        locate(config, Window.full(config), parse_address("9,0 0,0"))
    with pytest.raises(LocateError, match="outside 0 … 383"):
        locate(config, Window.full(config), parse_address("384"))
    window = Window((0, 0, 0), (16, 12, 1))  # only the left half recorded
    with pytest.raises(LocateError, match="outside the recorded window"):
        locate(config, window, parse_address("3,0 0,0"))
    with pytest.raises(LocateError, match="not a thread"):
        parse_address("hello")
