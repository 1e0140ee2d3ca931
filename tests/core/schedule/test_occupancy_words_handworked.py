"""The occupancy calculator's words to the user, at the edges of each limit: which inputs it refuses
(``input_problems``: the reasons ``simtviz occupancy`` gives) and when it explains the 48 KiB
shared-memory default and the opt-in (``opt_in_note``), with the blocks the opt-in would give.

Figures used (CUDA C++ Programming Guide, technical specifications): cc 9.0 allows 1,024 threads per
block, 255 registers per thread, 227 KiB = 232,448 bytes of shared memory per block after opting in
(48 KiB = 49,152 bytes without), 2,048 threads (64 warps) and 228 KiB = 233,472 bytes of shared
memory per SM, 1 KiB reserved per block, allocated in 128-byte units. cc 7.5: 64 KiB = 65,536 bytes
opt-in and per SM, no reserve, 1,024 threads (32 warps) per SM. Registers: 32 per thread × 32
lanes = 1,024 per warp; each of 4 sub-partitions holds 16,384 // 1,024 = 16 warps, 64 per SM.
"""

from __future__ import annotations

from simtviz.core.schedule.occupancy import input_problems, opt_in_note, profile_for

H100 = profile_for("9.0")
T4 = profile_for("7.5")

REFUSED = (
    " bytes is above the 48 KB (49,152 bytes) of shared memory a block gets by default: such a launch "
    "is refused unless the kernel opts in (cudaFuncSetAttribute with MaxDynamicSharedMemorySize; "
    "numba's launches do not), hence 0 blocks. With the opt in: "
)


# --- input_problems ------------------------------------------------------------------------------


def test_inputs_exactly_at_every_limit_are_accepted() -> None:
    # 1,024 threads, 255 registers, 232,448 bytes: each is the most cc 9.0 allows, none is beyond
    assert input_problems(H100, 1024, 255, 232_448) == []
    # 7.5: 65,536 bytes is its opt-in maximum
    assert input_problems(T4, 1024, 255, 65_536) == []


def test_one_past_each_limit_is_named_with_the_limit() -> None:
    # 1,025 > 1,024 threads; 256 > 255 registers; 232,449 > 232,448 bytes: three reasons, in that order
    assert input_problems(H100, 1025, 256, 232_449) == [
        "1,025 threads per block; compute capability 9.0 allows at most 1,024",
        "256 registers per thread; compute capability 9.0 allows at most 255",
        "232,449 bytes of shared memory per block; compute capability 9.0 allows at most 232,448 "
        "even after opting in",
    ]


def test_only_the_broken_limit_is_named() -> None:
    # 7.5: 65,537 bytes is one past its 65,536-byte maximum; 256 threads and 32 registers are fine
    assert input_problems(T4, 256, 32, 65_537) == [
        "65,537 bytes of shared memory per block; compute capability 7.5 allows at most 65,536 "
        "even after opting in"
    ]
    # 256 registers alone: the register reason only
    assert input_problems(H100, 256, 256, 0) == [
        "256 registers per thread; compute capability 9.0 allows at most 255"
    ]


# --- opt_in_note ---------------------------------------------------------------------------------


def test_no_note_at_or_below_the_48_kib_default() -> None:
    # 49,152 bytes is exactly the default: allowed without opting in, nothing to explain
    assert opt_in_note(H100, 49_152, 32, 512) is None
    assert opt_in_note(H100, 0, 32, 512) is None
    assert opt_in_note(T4, 49_152, 32, 512) is None


def test_no_note_beyond_the_opt_in_maximum() -> None:
    # 232,449 bytes cannot launch even with the opt-in (input_problems says so): no opt-in note
    assert opt_in_note(H100, 232_449, 32, 512) is None
    # 7.5: 65,537 > 65,536
    assert opt_in_note(T4, 65_537, 32, 1024) is None


def test_one_byte_above_the_default_gives_4_blocks_with_the_opt_in() -> None:
    # 49,153 + 1,024 reserved = 50,177 → 50,304 (393 × 128); 233,472 // 50,304 = 4 blocks
    # (5 × 50,304 = 251,520 is too many). Block 128 = 4 warps: threads allow 16, registers
    # 64 // 4 = 16, blocks 32: shared memory's 4 wins; 4 × 4 = 16 warps of 64 = 25%.
    assert opt_in_note(H100, 49_153, 32, 128) == "49,153" + REFUSED + "4 blocks per SM (25%)."


def test_100_kib_gives_2_blocks_with_the_opt_in() -> None:
    # 102,400 + 1,024 = 103,424 (808 × 128, no rounding); 233,472 // 103,424 = 2 (3 would need
    # 310,272). Block 512 = 16 warps: threads 2,048 // 512 = 4, registers 64 // 16 = 4, blocks 32:
    # 2 blocks × 16 warps = 32 of 64 warps = 50%. (Without the opt-in it would be 0 blocks, 0%.)
    assert opt_in_note(H100, 102_400, 32, 512) == "102,400" + REFUSED + "2 blocks per SM (50%)."


def test_the_opt_in_maximum_itself_gets_a_note() -> None:
    # 232,448 + 1,024 = 233,472 = the whole SM: 1 block. Block 1,024 = 32 warps: threads allow 2,
    # registers 64 // 32 = 2: 1 block × 32 warps = 32 of 64 = 50%.
    assert opt_in_note(H100, 232_448, 32, 1024) == "232,448" + REFUSED + "1 block per SM (50%)."
    # 7.5: 65,536 bytes, no reserve, 256-byte units: the whole 65,536-byte SM, 1 block; 1,024
    # threads = 32 warps = all 32 of a 7.5 SM: 100%.
    assert opt_in_note(T4, 65_536, 32, 1024) == "65,536" + REFUSED + "1 block per SM (100%)."
