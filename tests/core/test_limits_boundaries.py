"""Every launch limit at its boundary: exactly at the limit passes, one over fails.

The limits are those every CUDA GPU since compute capability 5.0 shares (docs/CONTRACT.md): blockDim
(1024, 1024, 64) with at most 1,024 threads per block, gridDim (2^31 - 1, 65,535, 65,535), and
every dimension at least 1. The simulator runs 131,072 threads without asking, not one more.
"""

from __future__ import annotations

import pytest

from simtviz.backends.base import BackendInfo, BackendKind, check_size
from simtviz.backends.record import RECORD, RecordRequest
from simtviz.backends.sim import SimBackend, sim_info
from simtviz.core.errors import LaunchRejected, LaunchTooLarge
from simtviz.core.estimates import estimate_seconds, format_duration, max_threads_unasked
from simtviz.core.launch import LaunchConfig
from simtviz.core.limits import DeviceLimits, explain, validate

# (what, grid at the limit, block at the limit, the same one over)
BOUNDARIES = [
    ("blockDim.x", (1, 1, 1), (1024, 1, 1), (1, 1, 1), (1025, 1, 1)),
    ("blockDim.y", (1, 1, 1), (1, 1024, 1), (1, 1, 1), (1, 1025, 1)),
    ("blockDim.z", (1, 1, 1), (1, 1, 64), (1, 1, 1), (1, 1, 65)),
    ("gridDim.x", (2**31 - 1, 1, 1), (1, 1, 1), (2**31, 1, 1), (1, 1, 1)),
    ("gridDim.y", (1, 65535, 1), (1, 1, 1), (1, 65536, 1), (1, 1, 1)),
    ("gridDim.z", (1, 1, 65535), (1, 1, 1), (1, 1, 65536), (1, 1, 1)),
]


@pytest.mark.parametrize(("limit", "grid_ok", "block_ok", "grid_over", "block_over"), BOUNDARIES)
def test_each_dimension_at_and_one_over_its_limit(limit, grid_ok, block_ok, grid_over, block_over) -> None:
    assert validate(LaunchConfig.of(grid_ok, block_ok)) == []
    problems = validate(LaunchConfig.of(grid_over, block_over))
    # 1,025 threads along x or y also break the 1,024 threads per block, reported first.
    both = limit in ("blockDim.x", "blockDim.y")
    assert [p.limit for p in problems] == (["threads per block", limit] if both else [limit])
    problems = problems[1:] if both else problems
    maximum = {"blockDim.x": 1024, "blockDim.y": 1024, "blockDim.z": 64}.get(limit)
    maximum = maximum or {"gridDim.x": 2**31 - 1, "gridDim.y": 65535, "gridDim.z": 65535}[limit]
    assert (problems[0].value, problems[0].maximum) == (maximum + 1, maximum)
    assert problems[0].message == (
        f"{limit} is {maximum + 1:,}; this device allows at most {maximum:,} ({maximum + 1:,} > {maximum:,})"
    )


def test_threads_per_block_at_and_one_over_1024() -> None:
    assert validate(LaunchConfig.of(1, (32, 32, 1))) == []
    assert validate(LaunchConfig.of(1, (16, 8, 8))) == []  # 1,024 with z at 8
    # 1,025 threads: (5, 5, 41); no single dimension is over its own limit.
    problems = validate(LaunchConfig.of(1, (5, 5, 41)))
    assert [(p.limit, p.value, p.maximum) for p in problems] == [("threads per block", 1025, 1024)]
    assert problems[0].message == (
        "blockDim (5, 5, 41) has 1,025 threads; this device allows at most 1,024 per block (1,025 > 1,024)"
    )


@pytest.mark.parametrize("axis", range(3))
@pytest.mark.parametrize("what", ["gridDim", "blockDim"])
def test_every_dimension_must_be_at_least_one(what, axis) -> None:
    dims = [1, 1, 1]
    assert validate(LaunchConfig.of(dims, dims)) == []
    dims[axis] = 0
    config = LaunchConfig.of(dims, (1, 1, 1)) if what == "gridDim" else LaunchConfig.of((1, 1, 1), dims)
    problems = validate(config)
    name = f"{what}.{'xyz'[axis]} >= 1"
    assert [(p.limit, p.value, p.minimum) for p in problems] == [(name, 0, 1)]
    noun = "blocks" if what == "gridDim" else "threads"
    assert f"a launch of zero {noun} is not allowed" in problems[0].message


