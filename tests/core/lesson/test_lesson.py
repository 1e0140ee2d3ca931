"""The chapter lesson as data: the chapter's order, the corrections, the errata at their steps."""

from __future__ import annotations

import base64
from datetime import date

from simtviz.backends.lesson import PROBES
from simtviz.core import lesson
from simtviz.core.lesson.handout import render_handout

# Every section and lead-in of the chapter (read off shared/seed by hand), in its order
# (issues 14 and 22).
REQUIRED = [
    "2.2",
    "2.2.1",
    "2.2.1.1",
    "2.2.1.2",
    "2.2.1.3",
    "2.2.1.4",
    "2.2.2",
    "2.2.2.1",
    "2.2.2.2",
    "2.2.2.2.1",
    "2.2.2.2.2",
    "2.2.2.3",
    "2.2.3",
    "2.2.3.1",
    "2.2.3.2",
    "2.2.3.3",
    "2.2.4",
    "2.2.5",
    "2.2.6",
]

# The chapter's errata (the lesson's erratum cards) and where the chapter makes each (read off
# the chapter by hand),
# plus cp.synchronize (CuPy 14 has none) found while building the lesson.
ERRATA_AT = {
    "cuda-lang": {"2.2.1"},
    "implicit-copies": {"2.2.3.3"},
    "except-exception": {"2.2.6"},
    "cp-rand": {"2.2.3.1", "2.2.3.2"},
    "zeros-float32": {"2.2.3.1"},
    "uniform-float32": {"2.2.5"},
    "undefined-A": {"2.2.3.1"},
    "bounds-checked": {"2.2.2.3", "2.2.3.3"},
    "host-array-error": {"2.2.3.3"},
    "gpu-array-error": {"2.2.3.3"},
    "cp-synchronize": {"2.2.4"},
}


def _key(section: str) -> tuple[int, ...]:
    # "2.2.2.3+" is a step the lesson adds right after §2.2.2.3.
    return (*(int(p) for p in section.rstrip("+").split(".")), 1 if section.endswith("+") else 0)


def test_steps_follow_the_chapter_one_step_for_every_section_and_lead_in() -> None:
    numbered = [s.section for s in lesson.STEPS if not s.section.startswith("B")]
    assert numbered == sorted(numbered, key=_key)
    chapter = [s for s in numbered if not s.endswith("+")]
    assert chapter == REQUIRED
    # The added steps sit where the issue asks: warps after §2.2.2.3, timing after the vector add.
    assert numbered[numbered.index("2.2.2.3") + 1] == "2.2.2.3+"
    assert numbered[numbered.index("2.2.5") + 1] == "2.2.5+"
    assert lesson.step("2.2.1").heading.startswith("2.2.1 ")


def test_beyond_the_chapter_steps_open_the_new_views_last() -> None:
    last = lesson.STEPS[-3:]
    assert all(s.beyond and s.section.startswith("B") for s in last)
    views = {t.params["view"] for s in last for t in s.try_its}
    assert views == {"kernelTab", "scheduleView", "occupancyView"}


def test_every_title_starts_with_its_section_and_every_step_says_what_the_simulator_cannot() -> None:
    for s in lesson.STEPS:
        assert s.heading.startswith(s.section + " ")
        assert s.explanation
        assert s.sim_shows and s.sim_cannot


def test_every_erratum_is_at_the_step_where_the_chapter_makes_it() -> None:
    assert {e.id for e in lesson.errata()} == set(ERRATA_AT)
    for erratum_id, sections in ERRATA_AT.items():
        assert set(lesson.sections_of(erratum_id)) == sections, erratum_id


def test_every_card_names_a_real_probe_and_one_of_its_keys() -> None:
    for erratum in lesson.errata():
        assert erratum.probe in PROBES
        assert erratum.evidence in PROBES[erratum.probe].keys


def test_the_corrected_code_no_longer_has_the_chapters_errors() -> None:
    # The code as Python runs it: comments (where corrections are explained) dropped.
    code = "\n".join(line.split("#")[0] for s in lesson.STEPS for line in s.code.splitlines())
    assert "cp.rand." not in code
    assert "cp.synchronize()" not in code
    assert "zeros_like(A)" not in code
    creating = lesson.step("2.2.3.1").code
    # three corrections and one added line that prints the dtypes
    assert "cp.zeros_like(A_device)" in creating and creating.count("# corrected:") == 4
    assert "if work_index < C.size:" in lesson.step("2.2.5").code
    assert "if idx < C.size:" in lesson.step("2.2.2.3").code


