"""Walk every step of the lesson on the simulator: run each probe the step uses (with the step's
own parameters), check every claim the step marks as checkable here, and compare each question's
measured value with what the simulator is known to report. tests/gpu/test_lesson_gpu.py walks the
same steps on a GPU."""

from __future__ import annotations

from typing import Any

import pytest

from simtviz.backends.lesson import PROBES, run_probe
from simtviz.core import lesson
from simtviz.core.lesson.grading import measured

_cache: dict[tuple[str, str], dict[str, Any]] = {}


def probe_result(step: lesson.Step, probe: str) -> dict[str, Any]:
    params = lesson.probe_params(step, probe)
    key = (probe, repr(sorted(params.items())))
    if key not in _cache:
        _cache[key] = run_probe(probe, **params)
    return _cache[key]


@pytest.fixture(autouse=True)
def _simulator(backend_kind: str) -> None:
    if backend_kind != "sim":
        pytest.skip("simulator test")


def test_at_least_twelve_steps_ask_before_they_show() -> None:
    asked = lesson.questions()
    assert len(asked) >= 12
    for step, question in asked:
        # The question's probe is one the step's Try it runs, so the run answers it.
        assert question.probe in [t.params.get("probe") for t in step.try_its], step.section
        assert question.key in PROBES[question.probe].keys, (step.section, question.key)


def test_every_claim_names_a_key_its_probe_reports() -> None:
    for step in lesson.STEPS:
        for claim in step.claims:
            assert claim.key in PROBES[claim.probe].keys, (step.section, claim.text)


@pytest.mark.parametrize("section", [s.section for s in lesson.STEPS if s.claims or s.question])
def test_walk_the_step_on_the_simulator(section: str) -> None:
    step = lesson.step(section)
    for claim in step.claims:
        if "sim" not in claim.expect:
            continue
        result = probe_result(step, claim.probe)
        assert "error" not in result, result.get("error")
        assert result[claim.key] == claim.expect["sim"], (claim.text, result)
    q = step.question
    if q is not None:
        result = probe_result(step, q.probe)
        assert "error" not in result, result.get("error")
        assert measured(q, result) == q.sim_value, (q.prompt, result.get(q.key))
        if q.sim_value is None:  # not measurable here: the result says why, in words
            assert len(result["unavailable"][q.key]) > 20


def test_no_gap_blames_a_driver_where_there_is_no_gpu() -> None:
    # A student without a GPU reads "no GPU here", not CuPy's cudaErrorInsufficientDriver.
    dtypes = probe_result(lesson.step("2.2.3.1"), "array_dtypes")
    text = repr(dtypes)
    assert "InsufficientDriver" not in text and "CUDARuntimeError" not in text
    if dtypes["chapter_lines"] is not None:
        # The chapter's first line makes a CuPy array: it runs where the driver sees a GPU
        # (a simulator run on a GPU machine), and fails in those words where it sees none.
        from simtviz.backends.selection import gpu_probe

        expected = None if gpu_probe()[0] else "CuPy needs a GPU: there is no GPU here"
        assert dtypes["chapter_lines"][0]["error"] == expected
