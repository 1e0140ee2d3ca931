from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simtviz.core.launch import Dim3, DimParseError, LaunchConfig


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("256", (256, 1, 1)),
        ("16,16", (16, 16, 1)),
        ("8, 8, 4", (8, 8, 4)),
        ("(4,3)", (4, 3, 1)),
        ("16x16", (16, 16, 1)),
        ("0", (0, 1, 1)),
    ],
)
def test_parse_accepts_what_users_type(text: str, expected: tuple[int, int, int]) -> None:
    assert Dim3.parse(text).as_tuple() == expected


@pytest.mark.parametrize("text", ["", "abc", "1,2,3,4", "1,,2", "-1", "2.5", "1e3", "4,-2"])
def test_parse_rejects_with_a_sentence(text: str) -> None:
    with pytest.raises(DimParseError) as info:
        Dim3.parse(text)
    assert str(info.value)  # always says what was wrong


def test_negative_is_called_negative() -> None:
    with pytest.raises(DimParseError, match="negative"):
        Dim3.parse("-4")


def test_totals_of_the_guides_vecadd_launch() -> None:
    n = 2**24 + 11
    config = LaunchConfig.of(-(-n // 256), 256)
    assert config.grid.x == 65537
    assert config.total_threads - n == 245  # the surplus threads the guard protects against
    assert config.warps_per_block == 8
    assert config.last_warp_size == 32
    assert config.rank == 1


def test_partial_last_warp_and_rank() -> None:
    config = LaunchConfig.of((4, 3), (10, 5))
    assert config.threads_per_block == 50
    assert config.warps_per_block == 2
    assert config.last_warp_size == 18
    assert config.rank == 2
    assert LaunchConfig.of((1, 1, 2), 32).rank == 3
    assert config.extent == (40, 15, 1)


def test_launch_line_reads_like_the_chapter() -> None:
    assert LaunchConfig.of(4096, 256).launch_line("vecadd", "A, B, C") == "vecadd[4096, 256](A, B, C)"
    assert LaunchConfig.of((4, 3), (8, 4)).launch_line() == "record_threads[(4, 3), (8, 4)](...)"
    assert (
        LaunchConfig.of((2, 2, 2), (4, 4, 4)).launch_line().startswith("record_threads[(2, 2, 2), (4, 4, 4)]")
    )


@given(st.tuples(*[st.integers(0, 2**40)] * 3))
def test_parse_round_trips(values: tuple[int, int, int]) -> None:
    assert Dim3.parse(",".join(map(str, values))).as_tuple() == values
