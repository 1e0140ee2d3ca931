"""Every built-in device profile, and the edges of the occupancy arithmetic, against hand-worked values.

Device figures: CUDA C++ Programming Guide, "Technical Specifications per Compute Capability"
(rows named in each comment below); the carveouts: the guide's "Shared memory capacity per SM"
lists (and cuda_occupancy.h's cudaOccAlignUpShmemSizeVoltaPlus). SM counts: NVIDIA product pages
(T4 40, A100 108, RTX 3090 82, L4 58, H100 SXM 132). Occupancy rules as in
tests/core/schedule/test_occupancy.py:
warps = ceil(threads / 32); registers per warp = regs × 32 rounded up to 256, each of 4
sub-partitions holds (65,536 / 4 = 16,384) // per-warp warps; shared memory per block =
bytes + reserved (1 KiB from cc 8.0) rounded up to 256 B (cc ≤ 7.x) or 128 B (cc ≥ 8.0).
"""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from simtviz.core.schedule.occupancy import (
    ATTRIBUTE_NAMES,
    _max_blocks,
    occupancy,
    occupancy_curve,
    profile_for,
    profile_from_attributes,
    read_device_attributes,
    theoretical_waves,
)

KIB = 1024

# Columns, from the guide's table (one column per cc):
#   SMs (product page); "Maximum number of resident threads per SM"; "Maximum number of resident
#   blocks per SM"; "Maximum amount of shared memory per SM" (KiB); "Maximum amount of shared
#   memory per thread block" (KiB, opt-in); reserved per block (1 KiB from 8.0, "Shared Memory"
#   section of each architecture); allocation unit (B); "Shared memory capacity per SM" (KiB).
TABLE = {
    "7.5": (40, 1024, 16, 64, 64, 0, 256, (32, 64)),
    "8.0": (108, 2048, 32, 164, 163, 1024, 128, (0, 8, 16, 32, 64, 100, 132, 164)),
    "8.6": (82, 1536, 16, 100, 99, 1024, 128, (0, 8, 16, 32, 64, 100)),
    "8.9": (58, 1536, 24, 100, 99, 1024, 128, (0, 8, 16, 32, 64, 100)),
    "9.0": (132, 2048, 32, 228, 227, 1024, 128, (0, 8, 16, 32, 64, 100, 132, 164, 196, 228)),
}


@pytest.mark.parametrize("cc", sorted(TABLE))
def test_profile_fields_match_the_guide(cc: str) -> None:
    sms, threads, blocks, smem_kib, optin_kib, reserved, unit, carveouts = TABLE[cc]
    p = profile_for(cc)
    assert p.sms == sms
    assert p.max_threads_per_sm == threads
    assert p.max_blocks_per_sm == blocks
    assert p.shared_memory_per_sm == smem_kib * KIB
    assert p.shared_memory_per_block_optin == optin_kib * KIB
    assert p.reserved_shared_memory_per_block == reserved
    assert p.shared_memory_allocation_unit == unit
    assert p.shared_memory_carveouts_kib == carveouts
    # Same on every column: "Maximum number of threads per block" 1024, "32-bit registers per SM"
    # 64 K, "... per thread block" 64 K, "... per thread" 255, 48 KiB per block without opt-in.
    assert p.max_threads_per_block == 1024
    assert p.registers_per_sm == 65536
    assert p.max_registers_per_block == 65536
    assert p.max_registers_per_thread == 255
    assert p.shared_memory_per_block == 48 * KIB


# 32-thread blocks (1 warp), 32 registers: threads allow max warps // 1 (32/64/48/48/64), registers
# 16,384 // 1024 = 16 warps per sub-partition → 64 blocks, so the resident-blocks row decides.
# Occupancy = blocks / max warps: 16/32, 32/64, 16/48, 24/48, 32/64.
@pytest.mark.parametrize(
    ("cc", "blocks", "occ"),
    [("7.5", 16, 0.5), ("8.0", 32, 0.5), ("8.6", 16, 1 / 3), ("8.9", 24, 0.5), ("9.0", 32, 0.5)],
)
def test_32_thread_blocks_are_limited_by_the_resident_blocks_row(cc: str, blocks: int, occ: float) -> None:
    o = occupancy(profile_for(cc), 32, 32)
    assert o.blocks_per_sm == blocks
    assert o.limiter == "blocks"
    assert o.occupancy == pytest.approx(occ)


