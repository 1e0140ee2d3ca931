"""Which parameters a lesson step runs its probes with, read off the step tables by hand."""

from __future__ import annotations

from simtviz.core.lesson import STEPS, probe_params, step, step_count
from simtviz.core.lesson.handout import _evidence, _numbers, format_value


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


def test_steps_beyond_the_chapter_and_steps_that_need_cupy() -> None:
    # the "+" extras and B1-B3 after the chapter are marked "beyond"; the rest is the chapter
    assert [s.section for s in STEPS if s.beyond] == ["2.2.2.3+", "2.2.5+", "B1", "B2", "B3"]
    assert step("2.2.4").needs_cupy is True  # its code imports cupy
    assert step("2.2.2.1").needs_cupy is False


def test_measured_values_as_the_handout_prints_them() -> None:
    assert format_value(None) == "none"
    assert format_value(True) == "True"
    assert format_value(3.14159) == "3.14"  # 3 significant digits
    assert format_value(7) == "7"
    assert format_value([{"a": 1, "b": 0.5}]) == "a=1, b=0.5"
    assert format_value([{"a": 1}, {"a": None}]) == "a=1; a=none"


def test_a_cards_evidence_says_why_there_is_no_value() -> None:
    assert _evidence(None, "x") == "not run"
    assert _evidence({"error": "boom"}, "x") == "the probe failed: boom"
    assert _evidence({"x": 2.5}, "x") == "2.5"
    assert _evidence({"x": None, "unavailable": {"x": "no GPU"}}, "x") == "not measurable here: no GPU"
    assert _evidence({"x": None}, "x") == "not reported by this run"


def test_the_numbers_table_marks_only_missing_values_as_gaps() -> None:
    html = _numbers(
        {"probe": "p", "backend": "sim", "x": 1.5, "y": None, "unavailable": {"x": "n/a", "y": "no GPU"}}
    )
    assert "<tr><th>x</th><td>1.5</td></tr>" in html
    assert '<tr><th>y</th><td><span class="gap">not measurable here: no GPU</span></td></tr>' in html
    assert html.startswith("<p>p on sim</p>")
