"""Predict, then run: reading a student's answer and the words after the run (hand-worked)."""

from __future__ import annotations

from simtviz.core import lesson
from simtviz.core.lesson.grading import after_run, is_right, measured, on_check, read_answer

SURPLUS = lesson.step("2.2.5").question
SYNC = lesson.step("2.2.4").question
DTYPE = lesson.step("2.2.3.1").question
assert SURPLUS is not None and SYNC is not None and DTYPE is not None


def test_the_issues_examples_are_asked_with_their_answers() -> None:
    # ceil((2^24 + 11) / 256) = 65,537 blocks; 65,537 × 256 - (2^24 + 11) = 245
    assert SURPLUS.answer == "245"
    assert lesson.step("2.2.2.3").question.answer == "69"  # 5 + 2 × 32
    assert lesson.step("2.2.6").question.answer == "the launch line"
    assert DTYPE.answer == "float64"


def test_numbers_are_read_as_students_type_them() -> None:
    assert read_answer(SURPLUS, "245").value == "245"
    assert read_answer(SURPLUS, " 1,245 threads").value == "1245"
    assert read_answer(SURPLUS, "").value is None
    bad = read_answer(SURPLUS, "lots")
    assert bad.value is None and "whole number" in bad.problem


def test_choices_are_read_in_any_case_and_unknown_ones_list_the_choices() -> None:
    assert read_answer(DTYPE, "  Float64 ").value == "float64"
    bad = read_answer(DTYPE, "double")
    assert bad.value is None and "float32, float64, int64" in bad.problem


def test_checking_keeps_the_answer_and_hides_the_truth_until_the_run() -> None:
    answer, text = on_check(SURPLUS, "256")
    assert answer.value == "256"
    assert "256" in text and "245" not in text and "Try it" in text
    _, named = on_check(SURPLUS, "256", "Count the surplus threads")
    assert named == "Your answer: 256. Now press “Try it: Count the surplus threads” and see what happens."


def test_a_right_answer_after_a_gpu_run() -> None:
    result = {"oob_writes": 245, "unavailable": {}}
    text = after_run(SURPLUS, "245", result, "the GPU")
    assert text.startswith("You said 245; the GPU did 245. Right.")


def test_a_wrong_answer_names_the_right_one_after_the_run() -> None:
    result = {"oob_writes": 245, "unavailable": {}}
    text = after_run(SURPLUS, "256", result, "the GPU")
    assert text.startswith("You said 256; the GPU did 245.")
    assert "The right answer is 245" in text and "65,537" in text


def test_the_simulator_differs_and_says_so() -> None:
    result = {"launch_returned": "after the kernel", "unavailable": {}}
    right = after_run(SYNC, "right away", result, "the CPU simulator")
    assert "the CPU simulator did after the kernel" in right
    assert "Right for a GPU (right away)" in right
    wrong = after_run(SYNC, "after the kernel", result, "the CPU simulator")
    assert "The right answer is right away" in wrong


def test_a_value_the_backend_cannot_measure_is_said_with_its_reason() -> None:
    result = {"oob_writes": None, "unavailable": {"oob_writes": "16,777,472 threads would take 42 minutes"}}
    assert measured(SURPLUS, result) is None
    text = after_run(SURPLUS, "200", result, "the CPU simulator")
    assert "could not measure it (16,777,472 threads would take 42 minutes)" in text
    assert "The right answer is 245" in text
    assert after_run(SURPLUS, None, None, "the GPU").startswith("You did not answer;")


def test_booleans_read_as_yes_and_no() -> None:
    q = lesson.step("2.2.2.1").question
    assert measured(q, {"float32_compiled_again": "yes"}) == "yes"
    assert is_right(q, "Yes")


def test_a_boolean_measurement_reads_yes_or_no() -> None:
    q = lesson.step("2.2.2.1").question
    assert measured(q, {"float32_compiled_again": True}) == "yes"
    assert measured(q, {"float32_compiled_again": False}) == "no"


def test_why_nothing_was_measured_is_said() -> None:
    assert after_run(SURPLUS, "245", {}, "the GPU") == (
        "You said 245; the GPU could not measure it (it has not run yet). Right. " + SURPLUS.why
    )
    failed = after_run(SURPLUS, "245", {"error": "RuntimeError: boom"}, "the GPU")
    assert "could not measure it (the probe failed: RuntimeError: boom)" in failed
    silent = after_run(SURPLUS, "245", {"oob_writes": None, "unavailable": {}}, "the GPU")
    assert "could not measure it (this run did not report it)" in silent


def test_checking_an_unreadable_answer_says_what_to_type() -> None:
    answer, text = on_check(SURPLUS, "many")
    assert answer.value is None and text == "Type a whole number, for example 12."