# 1024-thread blocks (32 warps), 32 registers: threads allow 32//32 = 1 (7.5), 64//32 = 2 (8.0, 9.0),
# 48//32 = 1 (8.6, 8.9); registers 16 warps × 4 = 64 warps // 32 = 2. Occupancy 32/32, 64/64, 32/48.
@pytest.mark.parametrize(
    ("cc", "blocks", "occ"),
    [("7.5", 1, 1.0), ("8.0", 2, 1.0), ("8.6", 1, 2 / 3), ("8.9", 1, 2 / 3), ("9.0", 2, 1.0)],
)
def test_1024_thread_blocks_are_limited_by_threads(cc: str, blocks: int, occ: float) -> None:
    o = occupancy(profile_for(cc), 1024, 32)
    assert o.limits["threads"] == blocks
    assert o.limits["registers"] == 2
    assert o.blocks_per_sm == blocks
    assert o.limiter == "threads"  # a tie with registers on 8.0/9.0 names threads first
    assert o.occupancy == pytest.approx(occ)


@pytest.mark.parametrize("cc", sorted(TABLE))
def test_register_limits_with_256_thread_blocks(cc: str) -> None:
    p = profile_for(cc)
    # 8 warps. 64 regs: 2048 per warp, 16,384 // 2048 = 8 warps per sub-partition → 32 // 8 = 4.
    assert occupancy(p, 256, 64).limits["registers"] == 4
    assert occupancy(p, 256, 64).registers_per_block == 2048 * 8
    # 128 regs: 4096 per warp → 4 per sub-partition → 16 // 8 = 2.
    assert occupancy(p, 256, 128).limits["registers"] == 2
    # 255 regs: 8160 rounds up to 8192 per warp → 2 per sub-partition → 8 // 8 = 1; the block's
    # 8 × 8192 = 65,536 is exactly the per-block limit, so it still fits.
    assert occupancy(p, 256, 255).limits["registers"] == 1
    assert occupancy(p, 256, 255).registers_per_block == 65536
    # 104 regs: 3328 per warp (13 × 256), 16,384 // 3328 = 4 → 16 warps; with 32-thread blocks
    # that is 16 blocks (65,536 registers; 66,560 would give 5 × 4 = 20).
    assert occupancy(p, 32, 104).limits["registers"] == 16


def test_more_than_255_registers_never_fits() -> None:
    # "Maximum number of 32-bit registers per thread: 255"; one warp of 256 would be 8192
    # registers and fit the block limit, so only the per-thread row stops it.
    o = occupancy(profile_for("9.0"), 32, 256)
    assert o.limits["registers"] == 0
    assert o.blocks_per_sm == 0
    assert o.limiter == "registers"


def test_255_registers_with_1024_threads_exceeds_the_block_register_limit() -> None:
    # 32 warps × 8192 = 262,144 > 65,536 registers per block.
    o = occupancy(profile_for("8.0"), 1024, 255)
    assert o.limits["registers"] == 0
    assert o.registers_per_block == 262144


def test_zero_registers_allocates_none_and_does_not_limit() -> None:
    o = occupancy(profile_for("9.0"), 256, 0)
    assert o.limits["registers"] is None
    assert o.registers_per_block == 0
    assert o.blocks_per_sm == 8  # threads: 64 // 8


def test_a_smaller_per_block_register_file_limits_big_blocks() -> None:
    # A cc 6.2 part (Jetson TX2) reports 32 K registers per block ("Maximum number of 32-bit
    # registers per thread block" 32 K for 6.2) and 64 K per SM. 1024 threads × 40 regs:
    # 1280 per warp × 32 warps = 40,960 > 32,768 → cannot launch, though the SM alone
    # (16,384 // 1280 = 12 per sub-partition → 48 warps) would hold one.
    attributes = {
        "COMPUTE_CAPABILITY_MAJOR": 6,
        "COMPUTE_CAPABILITY_MINOR": 2,
        "MAX_REGISTERS_PER_BLOCK": 32768,
    }
    jetson = profile_from_attributes(attributes)
    assert occupancy(jetson, 1024, 40).limits["registers"] == 0
    # 32 regs: 1024 × 32 = 32,768, exactly the limit → 16 × 4 = 64 warps // 32 = 2.
    assert occupancy(jetson, 1024, 32).limits["registers"] == 2
    # Pascal allocates shared memory in 256 B units and has no carveout list here.
    assert jetson.shared_memory_allocation_unit == 256
    assert jetson.shared_memory_carveouts_kib == ()


