from __future__ import annotations

from simtviz.core.launch import LaunchConfig
from simtviz.core.limits import DeviceLimits, explain, validate


def test_the_guides_2048_threads_per_block_is_explained() -> None:
    problems = validate(LaunchConfig.of(4, 2048))
    messages = [p.message for p in problems]
    assert (
        "blockDim (2048, 1, 1) has 2,048 threads; this device allows at most 1,024 per block (2,048 > 1,024)"
        in messages
    )
    assert any(p.limit == "blockDim.x" and p.value == 2048 and p.maximum == 1024 for p in problems)


def test_each_limit_one_at_a_time() -> None:
    cases = {
        "threads per block": LaunchConfig.of(1, (1024, 2, 1)),
        "blockDim.z": LaunchConfig.of(1, (1, 1, 65)),
        "gridDim.y": LaunchConfig.of((1, 65536), 1),
        "gridDim.x": LaunchConfig.of(2**31, 1),
        "gridDim.z": LaunchConfig.of((1, 1, 65536), 1),
    }
    for limit, config in cases.items():
        assert [p.limit for p in validate(config)] == [limit], limit
    # blockDim.y beyond 1024 always breaks threads per block too: both are named.
    assert [p.limit for p in validate(LaunchConfig.of(1, (1, 1025, 1)))] == [
        "threads per block",
        "blockDim.y",
    ]


def test_zero_sized_dimensions() -> None:
    problems = validate(LaunchConfig.of(0, (32, 0)))
    assert {p.limit for p in problems} == {"gridDim.x >= 1", "blockDim.y >= 1"}
    assert "at least 1" in explain(problems)


def test_valid_launches_have_no_problems() -> None:
    assert validate(LaunchConfig.of((2**31 - 1, 65535, 65535), (1024, 1, 1))) == []
    assert validate(LaunchConfig.of(1, (32, 32, 1))) == []
    assert explain([]) == ""


def test_limits_come_from_the_device() -> None:
    small = DeviceLimits(name="toy", max_threads_per_block=512, max_block=(512, 512, 64))
    assert [p.limit for p in validate(LaunchConfig.of(1, 1024), small)] == ["threads per block", "blockDim.x"]


def test_every_limit_broken_together() -> None:
    problems = validate(LaunchConfig.of((2**31, 65536, 65536), (2048, 2048, 128)))
    assert len(problems) == 7