def test_a_device_with_smaller_limits_is_checked_against_its_own() -> None:
    small = DeviceLimits(
        name="small", max_threads_per_block=256, max_block=(256, 256, 16), max_grid=(100, 10, 10)
    )
    assert validate(LaunchConfig.of((100, 10, 10), (16, 16, 1)), small) == []
    over = validate(LaunchConfig.of((101, 11, 11), (1, 1, 17)), small)
    assert [p.limit for p in over] == ["blockDim.z", "gridDim.x", "gridDim.y", "gridDim.z"]
    assert explain(over).startswith("Limit exceeded: blockDim.z is 17; this device allows at most 16")
    assert explain([]) == ""


def test_the_simulator_rejects_one_over_a_limit_as_the_driver_would() -> None:
    with pytest.raises(LaunchRejected) as info:
        SimBackend().record(LaunchConfig.of(1, (1, 1, 65)))
    assert [p.limit for p in info.value.violations] == ["blockDim.z"]


# --- when a run needs asking first --------------------------------------------------------------


def test_the_simulator_asks_from_131073_threads() -> None:
    info = sim_info()
    assert max_threads_unasked("sim") == 131_072
    assert not info.needs_confirmation(131_072)
    assert info.needs_confirmation(131_073)
    check_size(info, 131_072, force=False)  # exactly at the limit: no question
    with pytest.raises(LaunchTooLarge) as too_large:
        check_size(info, 131_073, force=False)
    assert too_large.value.threads == 131_073
    check_size(info, 131_073, force=True)  # --force: runs


def test_a_gpu_asks_only_past_2_to_the_40_threads() -> None:
    gpu = BackendInfo(BackendKind.GPU, "gpu:test", "a GPU", DeviceLimits())
    assert not gpu.needs_confirmation(1 << 40)
    assert gpu.needs_confirmation((1 << 40) + 1)
    assert gpu.device_words == "the GPU" and sim_info().device_words == "the CUDA simulator"


def test_the_record_check_counts_every_thread_of_the_launch() -> None:
    # 128 blocks of 1,024 = 131,072 threads: runs unasked; 129 blocks ask first, even for a small window.
    info = sim_info()
    RECORD.check(RecordRequest(LaunchConfig.of(128, 1024)), info)
    with pytest.raises(LaunchTooLarge):
        RECORD.check(RecordRequest(LaunchConfig.of(129, 1024)), info)
    RECORD.check(RecordRequest(LaunchConfig.of(129, 1024), force=True), info)


def test_estimates_lean_slow_and_read_as_a_person_would() -> None:
    # One rate, 3,000 simulated threads a second; vecadd adds a second to start, trace two.
    assert estimate_seconds("sim", 9_000) == 3.0
    assert estimate_seconds("sim", 6_000, "vecadd") == 3.0
    assert estimate_seconds("sim", 6_000, "trace") == 4.0
    assert estimate_seconds("sim", 3_000, "unmeasured") == 1.0  # the slowest known rate
    assert estimate_seconds("gpu", 4 * 10**11) == 2.0
    assert [format_duration(s) for s in (0.45, 1, 42, 119.4, 120, 7199, 7200, 172_799, 172_800, 10**6)] == [
        "450 ms", "1 s", "42 s", "119 s", "2 min", "120 min", "2.0 h", "48.0 h", "2 days", "12 days"
    ]  # fmt: skip


def test_a_violation_reads_as_its_message() -> None:
    (problem,) = validate(LaunchConfig.of(1, (1, 1, 65)))
    assert str(problem) == problem.message == "blockDim.z is 65; this device allows at most 64 (65 > 64)"
    (zero,) = validate(LaunchConfig.of(0, 1))
    assert (zero.value, zero.maximum, zero.minimum) == (0, 0, 1)