def test_threads_per_block_above_1024_cannot_launch() -> None:
    # "Maximum number of threads per block: 1024"; 1025 threads would otherwise be 33 warps, 64 // 33 = 1.
    o = occupancy(profile_for("9.0"), 1025, 32)
    assert o.limits["threads"] == 0
    assert o.blocks_per_sm == 0
    assert o.warps_per_block == 33


def test_reserved_kib_alone_limits_blocks_from_cc80() -> None:
    # No shared memory asked for: from 8.0 the 1 KiB reserve still takes 1024 B per block.
    assert occupancy(profile_for("8.0"), 32, 32).limits["shared memory"] == 164  # 167,936 // 1024
    assert occupancy(profile_for("8.6"), 32, 32).limits["shared memory"] == 100  # 102,400 // 1024
    assert occupancy(profile_for("8.9"), 32, 32).limits["shared memory"] == 100
    assert occupancy(profile_for("9.0"), 32, 32).limits["shared memory"] == 228  # 233,472 // 1024
    # 7.5 reserves nothing: 0 bytes allocate nothing, and shared memory sets no limit.
    t = occupancy(profile_for("7.5"), 32, 32)
    assert t.limits["shared memory"] is None
    assert t.shared_memory_allocated == 0


def test_shared_memory_allocation_units() -> None:
    # 7.5: 1 B → 256 B, 257 B → 512 B; 65,536 // 256 = 256 blocks.
    t = profile_for("7.5")
    assert occupancy(t, 32, 32, 1).shared_memory_allocated == 256
    assert occupancy(t, 32, 32, 1).limits["shared memory"] == 256
    assert occupancy(t, 32, 32, 257).shared_memory_allocated == 512
    # 8.6: 1 B + 1024 = 1025 → 1152 (9 × 128); 102,400 // 1152 = 88. 129 B + 1024 = 1153 → 1280.
    a = profile_for("8.6")
    assert occupancy(a, 32, 32, 1).shared_memory_allocated == 1152
    assert occupancy(a, 32, 32, 1).limits["shared memory"] == 88
    assert occupancy(a, 32, 32, 129).shared_memory_allocated == 1280


def test_shared_memory_limit_at_a_few_sizes() -> None:
    # 7.5, 13 KiB = 13,312 B (a multiple of 256): 65,536 // 13,312 = 4.
    assert occupancy(profile_for("7.5"), 32, 32, 13 * KIB).limits["shared memory"] == 4
    # 8.0, 16 KiB + 1 KiB = 17,408: 167,936 // 17,408 = 9.
    assert occupancy(profile_for("8.0"), 32, 32, 16 * KIB).limits["shared memory"] == 9
    # 8.9, 32 KiB + 1 KiB = 33,792: 102,400 // 33,792 = 3.
    assert occupancy(profile_for("8.9"), 32, 32, 32 * KIB).limits["shared memory"] == 3


def test_the_48_kib_default_and_opting_in() -> None:
    h = profile_for("9.0")
    # Exactly 48 KiB is allowed without opting in: 49,152 + 1024 = 50,176 → 233,472 // 50,176 = 4.
    assert occupancy(h, 128, 32, 48 * KIB).limits["shared memory"] == 4
    # One byte more needs the opt-in; with it: 50,177 → 50,304, 233,472 // 50,304 = 4.
    assert occupancy(h, 128, 32, 48 * KIB + 1).limits["shared memory"] == 0
    assert occupancy(h, 128, 32, 48 * KIB + 1, opt_in=True).limits["shared memory"] == 4
    # Opt-in maximum 227 KiB: 232,448 + 1024 = 233,472 = the whole SM → 1 block; one byte more → 0.
    assert occupancy(h, 128, 32, 227 * KIB, opt_in=True).limits["shared memory"] == 1
    assert occupancy(h, 128, 32, 227 * KIB + 1, opt_in=True).limits["shared memory"] == 0
    # 8.0: 163 KiB opt-in + 1 KiB = 164 KiB → 1 block.
    assert occupancy(profile_for("8.0"), 128, 32, 163 * KIB, opt_in=True).limits["shared memory"] == 1
    # 7.5: 64 KiB opt-in, no reserve → the whole 64 KiB SM, 1 block.
    assert occupancy(profile_for("7.5"), 128, 32, 64 * KIB, opt_in=True).limits["shared memory"] == 1


