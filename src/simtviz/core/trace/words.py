"""A traced run's findings in a beginner's words: numbers rounded, each measure explained once with
its good value, threads named as CUDA names them, and the verdicts a backend cannot give truthfully
said so beside them. Also ``look_at``: the student's line each finding points at, for the editor.

Read from the typed result (a ``TraceResult``'s fields, its ``Analysis``); nothing here is
measured anew.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from simtviz.core.trace.analysis import Analysis
    from simtviz.core.trace.stats import LineStats, SharedLineStats

SECTOR_BYTES = 32
WARP = 32

# One line each, after the per-line rows that use them.
SECTORS_LEGEND = (
    "Sectors per request: the 32-byte pieces of memory one warp's access fetched. 32 threads "
    "reading side-by-side elements need 4 for 4-byte elements (8 for 8-byte ones); more means "
    "scattered accesses, fewer that the threads share elements."
)
EFFICIENCY_LEGEND = (
    "Fetched bytes used: the share of the fetched bytes that a thread asked for; 100% is best."
)
WAVEFRONTS_LEGEND = (
    "Wavefronts per request (shared memory): the passes the 32 banks needed to serve one warp's "
    "access; 1 is best, a k-way bank conflict takes k."
)
RACE_ON_SIMULATOR = (
    "numba's simulator runs the threads one after another, so a race cannot lose updates on it; "
    "on a GPU (or the CPU emulator) they can"
)


def number(value: float) -> str:
    """1–2 decimals, none for a whole number: 3.90625 → ``3.91``, 6.5 → ``6.5``, 4.0 → ``4``."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text if text != "-0" else "0"


def itemsize(dtype: str) -> int:
    return int(np.dtype(dtype).itemsize)


def ideal_sectors(dtype: str) -> int:
    """Sectors a full warp needs for 32 side-by-side elements of ``dtype``: 4 for 4-byte, 8 for 8-byte."""
    return WARP * itemsize(dtype) // SECTOR_BYTES


def sectors_words(row: LineStats, dtype: str | None) -> str:
    """A global line's sectors per request and bytes used, in words (the line has requests)."""
    per = float(row.sectors_per_request or 0.0)
    text = f"{number(per)} sector{'' if number(per) == '1' else 's'} per request"
    if dtype:
        text += f" (ideal: {ideal_sectors(dtype)} for {itemsize(dtype)}-byte elements)"
    return f"{text}, {row.efficiency or 0.0:.0%} of the fetched bytes used"


def _coords(linear: int, dims: Sequence[int]) -> list[int]:
    out = []
    for d in dims:
        linear, i = divmod(linear, max(1, int(d)))
        out.append(i)
    return out


def thread_words(thread: int, grid: Sequence[int], block: Sequence[int]) -> str:
    """A global linear thread id (as the log numbers threads) in CUDA's words:
    ``blockIdx.x=3, threadIdx.x=232`` for a 1-D launch, ``blockIdx=(1, 0), threadIdx=(6, 3)``
    (x, y) for 2-D, all three for 3-D."""
    per_block = int(np.prod(block))
    b, t = divmod(int(thread), per_block)
    bidx, tidx = _coords(b, grid), _coords(t, block)
    dims = 3 if grid[2] > 1 or block[2] > 1 else 2 if grid[1] > 1 or block[1] > 1 else 1
    if dims == 1:
        return f"blockIdx.x={bidx[0]}, threadIdx.x={tidx[0]}"
    return f"blockIdx={tuple(bidx[:dims])}, threadIdx={tuple(tidx[:dims])}"


def simulator_thread_words(text: str) -> str:
    """numba's simulator names a thread ``tid=[21, 0, 0] ctaid=[0, 0, 0]``: said as CUDA does."""
    import re

    def repl(m: re.Match[str]) -> str:
        tid = [int(v) for v in re.findall(r"-?\d+", m["tid"])]
        cta = [int(v) for v in re.findall(r"-?\d+", m["cta"])]
        return f"blockIdx={tuple(cta)}, threadIdx={tuple(tid)}"

    return re.sub(r"tid=\[(?P<tid>[^\]]*)\]\s*ctaid=\[(?P<cta>[^\]]*)\]", repl, text)


