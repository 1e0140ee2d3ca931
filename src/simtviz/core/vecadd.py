"""The chapter's vector add (§2.2.5/§2.2.6) as values: request, result, report, the code shown.

Qt-free, numba-free and CuPy-free (NumPy for the CPU's reference sum): the backends fill a
``VecaddResult``, the CLI prints it, the panel shows it. ``JSON_FIELDS`` are the
``vecadd --json`` fields of docs/CONTRACT.md, in order.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from simtviz.core.estimates import estimate_seconds
from simtviz.core.launch import LaunchConfig, launch_text

# The guide's size: "not a power of 2 nor a multiple of the block_size".
GPU_DEFAULT_N = 2**24 + 11
# The simulator runs a few thousand threads a second, so its default keeps the guide's "+ 11".
SIM_DEFAULT_N = 2**12 + 11
DEFAULT_BLOCK = 256
SWEEP_BLOCKS = (32, 64, 128, 256, 512, 1024)
GPU_DEFAULT_REPEAT = 50
GPU_MIN_REPEAT = 20  # a median of fewer launches is too noisy to compare with cp.add
SIM_DEFAULT_REPEAT = 1
DTYPE = "float64"
ITEMSIZE = 8
NUMPY_RUNS = 5

JSON_FIELDS = (
    "backend",
    "n",
    "block",
    "grid",
    "dtype",
    "guarded",
    "verified",
    "max_abs_err",
    "kernel_ms",
    "launch_overhead_us",
    "bandwidth_GBps",
    "copy_GBps",
    "cupy_ms",
    "numpy_ms",
    "oob_writes",
)
# Added after the contract's fields (the contract allows new keys): the GPU's theoretical DRAM
# bandwidth from its attributes, the second reference next to the measured copy.
EXTRA_JSON_FIELDS = ("peak_GBps",)

# How each number is measured: the panel's tooltips and the CLI's --help-less explanations.
MEASUREMENT_NOTES: dict[str, str] = {
    "kernel_ms": (
        "GPU time of one vecadd launch: median of the CUDA-event intervals between ≥ 20 launches "
        "queued while a hold kernel keeps the GPU busy, so the host's launch cost (≈94 µs with "
        "CuPy arguments) is not inside the events. Events around a single launch would measure "
        "that gap too and report about half the real speed."
    ),
    "launch_overhead_us": (
        "Host time of one `vecadd[grid, block](a, b, c)` call with CuPy arrays (argument "
        "conversion and launch), median over launches on an idle GPU, measured with "
        "time.perf_counter on the host: no GPU time in it."
    ),
    "bandwidth_GBps": (
        "Effective bandwidth: 3 × N × 8 bytes (read A and B, write C) divided by the kernel time."
    ),
    "copy_GBps": (
        "Device-to-device cudaMemcpyAsync moving the kernel's own bytes (1.5 × N doubles read and "
        "1.5 × N written = 3 × N × 8 bytes, as A + B → C moves), timed like the kernel (median of "
        "events, GPU kept busy) after warm-up launches: the practical ceiling of this GPU's memory."
    ),
    "peak_GBps": (
        "Theoretical DRAM bandwidth from the device's attributes: memory clock (kHz) × bus width "
        "(bits) / 8 × 2 (double data rate). No kernel reaches it; ≈ 85–92 % is excellent."
    ),
    "cupy_ms": "CuPy's own `cp.add(a, b, out=c)`, timed exactly like the kernel (median of events).",
    "numpy_ms": "`a_np + b_np` on the CPU with NumPy, median of wall-clock runs (time.perf_counter).",
    "oob_writes": (
        "On a GPU: elements of a canary region placed right after C that changed, i.e. writes past "
        "the end of C (a GPU does not bounds-check kernels, CuPy arrays included; the guard "
        "prevents them). On the simulator every access is bounds-checked: a run that finished made "
        "none; the unguarded kernel raises IndexError at its first bad index, so there is no count."
    ),
    "sim_wall_ms": (
        "CPU-simulator wall-clock time of the launch (time.perf_counter): one Python thread per "
        "CUDA thread, nothing like GPU time."
    ),
}

# What the simulator can say about out-of-bounds writes, where a GPU counts them (the canary).
OOB_SIM_CHECKED = "0 (the simulator bounds-checks every access)"
OOB_SIM_RAISED = (
    "not counted: the simulator stopped at the first bad index (IndexError); a GPU would write "
    "there silently and count {idle:,} in its canary"
)
SIM_NO_SWEEP_UNGUARDED = (
    "No block-size sweep: the unguarded kernel raised IndexError on the simulator before any "
    "timing, so there is nothing to compare. Choose the guarded kernel to sweep here; on a GPU "
    "the sweep times the guarded kernel."
)

GPU_WOULD_NOT_RAISE = (
    "A GPU would not raise here: kernels are not bounds-checked there (CuPy arrays included), so the "
    "surplus threads would silently write past the end of C. The simulator's arrays are "
    "bounds-checked NumPy arrays, which is why it raised. Keep the guard `if work_index < C.size:`."
)


def grid_for(n: int, block: int) -> int:
    """``int(np.ceil(vector_size / block_size))`` in integer arithmetic (exact for any n).

    A block of 0 threads gives a grid of 0, which the launch then rejects as CUDA would.
    """
    if block <= 0:
        return 0
    return -(-n // block)


def idle_threads(n: int, block: int) -> int:
    """Threads launched past the end of the vectors (the guide's N and block 256: 245)."""
    return max(0, grid_for(n, block) * block - n)


def launch_config(n: int, block: int) -> LaunchConfig:
    return LaunchConfig.of(grid_for(n, block), block)


def default_n(kind: str) -> int:
    return GPU_DEFAULT_N if kind == "gpu" else SIM_DEFAULT_N


def default_repeat(kind: str) -> int:
    return GPU_DEFAULT_REPEAT if kind == "gpu" else SIM_DEFAULT_REPEAT


def dram_peak_gbps(memory_clock_khz: int | None, bus_width_bits: int | None) -> float | None:
    """Theoretical DRAM bandwidth: clock × bus width in bytes × 2 transfers per clock (DDR/HBM).

    An H100 SXM reports 2,619,000 kHz and 5,120 bits: 2.619e9 × 640 × 2 = 3,352 GB/s.
    """
    if not memory_clock_khz or not bus_width_bits:
        return None
    return memory_clock_khz * 1e3 * (bus_width_bits / 8) * 2 / 1e9


def copy_elements(n: int) -> int:
    """Elements one device-to-device copy moves so that it carries the kernel's bytes: the kernel
    reads A and B and writes C (3 × N elements through DRAM); a copy of k elements reads k and
    writes k, so k = 1.5 × N (rounded up) moves the same 3 × N."""
    return (3 * n + 1) // 2


def bandwidth_gbps(n: int, ms: float | None, arrays: int = 3, itemsize: int = ITEMSIZE) -> float | None:
    """``arrays × n × itemsize`` bytes in ``ms`` milliseconds, in GB/s (10^9 bytes)."""
    if ms is None or ms <= 0:
        return None
    return arrays * n * itemsize / (ms * 1e-3) / 1e9


@dataclass(frozen=True, slots=True)
class VecaddRequest:
    """One run of the guide's program: sizes, variant, how many timed launches, whether to sweep."""

    n: int
    block: int = DEFAULT_BLOCK
    repeat: int | None = None  # None: the backend's default
    guarded: bool = True
    force: bool = False
    sweep: bool = False
    sweep_blocks: tuple[int, ...] = SWEEP_BLOCKS

    @property
    def config(self) -> LaunchConfig:
        return launch_config(self.n, self.block)

    def repeats(self, kind: str) -> int:
        return max(1, self.repeat if self.repeat else default_repeat(kind))

    def gpu_launches(self) -> int:
        """The launches a GPU times: ``repeats``, and never fewer than ``GPU_MIN_REPEAT``."""
        return max(GPU_MIN_REPEAT, self.repeats("gpu"))

    def simulated_threads(self) -> int:
        """Threads the simulator runs for this request: the checked launch, repeats, the sweep."""
        threads = self.config.total_threads * self.repeats("sim")
        if self.sweep:
            threads += sum(grid_for(self.n, b) * b for b in self.sweep_blocks)
        return threads

    def threads_in_words(self) -> str:
        """What ``simulated_threads`` counts, and how to ask for fewer: the app's "Run it anyway?"
        shows it (``LaunchTooLarge.detail``)."""
        grid, runs = grid_for(self.n, self.block), self.repeats("sim")
        times = "once" if runs == 1 else f"{runs:,} times"
        text = f"The vector add with N = {self.n:,} launches {grid:,} blocks of {self.block:,}"
        text += f" threads {times}"
        if self.sweep:
            sizes = ", ".join(f"{b:,}" for b in self.sweep_blocks)
            text += f", then once per block size of the sweep ({sizes})"
        return text + ". A smaller N takes less time."


def estimate_sim_seconds(request: VecaddRequest) -> float:
    """How long the simulator will take, from the measured rate (shown before a run)."""
    return estimate_seconds("sim", request.simulated_threads(), "vecadd")


def numpy_median_ms(a_np: np.ndarray, b_np: np.ndarray, runs: int = NUMPY_RUNS) -> float:
    """``a_np + b_np`` on the CPU: median wall-clock of ``runs`` runs."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        _ = a_np + b_np
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def check_result(result: VecaddResult, c_np: np.ndarray, expected: np.ndarray) -> None:
    """The guide's check, ``np.testing.assert_array_almost_equal``, its diagnostic kept verbatim."""
    try:
        np.testing.assert_array_almost_equal(c_np, expected)
    except AssertionError as exc:
        result.verified = False
        result.assertion_text = str(exc).strip()
    else:
        result.verified = True
    result.max_abs_err = float(np.max(np.abs(c_np - expected))) if c_np.size else 0.0


@dataclass(slots=True)
class SweepRow:
    """One block size of the sweep: launch shape, idle threads, time and bandwidth."""

    block: int
    grid: int
    threads: int
    idle_threads: int
    kernel_ms: float | None = None  # GPU time (median), None on the simulator
    bandwidth_GBps: float | None = None
    sim_wall_ms: float | None = None  # simulator wall-clock, None on a GPU

    @classmethod
    def shape(cls, n: int, block: int) -> SweepRow:
        grid = grid_for(n, block)
        return cls(block, grid, grid * block, idle_threads(n, block))


@dataclass(slots=True)
class VecaddResult:
    """What one run found. The first fields are the contract's JSON; the rest is for people."""

    backend: str
    n: int
    block: int
    grid: int
    dtype: str = DTYPE
    guarded: bool = True
    verified: bool = False
    max_abs_err: float | None = None
    kernel_ms: float | None = None
    launch_overhead_us: float | None = None
    bandwidth_GBps: float | None = None
    copy_GBps: float | None = None
    cupy_ms: float | None = None
    numpy_ms: float | None = None
    # GPU: the canary's count; simulator: 0 once every access passed its bounds check, None when
    # the kernel stopped at its first bad index (not measured, so never shown as a measured 0).
    oob_writes: int | None = 0
    # Beyond the contract (EXTRA_JSON_FIELDS first).
    peak_GBps: float | None = None  # theoretical DRAM bandwidth from the device's attributes
    sweep_note: str | None = None  # why a sweep that was asked for is missing
    label: str = ""
    repeat: int = 1
    kernel_error: str | None = None  # the kernel raised (the simulator's IndexError)
    assertion_text: str | None = None  # np.testing's own diagnostic when the check failed
    sim_wall_ms: float | None = None
    first_launch_ms: float | None = None  # includes numba's JIT compile
    launch_overhead_numba_us: float | None = None  # same, with numba device arrays
    cupy_bandwidth_GBps: float | None = None
    canary: int = 0  # elements of the canary region after C (0: none)
    sweep: list[SweepRow] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def simulated(self) -> bool:
        return self.backend == "sim"

    @property
    def on_gpu(self) -> bool:
        """Timed on a GPU (its ids are ``gpu:<name>``); the simulator and the emulator time CPU wall-clock."""
        return self.backend.startswith("gpu")

    @property
    def copy_share(self) -> float | None:
        """Kernel bandwidth as a share of the device-to-device copy bandwidth."""
        if self.bandwidth_GBps is None or not self.copy_GBps:
            return None
        return self.bandwidth_GBps / self.copy_GBps

    @property
    def peak_share(self) -> float | None:
        """Kernel bandwidth as a share of the theoretical DRAM bandwidth."""
        if self.bandwidth_GBps is None or not self.peak_GBps:
            return None
        return self.bandwidth_GBps / self.peak_GBps

    @property
    def cupy_ratio(self) -> float | None:
        """cp.add's time over the kernel's: 1.0 is a tie, above 1 the kernel is faster."""
        if self.kernel_ms is None or not self.cupy_ms:
            return None
        return self.cupy_ms / self.kernel_ms

    def to_json_dict(self) -> dict[str, Any]:
        """Exactly the contract's fields, in its order; unmeasurable ones are None (JSON null)."""
        values = asdict(self)
        out = {name: values[name] for name in JSON_FIELDS + EXTRA_JSON_FIELDS}
        for name, value in out.items():  # NaN/inf are not JSON
            if isinstance(value, float) and not math.isfinite(value):
                out[name] = None
        return out


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f} ms" if value < 1 else f"{value:.2f} ms"


