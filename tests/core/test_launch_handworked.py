"""Dim3 and LaunchConfig from what a user types or a test hands over, worked by hand."""

from __future__ import annotations

import pytest

from simtviz.core.launch import Dim3, DimParseError, LaunchConfig


def test_dim3_from_every_form() -> None:
    assert Dim3().as_tuple() == (1, 1, 1)
    d = Dim3(4, 3)
    assert Dim3.of(d) is d
    assert Dim3.of("8, 4").as_tuple() == (8, 4, 1)
    assert Dim3.of("(2x3x4)").as_tuple() == (2, 3, 4)
    assert Dim3.of(7).as_tuple() == (7, 1, 1)
    assert Dim3.of((5,)).as_tuple() == (5, 1, 1)
    assert Dim3.of([1, 2, 3]).as_tuple() == (1, 2, 3)
    assert LaunchConfig.of("4,3", "8,4") == LaunchConfig(Dim3(4, 3, 1), Dim3(8, 4, 1))
    assert Dim3(2, 3, 4).volume == 24 and str(Dim3(2, 3, 4)) == "(2, 3, 4)"
    assert Dim3(16, 16).python(2) == "(16, 16)" and Dim3(256).python(1) == "256"


@pytest.mark.parametrize("value", [(), (1, 2, 3, 4)])
def test_dim3_needs_one_to_three_entries(value) -> None:
    with pytest.raises(DimParseError):
        Dim3.of(value)


@pytest.mark.parametrize("value", [True, 2.0, "3"])
def test_dim3_takes_whole_numbers_only(value) -> None:
    with pytest.raises(TypeError):
        Dim3(value)
    with pytest.raises(TypeError):
        Dim3(1, 1, value)


def test_dim3_refuses_negatives_and_accepts_zero() -> None:
    assert Dim3(0, 1, 1).x == 0
    with pytest.raises(DimParseError, match="negative"):
        Dim3(1, -1, 1)


def test_an_empty_block_has_an_empty_last_warp() -> None:
    assert LaunchConfig.of(1, (0, 1, 1)).last_warp_size == 0
    assert LaunchConfig.of(1, (0, 1, 1)).warps_per_block == 0
