"""The vector add's defaults a caller gets without asking, read back by hand: the launches a GPU
times, what NumPy's reference time measures, a result's kernel variant and repeat count, the
report's sweep and the program shown."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from simtviz.core import vecadd as core
from simtviz.core.vecadd import SweepRow, VecaddRequest, VecaddResult, program_source, report_lines


@pytest.mark.parametrize(
    ("repeat", "launches"),
    [
        (1, 20),  # fewer than 20 is too noisy: a GPU times 20
        (19, 20),
        (20, 20),
        (21, 21),  # from 20 on, as asked
        (30, 30),
        (None, 50),  # nothing asked: the GPU's default of 50
    ],
)
def test_a_gpu_times_at_least_twenty_launches(repeat: int | None, launches: int) -> None:
    assert VecaddRequest(100_003, repeat=repeat).gpu_launches() == launches


class _Operand:
    """Stands in for ``a_np`` and ``b_np``: records each operation done on it."""

    def __init__(self, done: list[str]) -> None:
        self.done = done

    def __add__(self, other: object) -> _Operand:
        self.done.append("+")
        return self


def test_numpys_time_is_the_median_of_five_sums(monkeypatch: pytest.MonkeyPatch) -> None:
    # Five runs of 4, 1, 3, 5 and 2 ms (clock in seconds): sorted 1, 2, 3, 4, 5, median 3 ms.
    # The timed operation is the guide's `a_np + b_np`, done once per run.
    ticks = iter([1.0, 1.004, 2.0, 2.001, 3.0, 3.003, 4.0, 4.005, 5.0, 5.002])
    monkeypatch.setattr(core, "time", SimpleNamespace(perf_counter=lambda: next(ticks)))
    done: list[str] = []
    assert core.numpy_median_ms(_Operand(done), _Operand([])) == pytest.approx(3.0)
    assert done == ["+"] * 5


def test_a_result_built_without_a_variant_or_repeat_is_the_guarded_kernel_timed_once() -> None:
    # N = 100, block 32: ⌈100 / 32⌉ = 4 blocks, 4 × 32 − 100 = 28 idle threads.
    r = VecaddResult("gpu:X", 100, 32, 4, verified=True, max_abs_err=0.0)
    lines = report_lines(r)
    assert lines[1] == (
        "N = 100 float64, grid = ceil(N / 32) = 4 blocks, 28 idle threads in the last block; "
        "kernel guarded (if work_index < C.size)"
    )
    assert lines[2] == "Timed launches: 1 (medians)."
    assert r.to_json_dict()["guarded"] is True


def test_the_report_holds_the_sweep_unless_told_not_to() -> None:
    # One sweep row, block 32 for N = 100: 4 blocks, 4 × 32 − 100 = 28 idle threads, not timed.
    r = VecaddResult("sim", 100, 32, 4, verified=True, max_abs_err=0.0, sweep=[SweepRow.shape(100, 32)])
    tables = [line.split("\n") for line in report_lines(r) if line.startswith("Block-size sweep:")]
    assert [[row.split() for row in table] for table in tables] == [
        [
            ["Block-size", "sweep:"],
            ["block", "grid", "idle", "time", "bandwidth"],
            ["32", "4", "28", "—", "—"],
        ]
    ]
    assert not any(line.startswith("Block-size sweep:") for line in report_lines(r, include_sweep=False))


def test_the_program_shown_by_default_is_the_guarded_one() -> None:
    code = program_source()
    assert "def vecadd(A, B, C):" in code
    assert "    if work_index < C.size:\n        C[work_index] = A[work_index] + B[work_index]" in code
    assert "vecadd[grid_size, block_size](a, b, c)" in code
    assert "vecadd_unguarded" not in code
