"""The chapter lesson as data: the chapter's order, the corrections, the errata at their steps."""

from __future__ import annotations

import base64
from datetime import date

from simtviz.backends.lesson import PROBES
from simtviz.core import lesson
from simtviz.core.lesson_handout import render_handout

# The chapter's sections this lesson must teach, in the chapter's order (issue 14).
REQUIRED = ["2.2.2.1", "2.2.2.2", "2.2.2.3", "2.2.3.1", "2.2.3.2", "2.2.3.3", "2.2.4", "2.2.5", "2.2.6"]

# shared/DESIGN.md's errata and where the chapter makes each (read off the chapter by hand),
# plus cp.synchronize (CuPy 14 has none) found while building the lesson.
ERRATA_AT = {
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
    return tuple(int(p) for p in section.split("."))


def test_steps_follow_the_chapter_and_cover_every_required_section() -> None:
    chapter = [s for s in lesson.STEPS if not s.beyond]
    sections = [s.section for s in chapter]
    assert sections == sorted(sections, key=_key)
    for required in REQUIRED:
        assert any(s == required or s.startswith(required + ".") for s in sections), required
    # The 1-D launch comes before the 2-D one.
    assert sections.index("2.2.2.2.1") < sections.index("2.2.2.2.2")


def test_beyond_steps_come_last_and_open_the_new_views() -> None:
    beyond = [s for s in lesson.STEPS if s.beyond]
    assert lesson.STEPS[-len(beyond) :] == tuple(beyond)
    views = {t.params["view"] for s in beyond for t in s.try_its}
    assert views == {"kernelTab", "scheduleView", "occupancyView"}


def test_every_title_starts_with_its_section_and_every_step_says_what_the_simulator_cannot() -> None:
    for s in lesson.STEPS:
        assert s.heading.startswith(s.section + " ")
        assert s.explanation and s.code and s.try_its
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
    assert "cp.zeros_like(A_device)" in creating and creating.count("# corrected:") == 3
    assert "if work_index < C.size:" in lesson.step("2.2.5").code
    assert "if idx < C.size:" in lesson.step("2.2.2.3").code


def test_try_its_ask_for_what_the_issue_lists() -> None:
    index_try = lesson.step("2.2.2.3").try_its[0]
    assert index_try.action == "index_map"
    assert {"threadIdx.x", "blockIdx.x", "global linear index"} <= set(index_try.params["colors"])
    assert lesson.step("2.2.6").try_its[0].params["block"] == 2048
    assert lesson.probes_of(lesson.step("2.2.4")) == ("async_timeline",)
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