def _gbps(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f} GB/s"


def timing_lines(result: VecaddResult) -> list[tuple[str, str, str]]:
    """(label, value, how it was measured) for every timing; '—' where not measurable here."""
    rows: list[tuple[str, str, str]] = []
    if result.simulated:
        rows.append(("simulator wall-clock", _ms(result.sim_wall_ms), MEASUREMENT_NOTES["sim_wall_ms"]))
    share, peak_share = result.copy_share, result.peak_share
    ratio = result.cupy_ratio
    bandwidth = _gbps(result.bandwidth_GBps)
    if share is not None and share > 1 and peak_share is not None and result.peak_GBps is not None:
        # Measured on the H200: two reads and one write stream faster than a copy's one and one
        # of the same bytes, so the copy is no ceiling there; the DRAM peak is.
        bandwidth += (
            f" = {peak_share:.0%} of the {_peak(result.peak_GBps)} peak"
            f" ({share:.0%} of a plain copy of the same bytes, which is no ceiling here)"
        )
    else:
        if share is not None:
            bandwidth += f" = {share:.0%} of the copy"
        if peak_share is not None and result.peak_GBps is not None:
            bandwidth += f", {peak_share:.0%} of the {_peak(result.peak_GBps)} peak"
    overhead = "—" if result.launch_overhead_us is None else f"{result.launch_overhead_us:.1f} µs"
    if result.launch_overhead_numba_us is not None:
        overhead += f" (numba device arrays: {result.launch_overhead_numba_us:.1f} µs)"
    rows += [
        ("kernel (GPU)", _ms(result.kernel_ms), MEASUREMENT_NOTES["kernel_ms"]),
        ("host launch overhead", overhead, MEASUREMENT_NOTES["launch_overhead_us"]),
        ("effective bandwidth", bandwidth, MEASUREMENT_NOTES["bandwidth_GBps"]),
        ("device-to-device copy", _gbps(result.copy_GBps), MEASUREMENT_NOTES["copy_GBps"]),
        (
            "theoretical DRAM peak",
            "—" if result.peak_GBps is None else _peak(result.peak_GBps),
            MEASUREMENT_NOTES["peak_GBps"],
        ),
        (
            "cp.add(a, b, out=c)",
            _ms(result.cupy_ms) + ("" if ratio is None else f" (kernel {ratio:.2f}× its speed)"),
            MEASUREMENT_NOTES["cupy_ms"],
        ),
        ("NumPy a_np + b_np (CPU)", _ms(result.numpy_ms), MEASUREMENT_NOTES["numpy_ms"]),
        ("out-of-bounds writes", _oob(result), MEASUREMENT_NOTES["oob_writes"]),
    ]
    return rows


