"""Theoretical occupancy, checked against cases worked by hand from the CUDA rules.

Rules used (cuda_occupancy.h of CUDA 13.0, the model behind cudaOccupancyMaxActiveBlocksPerMultiprocessor):
warps per block = ceil(threads / 32); threads limit = (max warps per SM) // warps per block;
registers: per warp = regs × 32 rounded up to 256, each of 4 sub-partitions holds
(registers per SM / 4) // per-warp registers warps, limit = 4 × that // warps per block;
shared memory: (bytes + reserved 1 KiB on cc ≥ 8.0) rounded up to 128 B (256 B on cc 7.x),
limit = shared memory per SM // that. Occupancy = blocks × warps per block / max warps per SM.
"""

from __future__ import annotations

import pytest

from simtviz.core.schedule.occupancy import (
    PROFILES,
    occupancy,
    occupancy_curve,
    profile_for,
    profile_from_attributes,
    theoretical_waves,
)

H = profile_for("9.0")  # 64 warps, 32 blocks, 65,536 registers, 228 KiB shared, 1 KiB reserved
T = profile_for("7.5")  # 32 warps, 16 blocks, 65,536 registers, 64 KiB shared, no reserve, 256 B unit
A = profile_for("8.6")  # 48 warps, 16 blocks, 65,536 registers, 100 KiB shared, 1 KiB reserved


def test_cc90_256_threads_32_registers_is_limited_by_threads() -> None:
    # warps 8 → threads 64 // 8 = 8; registers 32 × 32 = 1024 per warp, 16,384 // 1024 = 16 warps
    # per sub-partition × 4 = 64 // 8 = 8 (a tie: the thread count is named);
    # shared (0 + 1024) → 233,472 // 1024 = 228; blocks 32.
    occ = occupancy(H, 256, 32)
    assert occ.blocks_per_sm == 8
    assert occ.limiter == "threads"
    assert set(occ.limiters) == {"threads", "registers"}
    assert occ.limits == {"threads": 8, "blocks": 32, "registers": 8, "shared memory": 228}
    assert occ.warps_per_sm == 64
    assert occ.occupancy == 1.0


def test_cc90_256_threads_64_registers_is_limited_by_registers() -> None:
    # 64 × 32 = 2048 per warp; 16,384 // 2048 = 8 warps per sub-partition → 32 warps → 32 // 8 = 4.
    occ = occupancy(H, 256, 64)
    assert (occ.blocks_per_sm, occ.limiter) == (4, "registers")
    assert occ.warps_per_sm == 32 and occ.occupancy == 0.5
    assert occ.registers_per_block == 2048 * 8


def test_cc90_48_kib_shared_memory_is_limited_by_shared_memory() -> None:
    # 49,152 + 1,024 reserved = 50,176 (a multiple of 128); 233,472 // 50,176 = 4 (4.65).
    occ = occupancy(H, 256, 32, 48 * 1024)
    assert (occ.blocks_per_sm, occ.limiter) == (4, "shared memory")
    assert occ.shared_memory_allocated == 50_176
    assert occ.occupancy == 0.5


def test_cc90_32_threads_is_limited_by_blocks() -> None:
    # 1 warp: threads 64, registers 64, shared 228, blocks 32 → 32 blocks, 32 of 64 warps.
    occ = occupancy(H, 32, 32)
    assert (occ.blocks_per_sm, occ.limiter) == (32, "blocks")
    assert occ.occupancy == 0.5


def test_registers_are_allocated_in_units_of_256_per_warp() -> None:
    # 33 × 32 = 1056 → 1280; 40 × 32 = 1280. 16,384 // 1280 = 12 per sub-partition → 48 // 8 = 6.
    assert occupancy(H, 256, 33).blocks_per_sm == 6
    assert occupancy(H, 256, 40).blocks_per_sm == 6
    assert occupancy(H, 256, 40).limiter == "registers"


def test_a_block_that_cannot_fit_gives_zero() -> None:
    # 2048 threads per block: more than 1024 → none.
    assert (occupancy(H, 2048, 32).blocks_per_sm, occupancy(H, 2048, 32).limiter) == (0, "threads")
    # 49,153 B: 50,177 → 50,304 > 48 KiB + 1 KiB allowed without opting in.
    occ = occupancy(H, 256, 32, 49_153)
    assert (occ.blocks_per_sm, occ.limiter) == (0, "shared memory")
    # Opted in (227 KiB per block): 233,472 // 50,304 = 4.
    assert occupancy(H, 256, 32, 49_153, opt_in=True).blocks_per_sm == 4
    # 255 registers: 8160 → 8192 per warp; 512 threads = 16 warps × 8192 = 131,072 > 65,536 per block.
    assert occupancy(A, 512, 255).blocks_per_sm == 0


def test_block_sizes_that_are_not_multiples_of_32_take_whole_warps() -> None:
    # 100 threads → 4 warps → 64 // 4 = 16 blocks, 64 warps: full occupancy with 25 % of lanes idle.
    occ = occupancy(H, 100, 32)
    assert (occ.blocks_per_sm, occ.warps_per_sm, occ.occupancy) == (16, 64, 1.0)


