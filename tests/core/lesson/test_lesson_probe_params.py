"""Which parameters a lesson step runs its probes with, read off the step tables by hand."""

from __future__ import annotations

from simtviz.core.lesson import probe_params, step, step_count


def test_the_lesson_has_24_steps() -> None:
    # 2.2.1 ... 2.2.6 with their sub-steps and the "+" extras, as the Lesson tab's counter shows
    assert step_count() == 24


def test_a_probe_runs_with_its_own_try_its_parameters_only() -> None:
    # 2.2.5: two vecadd Try-its come first, then bounds_check with n = 16,777,227 (2^24 + 11)
    assert probe_params(step("2.2.5"), "bounds_check") == {"n": 16_777_227}
    assert probe_params(step("2.2.5"), "array_dtypes") == {}
    # 2.2.2.2: two launches, 1 x 32 and 3 x 64
    assert probe_params(step("2.2.2.2"), "thread_count") == {"launches": ((1, 32), (3, 64))}
    # a probe the step does not run: nothing
    assert probe_params(step("2.2.5"), "warps") == {}
