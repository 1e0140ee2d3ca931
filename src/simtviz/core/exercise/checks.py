"""The checks, each read from the traced runs of an exercise's cases (never from its answer).

Every verdict is one line that says why and, when it fails, names the line of the student's
file and one thread that shows it (``thread 5 (blockIdx 0, threadIdx 5)``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from simtviz.core.exercise.model import Case, CheckResult, Exercise
from simtviz.core.trace.analysis import (
    F_FLAGS,
    F_I0,
    F_OFFSET,
    F_SITE,
    F_THREAD,
    KIND_ATOMIC,
    KIND_STORE,
    SECTOR_BYTES,
    oob_details,
)
from simtviz.core.trace.hazards import hazard_words, thread_words
from simtviz.core.trace.model import TraceResult

Outcome = TraceResult | BaseException


def case_words(k: int, case: Case) -> str:
    shapes = ", ".join(f"{n} {s.split(':')[0]}" for n, s in case.args.items() if "[" in s)
    return f"case {k + 1} ({shapes}; grid {_d(case.grid)}, block {_d(case.block)})"


def _d(v: Sequence[int]) -> str:
    v = list(v)
    while len(v) > 1 and v[-1] == 1:
        v.pop()
    return str(v[0]) if len(v) == 1 else "×".join(map(str, v))


def who(result: TraceResult, thread: int) -> str:
    return thread_words(thread, result.grid, result.block)


def _element(name: str, index: Sequence[int]) -> str:
    return f"{name}[{', '.join(str(int(i)) for i in index)}]"


def rows_of_element(result: TraceResult, name: str, index: Sequence[int], kinds: Sequence[int]) -> list[int]:
    """Log rows (in log order) that touched ``name[index]`` in bounds with one of ``kinds``."""
    log = result.log
    array_id = [a.name for a in result.arrays].index(name)
    flags = log[F_FLAGS]
    mine = ((flags >> 3) == array_id) & ((flags & 1) == 0) & np.isin((flags >> 1) & 3, list(kinds))
    for d, i in enumerate(index):
        mine &= log[F_I0 + d] == int(i)
    return np.nonzero(mine)[0].tolist()


def line_of(result: TraceResult, row: int) -> int:
    return result.sites[int(result.log[F_SITE, row])].line


def neighbours(result: TraceResult, line: int, array: str, kind: str) -> tuple[int, int] | None:
    """Two log rows of one line made by neighbouring lanes of one warp (their first executions)."""
    log = result.log
    site_ids = [s.id for s in result.sites if s.line == line and s.array == array and s.kind == kind]
    rows = np.nonzero(np.isin(log[F_SITE], site_ids) & ((log[F_FLAGS] & 1) == 0))[0]
    if rows.size < 2:
        return None
    threads = log[F_THREAD, rows]
    first: dict[int, int] = {}
    for r, t in zip(rows.tolist(), threads.tolist(), strict=True):
        first.setdefault(int(t), int(r))
    per_block = math.prod(result.block)
    for t in sorted(first):
        if (
            t + 1 in first
            and (t % per_block) // 32 == ((t + 1) % per_block) // 32
            and t // per_block == (t + 1) // per_block
        ):
            return first[t], first[t + 1]
    return None


def _index(result: TraceResult, row: int) -> list[int]:
    info = result.arrays[int(result.log[F_FLAGS, row]) >> 3]
    return [int(result.log[F_I0 + d, row]) for d in range(len(info.shape))]


def _failed_run(results: Sequence[Outcome], cases: Sequence[Case]) -> str | None:
    for k, (r, case) in enumerate(zip(results, cases, strict=True)):
        if isinstance(r, BaseException):
            return f"{case_words(k, case)}: the kernel failed: {r}"
    return None


def check_output(ex: Exercise, results: Sequence[TraceResult], cases: Sequence[Case]) -> CheckResult:
    for k, (r, case) in enumerate(zip(results, cases, strict=True)):
        expected = ex.expect({**r.inputs})
        for name in ex.outputs:
            got, want = np.asarray(r.outputs[name]), np.asarray(expected[name])
            if np.issubdtype(want.dtype, np.floating):
                good = np.isclose(got, want, rtol=1e-4, atol=1e-4)
            else:
                good = got == want
            if good.all():
                continue
            bad = tuple(int(i) for i in np.argwhere(~good)[0])
            rows = rows_of_element(r, name, bad, (KIND_STORE, KIND_ATOMIC))
            by = (
                f"{who(r, int(r.log[F_THREAD, rows[-1]]))} stored it last, at line {line_of(r, rows[-1])}"
                if rows
                else "no thread stored it" + _last_store_words(r, name)
            )
            wrong = int((~good).sum())
            return CheckResult(
                "output",
                False,
                f"{case_words(k, case)}: {_element(name, bad)} is {got[bad]:g}, expected {want[bad]:g} "
                f"({wrong:,} of {good.size:,} elements wrong); {by}.",
            )
    return CheckResult(
        "output", True, f"every output element equals the reference in all {len(cases)} cases."
    )


def check_in_bounds(ex: Exercise, results: Sequence[TraceResult], cases: Sequence[Case]) -> CheckResult:
    for k, (r, case) in enumerate(zip(results, cases, strict=True)):
        total = r.analysis.oob_total
        if total:
            (d,) = oob_details(r.log, r.sites, r.arrays, 1)
            return CheckResult(
                "in_bounds",
                False,
                f"{case_words(k, case)}: line {d.line}: {who(r, d.thread)} {d.kind}s "
                f"{_element(d.array, d.index)}, but {d.array} has shape {d.shape} "
                f"({total:,} out-of-bounds {'access' if total == 1 else 'accesses'}).",
            )
    return CheckResult("in_bounds", True, "no access outside any array.")


def check_written_once(ex: Exercise, results: Sequence[TraceResult], cases: Sequence[Case]) -> CheckResult:
    for k, (r, case) in enumerate(zip(results, cases, strict=True)):
        for name in ex.outputs:
            touch = r.analysis.touch[name]
            writers = np.asarray(touch.writers)
            several = np.argwhere(writers > 1)
            if several.size:
                at = tuple(int(i) for i in several[0])
                rows = rows_of_element(r, name, at, (KIND_STORE,))
                threads: dict[int, int] = {}
                for row in rows:
                    threads.setdefault(int(r.log[F_THREAD, row]), row)
                (t1, r1), (t2, r2) = list(threads.items())[:2]
                return CheckResult(
                    "written_once",
                    False,
                    f"{case_words(k, case)}: {_element(name, at)} is stored by {int(writers[at])} threads: "
                    f"{who(r, t1)} at line {line_of(r, r1)} and {who(r, t2)} at line {line_of(r, r2)}.",
                )
            none = np.argwhere(writers == 0)
            if none.size:
                at = tuple(int(i) for i in none[0])
                return CheckResult(
                    "written_once",
                    False,
                    f"{case_words(k, case)}: no thread stores {_element(name, at)} "
                    f"({int((writers == 0).sum()):,} of {writers.size:,} elements never stored)"
                    + _last_store_words(r, name)
                    + ".",
                )
    return CheckResult("written_once", True, "every output element is stored by exactly one thread.")


def _last_store_words(r: TraceResult, name: str) -> str:
    """``; the last element stored is out[63], by thread 63 (…) at line 8`` (or that none is)."""
    log = r.log
    array_id = [a.name for a in r.arrays].index(name)
    flags = log[F_FLAGS]
    rows = np.nonzero(((flags >> 3) == array_id) & ((flags & 1) == 0) & (((flags >> 1) & 3) == KIND_STORE))[0]
    if not rows.size:
        return f"; no line of the kernel stores into {name}"
    flat = np.ravel_multi_index(
        tuple(log[F_I0 + d, rows] for d in range(len(r.arrays[array_id].shape))), r.arrays[array_id].shape
    )
    row = int(rows[int(np.argmax(flat))])
    return (
        f"; the last element stored is {_element(name, _index(r, row))}, by "
        f"{who(r, int(log[F_THREAD, row]))} at line {line_of(r, row)}"
    )


def check_coalesced(ex: Exercise, results: Sequence[TraceResult], cases: Sequence[Case]) -> CheckResult:
    for k, (r, case) in enumerate(zip(results, cases, strict=True)):
        size = {a.name: a.itemsize for a in r.arrays}
        for row in r.analysis.lines:
            if row.kind == "atomic" or not row.requests:
                continue
            ideal = size[row.array] * 32 / SECTOR_BYTES  # 32 lanes, neighbouring elements
            if (row.sectors_per_request or 0.0) <= ideal + ex.coalesced_slack:
                continue
            text = (
                f"{case_words(k, case)}: line {row.line} {row.kind}s {row.array} with "
                f"{row.sectors_per_request:g} sectors per request (ideal {ideal:g})"
            )
            pair = neighbours(r, row.line, row.array, row.kind)
            if pair is not None:
                a, b = pair
                gap = abs(int(r.log[F_OFFSET, b]) - int(r.log[F_OFFSET, a]))
                text += (
                    f": neighbouring lanes {who(r, int(r.log[F_THREAD, a]))} and "
                    f"thread {int(r.log[F_THREAD, b]):,} touch {_element(row.array, _index(r, a))} and "
                    f"{_element(row.array, _index(r, b))}, {gap:,} bytes apart"
                )
            return CheckResult("coalesced", False, text + ".")
    return CheckResult("coalesced", True, "every global load and store of a warp uses the fewest sectors.")


def check_conflict_free(ex: Exercise, results: Sequence[TraceResult], cases: Sequence[Case]) -> CheckResult:
    for k, (r, case) in enumerate(zip(results, cases, strict=True)):
        for row in r.analysis.shared_lines or []:
            if not row.requests or row.wavefronts == row.min_wavefronts:
                continue
            text = (
                f"{case_words(k, case)}: line {row.line} {row.kind}s the shared array {row.array} "
                f"with {row.wavefronts_per_request:g} wavefronts per request (up to a "
                f"{row.max_conflict_degree}-way bank conflict)"
            )
            pair = neighbours(r, row.line, row.array, row.kind)
            if pair is not None:
                a, b = pair
                banks = [(int(r.log[F_OFFSET, x]) // 4) % 32 for x in pair]
                text += (
                    f": {who(r, int(r.log[F_THREAD, a]))} and thread {int(r.log[F_THREAD, b]):,} touch "
                    f"{_element(row.array, _index(r, a))} (bank {banks[0]}) and "
                    f"{_element(row.array, _index(r, b))} (bank {banks[1]})"
                )
            return CheckResult("conflict_free", False, text + ".")
    return CheckResult("conflict_free", True, "every shared-memory request takes one wavefront per pass.")


def check_race_free(ex: Exercise, results: Sequence[TraceResult], cases: Sequence[Case]) -> CheckResult:
    for k, (r, case) in enumerate(zip(results, cases, strict=True)):
        hazards = r.analysis.hazards
        if hazards:
            more = f" ({len(hazards)} pairs of lines in all)" if len(hazards) > 1 else ""
            return CheckResult(
                "race_free",
                False,
                f"{case_words(k, case)}: {hazard_words(hazards[0], r.grid, r.block)}{more}",
            )
    return CheckResult(
        "race_free", True, "no two threads of a block touch one element without a barrier between."
    )


CHECK_FUNCTIONS: dict[str, Any] = {
    "output": check_output,
    "in_bounds": check_in_bounds,
    "written_once": check_written_once,
    "coalesced": check_coalesced,
    "conflict_free": check_conflict_free,
    "race_free": check_race_free,
}


def run_checks(ex: Exercise, results: Sequence[Outcome]) -> list[CheckResult]:
    """One verdict per check of ``ex``, from the traced run of each of its cases."""
    failed = _failed_run(results, ex.cases)
    if failed is not None:
        return [CheckResult(name, False, failed) for name in ex.checks]
    done = [r for r in results if isinstance(r, TraceResult)]
    return [CHECK_FUNCTIONS[name](ex, done, ex.cases) for name in ex.checks]