def _peak(gbps: float) -> str:
    return f"{gbps / 1000:.1f} TB/s" if gbps >= 1000 else f"{gbps:,.0f} GB/s"


def _oob(result: VecaddResult) -> str:
    """What this backend knows about writes past the end of C, in words (never a guessed 0)."""
    if not result.simulated:
        return "—" if result.oob_writes is None else f"{result.oob_writes:,}"
    if result.oob_writes is None:
        return OOB_SIM_RAISED.format(idle=idle_threads(result.n, result.block))
    return OOB_SIM_CHECKED if result.kernel_error is None and result.verified else "—"


def report_lines(result: VecaddResult, include_sweep: bool = True) -> list[str]:
    """The human-readable report; its last line is ``Test succeeded`` when the check passed."""
    variant = "guarded (if work_index < C.size)" if result.guarded else "unguarded, as printed in the guide"
    lines = [
        f"{launch_text('vecadd', result.grid, result.block, 'a, b, c')} on {result.label or result.backend}",
        f"N = {result.n:,} {result.dtype}, grid = ceil(N / {result.block}) = {result.grid:,} blocks, "
        f"{idle_threads(result.n, result.block):,} idle threads in the last block; kernel {variant}",
    ]
    if result.simulated:
        lines.append("Timings: CPU-simulator wall-clock only; GPU-only fields are empty (null).")
    else:
        lines.append(f"Timed launches: {result.repeat} (medians).")
    for label, value, _how in timing_lines(result):
        if value != "—":
            lines.append(f"  {label:<24} {value}")
    if result.canary and not result.guarded and result.oob_writes is not None:
        lines.append(
            f"  {result.oob_writes:,} writes landed past the end of C "
            f"(canary of {result.canary:,} elements); "
            "the GPU raised no error."
        )
    lines += result.notes
    if result.sweep and include_sweep:
        lines.append(sweep_table(result))
    if result.sweep_note:
        lines.append(result.sweep_note)
    if result.kernel_error is not None:
        lines.append(f"The kernel raised: {result.kernel_error}")
        if result.simulated:
            lines.append(GPU_WOULD_NOT_RAISE)
        lines.append("Test failed")
    elif not result.verified:
        lines.append(result.assertion_text or "The result does not match NumPy's.")
        lines.append("Test failed")
    else:
        lines.append(f"max |c - (a + b)| = {result.max_abs_err:.3g}")
        lines.append("Test succeeded")
    return lines


