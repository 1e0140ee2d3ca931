"""A traced run in words (the CLI's text output and the Your kernel tab's findings), and its .npz.

Everything here is read from the typed result (``TraceResult`` and its ``Analysis``) and the log:
nothing is computed from a formula, and nothing is read back out of ``summary()`` (the
``trace --json`` object, which only ``--json`` and the .npz write).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from simtviz.core.files import atomic_write
from simtviz.core.trace.analysis import LOG_FIELDS, oob_details
from simtviz.core.trace.hazards import hazard_words
from simtviz.core.trace.model import TraceResult
from simtviz.core.trace.stats import SHARED, LineStats, SharedLineStats
from simtviz.core.trace.words import (
    EFFICIENCY_LEGEND,
    RACE_ON_SIMULATOR,
    SECTORS_LEGEND,
    WAVEFRONTS_LEGEND,
    check_caveats,
    element_words,
    look_at,
    sectors_words,
    shape_words,
    thread_words,
)

LOG_FIELD_NAMES = ("thread", "site", "flags", "offset", "i0", "i1", "i2", "epoch")
assert len(LOG_FIELD_NAMES) == LOG_FIELDS
OOB_SHOWN = 5  # out-of-bounds attempts listed one by one (all are counted)


def _dims(values: Sequence[int]) -> str:
    return "(" + ", ".join(str(v) for v in values) + ")"


def timing_words(backend: str, kernel_ms: float | None, instrumented_ms: float | None) -> str:
    if kernel_ms is None:
        if backend == "sim":
            return "Kernel time: not measured on the simulator (it runs each thread as Python)."
        if backend == "emu":
            return "Kernel time: not measured on the CPU emulator (it has no GPU clock)."
        if instrumented_ms is not None:
            return (
                f"Kernel time: {instrumented_ms:.3f} ms traced (GPU time, host launch cost excluded); "
                "the kernel as written was not timed."
            )
        return "Kernel time: not measured."
    text = f"Kernel time: {kernel_ms:.3f} ms as written"
    if instrumented_ms is not None:
        slower = instrumented_ms / kernel_ms if kernel_ms else None
        text += f", {instrumented_ms:.3f} ms traced"
        if slower:
            text += f" ({slower:.0f}× slower: every access is logged)"
    return text + " (GPU time, host launch cost excluded)."


def bank_words(row: SharedLineStats) -> str:
    """A shared line's bank conflicts in words, e.g. ``32 wavefronts per request (up to a 32-way
    bank conflict; 1 without conflicts)``. The line has requests."""
    per = row.wavefronts_per_request or 0.0
    least = row.min_wavefronts / row.requests
    text = f"{per:g} wavefront{'s' if per != 1 else ''} per request"
    if row.wavefronts == row.min_wavefronts:
        if least == 1:
            return text + " (no bank conflicts)"
        return text + f" (no bank conflicts: {least:g} is the least for these elements)"
    return text + f" (up to a {row.max_conflict_degree}-way bank conflict; {least:g} without conflicts)"


def findings(result: TraceResult, oob_shown: int = OOB_SHOWN) -> list[str]:
    """The findings, one sentence per line, in the order a student needs them."""
    a, grid, block = result.analysis, result.grid, result.block
    lines = [
        f"{result.kernel}[{_dims(grid)}, {_dims(block)}] — {result.threads:,} threads on "
        + {"sim": "the CUDA simulator", "emu": "the CPU emulator"}.get(
            result.backend, result.backend.removeprefix("gpu:")
        ),
    ]
    window = result.window
    if window is not None:
        made = result.window_accesses or 0
        lines.append(
            f"Threads in window: {result.window_words()}. Every thread ran; only these logged, so the "
            "counts below, untouched elements, multiple writers and out-of-bounds accesses speak of them."
        )
        if a.logged < made:
            lines.append(
                f"Logged {a.logged:,} of the {made:,} accesses these threads made (the "
                f"budget; the launch made {a.accesses:,}): the counts below cover the logged ones; "
                "raise the budget to see all of the window's."
            )
        elif made:
            lines.append(
                f"Logged all {made:,} accesses these threads made, of {a.accesses:,} the launch made."
            )
        else:
            lines.append(f"These threads made no accesses (the launch made {a.accesses:,}).")
    elif a.logged < a.accesses:
        lines.append(
            f"Logged {a.logged:,} of {a.accesses:,} accesses (the budget): the counts below "
            "cover the logged ones; raise the budget to see all."
        )
    else:
        lines.append(f"{a.accesses:,} memory accesses, all logged.")
    look = look_at(a)
    if look:  # the line the editor highlights first, then the others
        lines.append("Look at " + "; ".join(f"line {n} ({why})" for n, why in look) + ".")
    if a.oob_total:
        lines.append(
            f"{a.oob_total:,} out-of-bounds accesses (skipped here; a GPU would have touched "
            "memory outside the array):"
        )
        for o in a.oob:
            lines.append(f"  line {o.line}: {o.count:,} × {o.kind} of {o.array}")
        for d in oob_details(result.log, result.sites, result.arrays, oob_shown):
            who = thread_words(d.thread, grid, block)
            lines.append(
                f"  e.g. line {d.line}: the thread with {who} (thread {d.thread:,}) {d.kind}s "
                f"{element_words(d.array, d.index, d.shape)}, but {shape_words(d.array, d.shape)}"
            )
    else:
        lines.append(
            "No out-of-bounds accesses by the window's threads." if window else "No out-of-bounds accesses."
        )
    lines.extend(hazard_words(h, grid, block) for h in a.hazards)
    check = result.check
    for name, counts in a.arrays.items():
        size = int(np.prod(counts.shape))  # 1 for no dimensions
        parts = [f"{counts.loads:,} loads", f"{counts.stores:,} stores"]
        if counts.atomics:
            parts.append(f"{counts.atomics:,} atomic adds")
        text = f"{name} {counts.dtype}{list(counts.shape)}: " + ", ".join(parts)
        if counts.untouched:
            by = " by the window's threads" if window else ""
            text += f"; {counts.untouched:,} of {size:,} elements untouched{by}"
        if counts.multi_writer:
            text += (
                f"; {counts.multi_writer:,} elements stored by more than one thread "
                "(a race unless the threads write the same value)"
            )
            if result.backend == "sim" and not (check and check.passed):
                text += f"; {RACE_ON_SIMULATOR}"  # a passed check says it beside its verdict
        lines.append(text + ".")
    for name, shared in (a.shared_arrays or {}).items():
        parts = [f"{shared.loads:,} loads", f"{shared.stores:,} stores"]
        if shared.atomics:
            parts.append(f"{shared.atomics:,} atomic adds")
        lines.append(
            f"{name} {shared.dtype}{list(shared.shape)} (shared, one per block): " + ", ".join(parts) + "."
        )
    rows: list[LineStats | SharedLineStats] = [*a.lines, *(a.shared_lines or [])]
    for row in sorted(rows, key=lambda r: r.line):  # stable: global rows first on a line
        if row.requests and isinstance(row, SharedLineStats):
            lines.append(f"line {row.line} {row.kind} {row.array} (shared): " + bank_words(row))
        elif row.requests and isinstance(row, LineStats):
            info = a.arrays.get(row.array)
            dtype = info.dtype if info else None
            lines.append(f"line {row.line} {row.kind} {row.array}: " + sectors_words(row, dtype))
    if any(r.requests and r.space != SHARED for r in rows):
        lines += [SECTORS_LEGEND, EFFICIENCY_LEGEND]
    if any(r.requests and r.space == SHARED for r in rows):
        lines.append(WAVEFRONTS_LEGEND)
    caveats = check_caveats(result.backend, a)
    if check is not None:
        if check.error:
            lines.append(f"Check {check.expression}: could not be evaluated ({check.error}).")
        elif check.passed:
            if caveats:  # what a pass here does not prove, beside the verdict
                lines.append(f"Check {check.expression}: passed here,")
                lines.extend(caveats)
            else:
                lines.append(f"Check {check.expression}: passed.")
        else:
            failing = f" ({check.failing:,} elements differ)" if check.failing else ""
            lines.append(f"Check {check.expression}: FAILED{failing}.")
    lines.append(timing_words(result.backend, result.kernel_ms, result.instrumented_ms))
    lines.extend(n for n in result.notes if not n.startswith("logged "))
    return lines


def save_npz(result: TraceResult, path: str | Path) -> Path:
    """The log (one row per logged access) and the summary, as ``simtviz trace --out`` writes them.

    Keys: ``log`` (logged, 8) int64 with ``log_fields`` naming its columns (flags = oob | kind << 1
    | array << 3), ``line``/``array``/``kind``/``oob`` per row decoded, ``sites`` (site id → line),
    ``arrays`` (array id → name: the parameters, then the shared arrays) with ``array_spaces``
    (``global`` or ``shared``), ``summary`` (the trace --json object as JSON text), ``backend``,
    and each array's final values as ``final_<NAME>``.
    """
    log = np.ascontiguousarray(np.asarray(result.log).T)
    site_line = np.array([s.line for s in result.sites], dtype=np.int64)
    flags = log[:, 2] if log.size else np.zeros(0, np.int64)
    names = [a.name for a in result.arrays]
    kinds = np.array(["load", "store", "atomic"])
    payload: dict[str, Any] = {
        "log": log,
        "log_fields": np.array(LOG_FIELD_NAMES),
        "line": site_line[log[:, 1]] if log.size else np.zeros(0, np.int64),
        "array": np.array(names)[flags >> 3] if log.size else np.zeros(0, "U1"),
        "kind": kinds[(flags >> 1) & 3] if log.size else np.zeros(0, "U1"),
        "oob": (flags & 1).astype(bool),
        "sites": site_line,
        "arrays": np.array(names),
        "array_spaces": np.array([a.space for a in result.arrays]),
        "summary": np.array(json.dumps(result.summary())),
        "backend": np.array(result.backend),
    }
    for name, values in result.outputs.items():
        payload[f"final_{name}"] = values
    return atomic_write(Path(path), lambda fh: np.savez_compressed(fh, **payload))