def test_try_its_ask_for_what_the_issue_lists() -> None:
    index_try = lesson.step("2.2.2.3").try_its[0]
    assert index_try.action == "index_map"
    assert {"threadIdx.x", "blockIdx.x", "global linear index"} <= set(index_try.params["colors"])
    assert lesson.step("2.2.6").try_its[0].params["block"] == 2048
    assert lesson.probes_of(lesson.step("2.2.4")) == ("async_timeline",)
    assert "library_vs_kernel" in lesson.probes_of(lesson.step("2.2.1.1"))
    assert lesson.step("2.2.2.3+").try_its[0].params["block"] == (48, 1, 1)
    assert "copy_bandwidth" in lesson.probes_of(lesson.step("2.2.3.2"))
    assert "jit_timing" in lesson.probes_of(lesson.step("2.2.2.1"))


def test_handout_holds_every_title_the_numbers_and_the_figures() -> None:
    results = {
        "copy_bandwidth": {
            "probe": "copy_bandwidth",
            "backend": "gpu:NVIDIA H200",
            "unavailable": {},
            "d2h_pinned_GBps": 52.25,
            "d2h_pageable_GBps": 3.27,
        },
        "array_dtypes": {
            "probe": "array_dtypes",
            "backend": "sim",
            "unavailable": {"zeros_dtype": "CuPy needs a GPU"},
            "zeros_dtype": None,
            "has_cp_rand": False,
        },
    }
    png = b"\x89PNG\r\n\x1a\nfake"
    html = render_handout(
        results, {"2.2.4": [(png, "the timeline")]}, backend="gpu:NVIDIA H200", when=date(2026, 12, 2)
    )
    for s in lesson.STEPS:
        assert f"{s.section} " in html and s.title.replace("&", "&amp;") in html
    assert "52.2" in html and "3.27" in html  # 3 significant digits
    assert "not measurable here: CuPy needs a GPU" in html
    assert base64.b64encode(png).decode() in html and "the timeline" in html
    assert (
        "2026-12-02" in html
        and "<style>" in html
        and "http" not in html.lower().replace("<!doctype html>", "")
    )


def test_handout_prints_each_probe_table_once_and_never_a_bare_none() -> None:
    bounds = {
        "probe": "bounds_check",
        "backend": "sim",
        "unavailable": {"oob_writes": "the simulator checks indices like NumPy"},
        "raised": "IndexError: index 1020",
        "oob_writes": None,
    }
    html = render_handout({"bounds_check": bounds}, when=date(2026, 12, 3))
    # bounds_check is used by §2.2.2.3, §2.2.3.3 and §2.2.5: its table appears once.
    assert html.count("<p>bounds_check on sim</p>") == 1
    assert "): None" not in html
    assert "(bounds_check: oob_writes): not measurable here: the simulator checks indices like NumPy" in html


def test_handout_puts_the_students_answer_beside_the_measured_value() -> None:
    run = {"probe": "bounds_check", "backend": "gpu:NVIDIA H200", "unavailable": {}, "oob_writes": 245}
    sim_run = {"probe": "index_formula", "backend": "sim", "unavailable": {}, "idx_b2_t5": 69}
    html = render_handout(
        {"bounds_check": run, "index_formula": sim_run},
        answers={"2.2.5": "256", "2.2.2.3": "69"},
        runs={"2.2.5": run, "2.2.2.3": sim_run},
        when=date(2026, 12, 3),
    )
    assert "<th>Your answer</th><td>256</td>" in html
    assert "<th>Measured (gpu:NVIDIA H200)</th><td>245</td>" in html
    assert "<th>Your answer</th><td>69</td>" in html and "<th>Measured (sim)</th><td>69</td>" in html
    # A question not answered and not run says so instead of leaving a blank.
    assert "not answered" in html and "it has not run yet" in html
    assert html.count("Predict, then run") == len(lesson.questions())