def report_text(result: VecaddResult, include_sweep: bool = True) -> str:
    return "\n".join(report_lines(result, include_sweep))


def sweep_table(result: VecaddResult) -> str:
    head = f"{'block':>6} {'grid':>10} {'idle':>6} {'time':>12} {'bandwidth':>12}"
    rows = ["Block-size sweep:", head]
    for row in result.sweep:
        time = _ms(row.kernel_ms if row.kernel_ms is not None else row.sim_wall_ms)
        if row.kernel_ms is None and row.sim_wall_ms is not None:
            time += f" ({result.backend})"  # CPU wall-clock: the simulator's or the emulator's
        rows.append(
            f"{row.block:>6} {row.grid:>10,} {row.idle_threads:>6} {time:>12} {_gbps(row.bandwidth_GBps):>12}"
        )
    return "\n".join(rows)


# The kernels as kernels/vecadd.py defines them (a test keeps the two in step): shown in the panel
# without importing numba into the window's process.
GUARDED_KERNEL = """\
@cuda.jit
def vecadd(A, B, C):
    work_index = cuda.grid(1)
    if work_index < C.size:
        C[work_index] = A[work_index] + B[work_index]
"""

UNGUARDED_KERNEL = """\
@cuda.jit
def vecadd_unguarded(A, B, C):
    work_index = cuda.grid(1)
    C[work_index] = A[work_index] + B[work_index]
"""


