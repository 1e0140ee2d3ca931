"""Predict, then run: checking a student's answer and comparing it with what the run measured.

Qt-free: the lesson panel's question box and the handout both call these. An answer is read the
way a student types it ("245", " 245 threads", "Float64"); a choice may be typed or picked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from simtviz.core.lesson.model import Question


@dataclass(frozen=True)
class Answer:
    """A student's answer: ``value`` as the question spells it, or None with ``problem`` said."""

    value: str | None
    problem: str = ""


def _norm(text: str) -> str:
    return " ".join(text.strip().lower().split())


def read_answer(question: Question, text: str) -> Answer:
    """Parse ``text``: a whole number (commas allowed), or one of the choices (any case)."""
    if not text.strip():
        return Answer(None, "Type your answer first.")
    if question.choices:
        wanted = _norm(text)
        for choice in question.choices:
            if _norm(choice) == wanted:
                return Answer(choice)
        return Answer(None, "Pick one of: " + ", ".join(question.choices) + ".")
    match = re.fullmatch(r"\s*(-?[\d,_]+)\b.*", text)
    digits = match.group(1).replace(",", "").replace("_", "") if match else ""
    if not digits.lstrip("-").isdigit():
        return Answer(None, "Type a whole number, for example 12.")
    return Answer(str(int(digits)))


def is_right(question: Question, value: str) -> bool:
    return _norm(value) == _norm(question.answer)


def measured(question: Question, result: Mapping[str, Any] | None) -> str | None:
    """What the run measured for ``question`` (as text), or None when it could not."""
    if not result or result.get(question.key) is None:
        return None
    value = result[question.key]
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def why_not_measured(question: Question, result: Mapping[str, Any] | None) -> str:
    if not result:
        return "it has not run yet"
    if result.get("error"):
        return f"the probe failed: {result['error']}"
    reason: str = result.get("unavailable", {}).get(question.key, "")
    return reason or "this run did not report it"


def on_check(question: Question, text: str, try_label: str = "") -> tuple[Answer, str]:
    """What the box says when the student checks: the answer is kept, the truth waits for the run
    (``try_label``: the Try it that answers the question, named so the student finds it)."""
    answer = read_answer(question, text)
    if answer.value is None:
        return answer, answer.problem
    which = f"Try it: {try_label}" if try_label else "Try it"
    return answer, f"Your answer: {answer.value}. Now press “{which}” and see what happens."


def after_run(question: Question, given: str | None, result: Mapping[str, Any] | None, where: str) -> str:
    """ "You said X, the GPU did Y", and the right answer named when X was wrong.

    ``where`` is the backend in words ("the GPU", "the CPU simulator").
    """
    got = measured(question, result)
    said = f"You said {given}" if given is not None else "You did not answer"
    if got is None:
        ran = f"{where} could not measure it ({why_not_measured(question, result)})"
    else:
        ran = f"{where} did {got}"
    text = f"{said}; {ran}."
    if given is not None and is_right(question, given):
        text += " Right"
        if got is not None and _norm(got) != _norm(question.answer):
            text += f" for a GPU ({question.answer}); {where} differs, as the note on the simulator says"
        return text + f". {question.why}"
    return text + f" The right answer is {question.answer}: {question.why}"