def test_cc75_cases() -> None:
    # 256 × 32: threads 32 // 8 = 4; registers 64 // 8 = 8; no shared memory at all → no limit.
    occ = occupancy(T, 256, 32)
    assert (occ.blocks_per_sm, occ.limiter, occ.occupancy) == (4, "threads", 1.0)
    assert occ.limits["shared memory"] is None
    # 32 threads: threads 32, blocks 16 → 16 warps of 32.
    occ = occupancy(T, 32, 32)
    assert (occ.blocks_per_sm, occ.limiter, occ.occupancy) == (16, "blocks", 0.5)
    # 20,000 B → 20,224 (256 B unit) → 65,536 // 20,224 = 3; 3 × 4 warps = 12 of 32.
    occ = occupancy(T, 128, 32, 20_000)
    assert (occ.blocks_per_sm, occ.limiter, occ.occupancy) == (3, "shared memory", 0.375)
    # 128 registers: 4096 per warp → 4 per sub-partition → 16 warps // 4 = 4 blocks, 16 of 32 warps.
    occ = occupancy(T, 128, 128)
    assert (occ.blocks_per_sm, occ.limiter, occ.occupancy) == (4, "registers", 0.5)


def test_cc86_cases() -> None:
    # 48 warps per SM: 256 → 6 blocks (full); 1024 → 1 block of 32 warps = 2/3.
    assert (occupancy(A, 256, 32).blocks_per_sm, occupancy(A, 256, 32).occupancy) == (6, 1.0)
    occ = occupancy(A, 1024, 32)
    assert (occ.blocks_per_sm, occ.limiter) == (1, "threads")
    assert occ.occupancy == pytest.approx(2 / 3)
    # 16 KiB: 16,384 + 1,024 = 17,408 → 102,400 // 17,408 = 5; 5 × 4 warps = 20 of 48.
    occ = occupancy(A, 128, 32, 16 * 1024)
    assert (occ.blocks_per_sm, occ.limiter) == (5, "shared memory")
    assert occ.occupancy == pytest.approx(20 / 48)
    # 255 registers, 256 threads: 8192 per warp → 2 per sub-partition → 8 warps → 1 block.
    occ = occupancy(A, 256, 255)
    assert (occ.blocks_per_sm, occ.limiter) == (1, "registers")


def test_occupancy_curve_over_block_sizes() -> None:
    curve = occupancy_curve(H, 32)
    assert [p.block for p in curve] == list(range(32, 1025, 32))
    by_block = {p.block: p for p in curve}
    assert by_block[32].occupancy == 0.5 and by_block[32].limiter == "blocks"
    assert by_block[64].occupancy == 1.0
    # 96 threads = 3 warps: 64 // 3 = 21 blocks = 63 warps.
    assert by_block[96].occupancy == pytest.approx(63 / 64)
    assert by_block[1024].occupancy == 1.0
    ampere = {p.block: p.occupancy for p in occupancy_curve(A, 32)}
    assert ampere[768] == 1.0 and ampere[1024] == pytest.approx(2 / 3)


def test_summary_has_the_contract_keys() -> None:
    summary = occupancy(H, 256, 64).summary()
    assert list(summary) == [
        "device", "cc", "block", "regs_per_thread", "smem_per_block",
        "blocks_per_sm", "warps_per_sm", "occupancy", "limiter", "limits",
    ]  # fmt: skip
    assert summary["cc"] == "9.0"
    assert summary["limits"] == {"threads": 8, "blocks": 32, "registers": 4, "shared_memory": 228}


def test_profile_from_device_attributes() -> None:
    # What an H200 reports through cuDeviceGetAttribute.
    attributes = {
        "COMPUTE_CAPABILITY_MAJOR": 9,
        "COMPUTE_CAPABILITY_MINOR": 0,
        "MULTIPROCESSOR_COUNT": 132,
        "MAX_THREADS_PER_MULTIPROCESSOR": 2048,
        "MAX_BLOCKS_PER_MULTIPROCESSOR": 32,
        "MAX_REGISTERS_PER_MULTIPROCESSOR": 65536,
        "MAX_REGISTERS_PER_BLOCK": 65536,
        "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR": 233472,
        "MAX_SHARED_MEMORY_PER_BLOCK": 49152,
        "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 232448,
        "RESERVED_SHARED_MEMORY_PER_BLOCK": 1024,
        "WARP_SIZE": 32,
        "MAX_THREADS_PER_BLOCK": 1024,
    }
    measured = profile_from_attributes(attributes, "NVIDIA H200")
    assert measured.measured and measured.name == "NVIDIA H200"
    for block, regs, smem in [(256, 32, 0), (256, 64, 0), (256, 32, 48 * 1024), (32, 32, 0)]:
        assert occupancy(measured, block, regs, smem).limits == occupancy(H, block, regs, smem).limits
    # The attributes, not the table, decide: a device with 1536 threads per SM holds 6 blocks of 256.
    smaller = profile_from_attributes({**attributes, "MAX_THREADS_PER_MULTIPROCESSOR": 1536})
    assert occupancy(smaller, 256, 32).blocks_per_sm == 6


def test_profiles_and_waves() -> None:
    assert set(PROFILES) == {"7.5", "8.0", "8.6", "8.9", "9.0"}
    assert profile_for((8, 9)).max_blocks_per_sm == 24
    with pytest.raises(ValueError, match=r"7\.0"):
        profile_for("7.0")
    # 132 SMs × 8 = 1056 per wave: 2122 blocks → 2 full waves and a tail of 10.
    assert theoretical_waves(2122, 132, 8) == 3
    assert theoretical_waves(1056, 132, 8) == 1
    assert theoretical_waves(10, 132, 0) is None