def program_source(n: int = GPU_DEFAULT_N, block: int = DEFAULT_BLOCK, guarded: bool = True) -> str:
    """The guide's §2.2.5 program as this run executes it (the chapter's errata corrected)."""
    kernel = GUARDED_KERNEL if guarded else UNGUARDED_KERNEL
    name = "vecadd" if guarded else "vecadd_unguarded"
    size = "2**24 + 11" if n == GPU_DEFAULT_N else "2**12 + 11" if n == SIM_DEFAULT_N else str(n)
    return f"""\
import numpy as np
from numba import cuda
import cupy as cp


## Defines a CUDA kernel to perform C = A + B vector addition
{kernel}

# note that vector size is not a power of 2 nor a multiple of the block_size defined below
vector_size = {size}

device = cp.cuda.Device()
## Create device arrays of uniform random float64 values as input (cp.random.uniform
## returns float64), and an array of zeros as the result vector
a = cp.random.uniform(-1, 1, vector_size)
b = cp.random.uniform(-1, 1, vector_size)
c = cp.zeros_like(a)

block_size = {block}
grid_size = int(np.ceil(vector_size/block_size))   # = {grid_for(n, block):,}
{name}[grid_size, block_size](a, b, c)

## synchronize the CPU thread and the GPU to ensure that the kernel has completed
device.synchronize()

## Copy all 3 arrays to the CPU as ndarrays
a_np = cp.asnumpy(a)
b_np = cp.asnumpy(b)
c_np = cp.asnumpy(c)

## Perform the addition on the CPU to verify the answer
expected = a_np + b_np

## Test that the answer is correct, within floating point epsilon
np.testing.assert_array_almost_equal(c_np, expected)

## The assert will print diagnostics and abort
## so this only prints if the assertion passes
print("Test succeeded")
"""