def element_words(array: str, index: Sequence[int], shape: Sequence[int]) -> str:
    """``A[6, 0] (row 6, column 0)`` for a 2-D array; ``A[1000]`` otherwise."""
    text = f"{array}[{', '.join(map(str, index))}]"
    if len(shape) == 2:
        text += f" (row {index[0]}, column {index[1]})"
    return text


def shape_words(array: str, shape: Sequence[int]) -> str:
    if len(shape) == 1:
        return f"{array} has {shape[0]:,} elements (0 to {shape[0] - 1:,})"
    if len(shape) == 2:
        return (
            f"{array} has {shape[0]:,} rows (0 to {shape[0] - 1:,}) and "
            f"{shape[1]:,} columns (0 to {shape[1] - 1:,})"
        )
    return f"{array} has shape {tuple(shape)}"


def check_caveats(backend: str, a: Analysis) -> list[str]:
    """What a passed check does not prove on this backend, said beside it: a race the simulator
    cannot lose, out-of-bounds accesses the tracer skipped."""
    out = []
    racing = {n: c.multi_writer for n, c in a.arrays.items() if c.multi_writer}
    if racing and backend == "sim":
        names = " and ".join(f"{c:,} elements of {n}" for n, c in racing.items())
        out.append(
            f"  but {RACE_ON_SIMULATOR}: {names} stored by more than one thread could lose updates, "
            "and this check could fail."
        )
    if a.oob_total:
        stores = sum(o.count for o in a.oob if o.kind != "load")
        loads = a.oob_total - stores
        parts = []
        if stores:
            parts.append(
                f"the {stores:,} out-of-bounds stores were skipped by the tracer; on a GPU they would "
                "have written past the array, into memory this check does not look at"
            )
        if loads:
            parts.append(
                f"the {loads:,} out-of-bounds loads read 0 here; on a GPU they read whatever lies "
                "past the array"
            )
        out.append("  but " + "; ".join(parts) + ".")
    return out


def look_at(a: Analysis) -> list[tuple[int, str]]:
    """The student's lines each kind of finding points at, most urgent first, one per line:
    out of bounds, a race, a scattered or wasteful access, a bank conflict."""
    found: list[tuple[int, str]] = []
    for o in a.oob:
        found.append((o.line, "out-of-bounds access"))
    rows: list[LineStats | SharedLineStats] = [*a.lines, *(a.shared_lines or [])]
    for name, counts in a.arrays.items():  # (shared arrays have no per-element writers)
        if counts.multi_writer:
            for row in rows:
                if row.array == name and row.kind == "store":
                    found.append((row.line, f"{name}: elements stored by more than one thread"))
    for stat in a.lines:
        info = a.arrays.get(stat.array)
        dtype = info.dtype if info else None
        if (
            stat.requests
            and dtype
            and (
                (stat.sectors_per_request or 0.0) > ideal_sectors(dtype) + 0.5
                or (stat.efficiency or 0.0) < 0.5
            )
        ):
            found.append((stat.line, f"{stat.array}: scattered accesses"))
    for shared in a.shared_lines or []:
        if shared.requests and shared.wavefronts > shared.min_wavefronts:
            found.append((shared.line, f"{shared.array}: bank conflicts"))
    seen: set[int] = set()
    out = []
    for line, why in found:
        if line not in seen:
            seen.add(line)
            out.append((line, why))
    return out


def simulated_failure_words(exc: BaseException, line: int | None, specs: Sequence[Any] = ()) -> str:
    """An exception raised in a thread of numba's simulator, said as CUDA would name the thread;
    NumPy's refusal of a float index said as the type problem it is."""
    text = simulator_thread_words(f"{type(exc).__name__}: {exc}")
    where = f"line {line}: " if line else ""
    if isinstance(exc, IndexError) and "only integers" in str(exc):
        floats = [s.name for s in specs if getattr(s, "shape", None) is not None and "float" in s.dtype]
        which = f" ({', '.join(floats)} {'is' if len(floats) == 1 else 'are'} float)" if floats else ""
        return (
            f"{where}an array index must be an integer, and this one is a float{which}: give the array "
            f"the index is read from an integer type such as int32.\n({text})"
        )
    return where + text
