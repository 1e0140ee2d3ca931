"""Theoretical occupancy: how many blocks of a kernel one SM can hold at once, and what stops more.

The arithmetic follows NVIDIA's own occupancy calculator, the header-only ``cuda_occupancy.h``
that ships with the CUDA toolkit (read from CUDA 13.0, ``__CUDA_OCC_MAJOR__ 12``), which is the
model behind ``cudaOccupancyMaxActiveBlocksPerMultiprocessor`` and the old Occupancy Calculator
spreadsheet. Per block, four resources each allow some number of resident blocks:

- threads (warps): ``floor((max threads per SM / 32) / ceil(block / 32))``
  (``cudaOccMaxBlocksPerSMWarpsLimit``);
- blocks: the hardware cap on resident blocks per SM (``cudaOccMaxBlocksPerMultiprocessor``);
- registers: allocated per warp, ``regs × 32`` rounded up to the 256-register unit; the register
  file is split over 4 sub-partitions (one per warp scheduler), each holding
  ``floor((registers per SM / 4) / registers per warp)`` warps, and a block also must fit the
  per-block register limit with its warps rounded up to a multiple of 4
  (``cudaOccMaxBlocksPerSMRegsLimit``);
- shared memory: static + dynamic + the driver's reserved bytes per block (1 KiB from cc 8.0),
  rounded up to the allocation unit (256 B on cc 7.x, 128 B from 8.0), divided into the shared
  memory of the SM's carveout (``cudaOccMaxBlocksPerSMSmemLimit``; with no carveout preference
  the driver takes the largest, ``sharedMemPerMultiprocessor``).

The device figures are the CUDA C++ Programming Guide's "Technical Specifications per Compute
Capability" table and the values ``cuDeviceGetAttribute`` reports (e.g. an H100/H200 reports
MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 233472 = 228 KiB, RESERVED_SHARED_MEMORY_PER_BLOCK = 1024).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

KIB = 1024

# The limiting factors, in the words of the outside contract, in the order used to break ties
# (cuda_occupancy.h reports every factor that reaches the minimum; one word is easier to teach,
# and the thread count is what a student changes first).
LIMITERS = ("threads", "blocks", "registers", "shared memory")
# Keys of the ``limits`` dict (CONTRACT: ``limits {threads, blocks, registers, shared_memory}``).
LIMIT_KEYS = {
    "threads": "threads",
    "blocks": "blocks",
    "registers": "registers",
    "shared memory": "shared_memory",
}

# cuda_occupancy.h: cudaOccSubPartitionsPerMultiprocessor = 4 for every cc >= 7.0.
REGISTER_SUB_PARTITIONS = 4
# cudaOccRegAllocationGranularity = 256 registers, allocated per warp, for every cc >= 3.0.
REGISTER_ALLOCATION_UNIT = 256


@dataclass(frozen=True)
class DeviceProfile:
    """What an SM of one device (or of a typical part of one compute capability) offers."""

    name: str
    cc: tuple[int, int]
    sms: int
    max_threads_per_sm: int
    max_blocks_per_sm: int
    shared_memory_per_sm: int  # bytes, the largest carveout
    shared_memory_per_block_optin: int  # bytes, the most one block may ask for after opting in
    reserved_shared_memory_per_block: int  # bytes the driver keeps per block (1 KiB from cc 8.0)
    shared_memory_allocation_unit: int  # bytes (cudaOccSMemAllocationGranularity)
    shared_memory_carveouts_kib: tuple[int, ...]  # the SM's shared/L1 splits, KiB
    warp_size: int = 32
    max_threads_per_block: int = 1024
    registers_per_sm: int = 64 * KIB
    max_registers_per_block: int = 64 * KIB
    max_registers_per_thread: int = 255
    register_allocation_unit: int = REGISTER_ALLOCATION_UNIT  # registers, allocated per warp
    register_sub_partitions: int = REGISTER_SUB_PARTITIONS
    shared_memory_per_block: int = 48 * KIB  # bytes a block may use without opting in
    measured: bool = False  # True when read from a real device's attributes

    @property
    def max_warps_per_sm(self) -> int:
        return self.max_threads_per_sm // self.warp_size

    @property
    def cc_text(self) -> str:
        return f"{self.cc[0]}.{self.cc[1]}"


def _shared_unit(cc: tuple[int, int]) -> int:
    # cuda_occupancy.h, cudaOccSMemAllocationGranularity: 256 B up to cc 7.x, 128 B from cc 8.0.
    return 256 if cc[0] <= 7 else 128


def _reserved(cc: tuple[int, int]) -> int:
    # "Starting Ampere, CUDA driver reserves additional shared memory per block" (cuda_occupancy.h);
    # cudaDevAttrReservedSharedMemoryPerBlock reads 1024 on cc 8.x and 9.0, 0 before.
    return 1 * KIB if cc[0] >= 8 else 0


def _max_blocks(cc: tuple[int, int]) -> int:
    # cudaOccMaxBlocksPerMultiprocessor: 16 on 7.5, 8.6 and 8.7, 32 from 9.0; but 8.0 → 32, 8.9 → 24.
    return {(8, 0): 32, (8, 9): 24}.get(cc, 32 if cc[0] >= 9 else 16)


def _carveouts(cc: tuple[int, int]) -> tuple[int, ...]:
    # cudaOccAlignUpShmemSizeVoltaPlus: the shared-memory sizes an SM can be configured with.
    if cc == (7, 5):
        return (32, 64)
    if cc in ((8, 0), (8, 7)):
        return (0, 8, 16, 32, 64, 100, 132, 164)
    if cc[0] == 8:
        return (0, 8, 16, 32, 64, 100)
    if cc[0] == 9:
        return (0, 8, 16, 32, 64, 100, 132, 164, 196, 228)
    return ()


def _profile(
    name: str, cc: tuple[int, int], sms: int, threads: int, smem_kib: int, optin_kib: int
) -> DeviceProfile:
    return DeviceProfile(
        name=name,
        cc=cc,
        sms=sms,
        max_threads_per_sm=threads,
        max_blocks_per_sm=_max_blocks(cc),
        shared_memory_per_sm=smem_kib * KIB,
        shared_memory_per_block_optin=optin_kib * KIB,
        reserved_shared_memory_per_block=_reserved(cc),
        shared_memory_allocation_unit=_shared_unit(cc),
        shared_memory_carveouts_kib=_carveouts(cc),
    )


# Public figures (CUDA C++ Programming Guide, technical specifications per compute capability;
# SM counts from NVIDIA's product pages for one typical part of each capability).
PROFILES: dict[str, DeviceProfile] = {
    "7.5": _profile("Tesla T4 (Turing)", (7, 5), 40, 1024, 64, 64),
    "8.0": _profile("A100 (Ampere)", (8, 0), 108, 2048, 164, 163),
    "8.6": _profile("GeForce RTX 3090 (Ampere)", (8, 6), 82, 1536, 100, 99),
    "8.9": _profile("L4 (Ada Lovelace)", (8, 9), 58, 1536, 100, 99),
    "9.0": _profile("H100/H200 SXM (Hopper)", (9, 0), 132, 2048, 228, 227),
}


def profile_for(cc: str | tuple[int, int]) -> DeviceProfile:
    """The built-in profile of a compute capability written ``"8.6"`` or ``(8, 6)``."""
    key = cc if isinstance(cc, str) else f"{cc[0]}.{cc[1]}"
    key = key.strip()
    if key not in PROFILES:
        known = ", ".join(PROFILES)
        raise ValueError(f"no built-in profile for compute capability {key!r} (known: {known})")
    return PROFILES[key]


# cuda.h names (without CU_DEVICE_ATTRIBUTE_) → DeviceProfile field. numba's Device reads each as
# ``device.NAME`` (numba-cuda 0.30.4 no longer knows the old ``..._MULTI_PROCESSOR`` spellings).
ATTRIBUTE_FIELDS = {
    "MULTIPROCESSOR_COUNT": "sms",
    "MAX_THREADS_PER_MULTIPROCESSOR": "max_threads_per_sm",
    "MAX_BLOCKS_PER_MULTIPROCESSOR": "max_blocks_per_sm",
    "MAX_REGISTERS_PER_MULTIPROCESSOR": "registers_per_sm",
    "MAX_REGISTERS_PER_BLOCK": "max_registers_per_block",
    "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR": "shared_memory_per_sm",
    "MAX_SHARED_MEMORY_PER_BLOCK": "shared_memory_per_block",
    "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": "shared_memory_per_block_optin",
    "RESERVED_SHARED_MEMORY_PER_BLOCK": "reserved_shared_memory_per_block",
    "WARP_SIZE": "warp_size",
    "MAX_THREADS_PER_BLOCK": "max_threads_per_block",
}
ATTRIBUTE_NAMES = (*ATTRIBUTE_FIELDS, "COMPUTE_CAPABILITY_MAJOR", "COMPUTE_CAPABILITY_MINOR")


def profile_from_attributes(attributes: Mapping[str, int], name: str = "this GPU") -> DeviceProfile:
    """A profile from a real device's attributes (cuda.h names, e.g. ``MAX_BLOCKS_PER_MULTIPROCESSOR``).

    The allocation granularities are not device attributes: they come from the compute capability,
    as in cuda_occupancy.h. Attributes missing from ``attributes`` keep the built-in profile's value
    for that capability (or 9.0's for an unknown one).
    """
    cc = (int(attributes["COMPUTE_CAPABILITY_MAJOR"]), int(attributes["COMPUTE_CAPABILITY_MINOR"]))
    base = PROFILES.get(f"{cc[0]}.{cc[1]}", PROFILES["9.0"])
    values: dict[str, Any] = {
        fld: int(attributes[attr]) for attr, fld in ATTRIBUTE_FIELDS.items() if attr in attributes
    }
    return replace(
        base,
        name=name,
        cc=cc,
        shared_memory_allocation_unit=_shared_unit(cc),
        shared_memory_carveouts_kib=_carveouts(cc),
        measured=True,
        **values,
    )


def read_device_attributes(device: Any) -> dict[str, int]:
    """The attributes ``profile_from_attributes`` needs, read from a numba ``Device``."""
    return {attr: int(getattr(device, attr)) for attr in ATTRIBUTE_NAMES}


def _round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit


@dataclass(frozen=True)
class Occupancy:
    """Theoretical residency of one kernel launch configuration on one SM."""

    profile: DeviceProfile
    block: int  # threads per block
    regs_per_thread: int
    smem_per_block: int  # static + dynamic bytes the kernel asks for (without the reserved part)
    warps_per_block: int
    registers_per_block: int  # allocated: per-warp allocation × warps
    shared_memory_allocated: int  # bytes per block, reserved part and rounding included
    limits: dict[str, int | None]  # LIMITERS → blocks per SM that resource allows (None: no limit)
    blocks_per_sm: int
    limiter: str
    limiters: tuple[str, ...] = field(default=())  # every factor that reaches the minimum

    @property
    def warps_per_sm(self) -> int:
        return self.blocks_per_sm * self.warps_per_block

    @property
    def occupancy(self) -> float:
        """Active warps over the SM's maximum (0–1)."""
        return self.warps_per_sm / self.profile.max_warps_per_sm

    def limits_dict(self) -> dict[str, int | None]:
        """``{threads, blocks, registers, shared_memory}`` as the CONTRACT spells them."""
        return {LIMIT_KEYS[k]: v for k, v in self.limits.items()}

    def summary(self, device: str | None = None) -> dict[str, Any]:
        """The ``simtviz occupancy --json`` object (CONTRACT keys, in order)."""
        return {
            "device": device if device is not None else self.profile.name,
            "cc": self.profile.cc_text,
            "block": self.block,
            "regs_per_thread": self.regs_per_thread,
            "smem_per_block": self.smem_per_block,
            "blocks_per_sm": self.blocks_per_sm,
            "warps_per_sm": self.warps_per_sm,
            "occupancy": self.occupancy,
            "limiter": self.limiter,
            "limits": self.limits_dict(),
        }


def _register_limit(p: DeviceProfile, warps: int, regs: int) -> tuple[int | None, int]:
    """(blocks per SM the registers allow, registers allocated per block); cudaOccMaxBlocksPerSMRegsLimit."""
    per_warp = _round_up(regs * p.warp_size, p.register_allocation_unit)
    per_block = per_warp * warps
    # The hardware checks the per-block limit as if every sub-partition got a warp.
    assumed = per_warp * _round_up(warps, p.register_sub_partitions)
    if regs > p.max_registers_per_thread or assumed > p.max_registers_per_block:
        return 0, per_block
    if per_warp == 0:
        return None, 0
    warps_per_sub_partition = (p.registers_per_sm // p.register_sub_partitions) // per_warp
    return (warps_per_sub_partition * p.register_sub_partitions) // warps, per_block


def _shared_limit(p: DeviceProfile, smem: int, opt_in: bool) -> tuple[int | None, int]:
    """(blocks per SM the shared memory allows, bytes allocated per block); cudaOccMaxBlocksPerSMSmemLimit."""
    allocated = _round_up(smem + p.reserved_shared_memory_per_block, p.shared_memory_allocation_unit)
    per_block_cap = (p.shared_memory_per_block_optin if opt_in else p.shared_memory_per_block) + (
        p.reserved_shared_memory_per_block
    )
    if allocated > per_block_cap:
        return 0, allocated
    if allocated == 0:
        return None, 0
    return p.shared_memory_per_sm // allocated, allocated


def input_problems(p: DeviceProfile, block: int, regs: int, smem: int) -> list[str]:
    """Each limit of ``p`` that a block of ``block`` threads, ``regs`` registers per thread and
    ``smem`` bytes of shared memory breaks, in words; empty when the question can be answered."""
    cc = f"compute capability {p.cc[0]}.{p.cc[1]}"
    out = []
    if block > p.max_threads_per_block:
        out.append(f"{block:,} threads per block; {cc} allows at most {p.max_threads_per_block:,}")
    if regs > p.max_registers_per_thread:
        out.append(f"{regs:,} registers per thread; {cc} allows at most {p.max_registers_per_thread:,}")
    if smem > p.shared_memory_per_block_optin:
        out.append(
            f"{smem:,} bytes of shared memory per block; {cc} allows at most "
            f"{p.shared_memory_per_block_optin:,} even after opting in"
        )
    return out


def opt_in_note(p: DeviceProfile, smem: int, regs: int, block: int) -> str | None:
    """Words for a block above the 48 KiB a kernel gets without opting in, or None."""
    if smem <= p.shared_memory_per_block or smem > p.shared_memory_per_block_optin:
        return None
    with_opt_in = occupancy(p, block, regs, smem, opt_in=True)
    return (
        f"{smem:,} bytes is above the {p.shared_memory_per_block // KIB} KB "
        f"({p.shared_memory_per_block:,} bytes) of shared memory a block gets by default: such a "
        "launch is refused unless the kernel opts in (cudaFuncSetAttribute with "
        "MaxDynamicSharedMemorySize; numba's launches do not), hence 0 blocks. With the opt in: "
        f"{with_opt_in.blocks_per_sm} block{'' if with_opt_in.blocks_per_sm == 1 else 's'} per SM "
        f"({with_opt_in.occupancy:.0%})."
    )


def occupancy(
    profile: DeviceProfile, block: int, regs_per_thread: int, smem_per_block: int = 0, *, opt_in: bool = False
) -> Occupancy:
    """Blocks of ``block`` threads using ``regs_per_thread`` registers and ``smem_per_block`` bytes
    of shared memory (static + dynamic) that one SM of ``profile`` holds at once.

    ``opt_in``: the kernel was allowed more than the default 48 KiB per block
    (cuFuncSetAttribute MAX_DYNAMIC_SHARED_SIZE_BYTES); numba launches do not do that.
    A block that cannot fit at all gives 0 blocks, limited by the resource it exceeds.
    """
    if block <= 0:
        raise ValueError(f"threads per block must be at least 1 (got {block})")
    if regs_per_thread < 0 or smem_per_block < 0:
        raise ValueError("registers and shared memory cannot be negative")
    p = profile
    warps = -(-block // p.warp_size)
    threads = 0 if block > p.max_threads_per_block else p.max_warps_per_sm // warps
    registers, regs_alloc = _register_limit(p, warps, regs_per_thread)
    shared, smem_alloc = _shared_limit(p, smem_per_block, opt_in)
    limits: dict[str, int | None] = {
        "threads": threads,
        "blocks": p.max_blocks_per_sm,
        "registers": registers,
        "shared memory": shared,
    }
    blocks = min(v for v in limits.values() if v is not None)
    tied = tuple(k for k in LIMITERS if limits[k] == blocks)
    return Occupancy(
        profile=p,
        block=block,
        regs_per_thread=regs_per_thread,
        smem_per_block=smem_per_block,
        warps_per_block=warps,
        registers_per_block=regs_alloc,
        shared_memory_allocated=smem_alloc,
        limits=limits,
        blocks_per_sm=blocks,
        limiter=tied[0],
        limiters=tied,
    )


@dataclass(frozen=True)
class CurvePoint:
    block: int
    blocks_per_sm: int
    occupancy: float
    limiter: str


def occupancy_curve(
    profile: DeviceProfile,
    regs_per_thread: int,
    smem_per_block: int = 0,
    *,
    step: int = 32,
    opt_in: bool = False,
) -> list[CurvePoint]:
    """Occupancy for every block size 32, 64, … up to the device's maximum threads per block."""
    out = []
    for block in range(step, profile.max_threads_per_block + 1, step):
        occ = occupancy(profile, block, regs_per_thread, smem_per_block, opt_in=opt_in)
        out.append(CurvePoint(block, occ.blocks_per_sm, occ.occupancy, occ.limiter))
    return out


def theoretical_waves(blocks: int, sms: int, blocks_per_sm: int) -> int | None:
    """``ceil(blocks / (SMs × blocks per SM))``: rounds of a full GPU the launch needs (None: 0 fit)."""
    if blocks_per_sm <= 0 or sms <= 0:
        return None
    return -(-blocks // (sms * blocks_per_sm))
