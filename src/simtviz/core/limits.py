"""Launch limits of a device and the check that explains a rejected launch in plain words."""

from __future__ import annotations

from dataclasses import dataclass, field

from simtviz.core.launch import LaunchConfig

# The driver's own text for an out-of-range launch (CUDA_ERROR_INVALID_VALUE), as numba-cuda
# reports it. The simulator checks no limits, so the sim backend raises this text itself.
DRIVER_INVALID_VALUE = (
    "CUDA_ERROR_INVALID_VALUE: This indicates that one or more of the parameters passed to the "
    "API call is not within an acceptable range of values."
)


@dataclass(frozen=True, slots=True)
class DeviceLimits:
    """What a device accepts in ``kernel[grid, block]``.

    The defaults are the limits every CUDA GPU since compute capability 5.0 shares; the GPU
    backend reads the real ones from the device.
    """

    name: str = "any CUDA GPU (compute capability 5.0 or newer)"
    max_threads_per_block: int = 1024
    max_block: tuple[int, int, int] = (1024, 1024, 64)
    max_grid: tuple[int, int, int] = (2**31 - 1, 65535, 65535)
    warp_size: int = 32
    multiprocessors: int | None = None
    compute_capability: tuple[int, int] | None = None
    extra: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "max_threads_per_block": self.max_threads_per_block,
            "max_block": list(self.max_block),
            "max_grid": list(self.max_grid),
            "warp_size": self.warp_size,
            "multiprocessors": self.multiprocessors,
            "compute_capability": list(self.compute_capability) if self.compute_capability else None,
        }


@dataclass(frozen=True, slots=True)
class LimitViolation:
    """One broken limit: what it is, the value asked for, the most allowed, and a sentence."""

    limit: str
    value: int
    maximum: int
    message: str
    minimum: int | None = None

    def __str__(self) -> str:
        return self.message


def _fmt(n: int) -> str:
    return f"{n:,}"


def validate(config: LaunchConfig, limits: DeviceLimits | None = None) -> list[LimitViolation]:
    """Every limit ``config`` breaks on a device with ``limits``; empty when the launch is valid."""
    limits = limits or DeviceLimits()
    problems: list[LimitViolation] = []
    for what, dim in (("gridDim", config.grid), ("blockDim", config.block)):
        for axis, value in zip("xyz", dim.as_tuple(), strict=True):
            if value < 1:
                problems.append(
                    LimitViolation(
                        f"{what}.{axis} >= 1",
                        value,
                        0,
                        f"{what}.{axis} is {value}; every dimension must be at least 1 "
                        f"(a launch of zero {'blocks' if what == 'gridDim' else 'threads'} is not allowed)",
                        minimum=1,
                    )
                )
    tpb = config.threads_per_block
    if tpb > limits.max_threads_per_block:
        problems.append(
            LimitViolation(
                "threads per block",
                tpb,
                limits.max_threads_per_block,
                f"blockDim {config.block} has {_fmt(tpb)} threads; this device allows at most "
                f"{_fmt(limits.max_threads_per_block)} per block ({_fmt(tpb)} > "
                f"{_fmt(limits.max_threads_per_block)})",
            )
        )
    for what, dim, maxima in (
        ("blockDim", config.block, limits.max_block),
        ("gridDim", config.grid, limits.max_grid),
    ):
        for axis, value, maximum in zip("xyz", dim.as_tuple(), maxima, strict=True):
            if value > maximum:
                problems.append(
                    LimitViolation(
                        f"{what}.{axis}",
                        value,
                        maximum,
                        f"{what}.{axis} is {_fmt(value)}; this device allows at most "
                        f"{_fmt(maximum)} ({_fmt(value)} > {_fmt(maximum)})",
                    )
                )
    return problems


def explain(problems: list[LimitViolation]) -> str:
    """One line naming every broken limit, for stderr and dialogs."""
    if not problems:
        return ""
    return "Limit exceeded: " + "; ".join(p.message for p in problems)