def test_occupancy_rejects_impossible_inputs_and_accepts_the_smallest() -> None:
    h = profile_for("9.0")
    with pytest.raises(ValueError):
        occupancy(h, 0, 32)
    with pytest.raises(ValueError):
        occupancy(h, 32, -1)
    with pytest.raises(ValueError):
        occupancy(h, 32, 32, -1)
    # One thread and zero registers / bytes are fine: 1 warp, blocks limit 32.
    o = occupancy(h, 1, 0, 0)
    assert o.warps_per_block == 1
    assert o.blocks_per_sm == 32


def test_curve_defaults_no_shared_memory_and_no_opt_in() -> None:
    h = profile_for("9.0")
    # 60 KiB is over the 48 KiB default: numba does not opt in, so every point is 0, shared memory.
    curve = occupancy_curve(h, 32, 60 * KIB)
    assert {pt.blocks_per_sm for pt in curve} == {0}
    assert {pt.limiter for pt in curve} == {"shared memory"}
    # Without shared memory an SM with only 256 B of it (unit 256, no reserve) still isn't limited:
    # 32 threads → 16 blocks (the blocks row of 7.5).
    tiny = replace(profile_for("7.5"), shared_memory_per_sm=256)
    first = occupancy_curve(tiny, 32)[0]
    assert (first.block, first.blocks_per_sm, first.limiter) == (32, 16, "blocks")


def test_curve_stops_at_1024_threads() -> None:
    curve = occupancy_curve(profile_for("8.6"), 32, step=1)
    assert len(curve) == 1024
    assert curve[-1].block == 1024
    # 1024 threads on 8.6: 48 // 32 = 1 block, 32 of 48 warps.
    assert curve[-1].blocks_per_sm == 1
    assert curve[-1].occupancy == pytest.approx(2 / 3)
    # Steps that do not divide 1024 stop below it: 205, 410, 615, 820 (1025 would be too big).
    assert [pt.block for pt in occupancy_curve(profile_for("8.6"), 32, step=205)] == [205, 410, 615, 820]


def test_theoretical_waves_edges() -> None:
    assert theoretical_waves(10, 1, 1) == 10  # one SM, one block at a time
    assert theoretical_waves(10, 0, 4) is None  # no SMs
    assert theoretical_waves(10, 132, 0) is None  # nothing fits
    assert theoretical_waves(10, -1, 4) is None
    assert theoretical_waves(10, 132, -1) is None
    assert theoretical_waves(0, 132, 8) == 0  # an empty launch needs no wave
    assert theoretical_waves(1057, 132, 8) == 2  # 1056 per wave, one block over


def test_cc87_from_attributes_gets_the_ampere_164_kib_carveouts() -> None:
    # cc 8.7 (Jetson Orin): "Shared memory capacity per SM" 0, 8, 16, 32, 64, 100, 132, 164 KiB.
    orin = profile_from_attributes({"COMPUTE_CAPABILITY_MAJOR": 8, "COMPUTE_CAPABILITY_MINOR": 7})
    assert orin.shared_memory_carveouts_kib == (0, 8, 16, 32, 64, 100, 132, 164)
    assert orin.shared_memory_allocation_unit == 128


def test_resident_blocks_for_capabilities_without_a_built_in_profile() -> None:
    # "Maximum number of resident blocks per SM": 8.7 → 16, 10.0 → 32, 12.0 → 32.
    assert _max_blocks((8, 7)) == 16
    assert _max_blocks((10, 0)) == 32
    assert _max_blocks((12, 0)) == 32


def test_read_device_attributes_reads_every_name_as_int() -> None:
    device = SimpleNamespace(**{name: str(i + 1) for i, name in enumerate(ATTRIBUTE_NAMES)})
    read = read_device_attributes(device)
    assert list(read) == list(ATTRIBUTE_NAMES)
    assert read["MULTIPROCESSOR_COUNT"] == 1
    assert all(isinstance(v, int) for v in read.values())
