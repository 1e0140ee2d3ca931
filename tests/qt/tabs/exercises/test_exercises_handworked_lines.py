"""The Exercises tab's words, buttons and saved state, line by line, by hand: reports and
failures are handed to the tab through the session's signals (nothing is graded here), and
what the student reads is written out with its arithmetic."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fake_backends import FakeHostBackend
from PySide6.QtCore import QSettings
from qt_helpers import cancelled_file_dialogs

from simtviz.core.exercise.catalog import exercise
from simtviz.core.exercise.model import CheckResult, Report
from simtviz.qt.session import RunSession
from simtviz.qt.tabs.exercises.tab import ExercisesTab


@pytest.fixture
def settings_path(tmp_path: Any) -> str:
    return str(tmp_path / "simtviz.ini")


@pytest.fixture
def session(settings_path: str) -> Iterator[RunSession]:
    s = RunSession(lambda: FakeHostBackend())
    s.store = QSettings(settings_path, QSettings.Format.IniFormat)
    yield s
    s.close()


def _tab(qtbot: Any, session: RunSession) -> ExercisesTab:
    t = ExercisesTab(session)
    qtbot.addWidget(t)
    return t


@pytest.fixture
def tab(qtbot: Any, session: RunSession) -> ExercisesTab:
    return _tab(qtbot, session)


def _report(exercise_id: str, *passed: bool, backend: str = "sim") -> Report:
    names = ("output", "in_bounds", "written_once", "coalesced")
    checks = [CheckResult(n, p, f"{n} {'ok' if p else 'wrong'}") for n, p in zip(names, passed, strict=False)]
    return Report(exercise_id, backend, checks)


def test_hints_count_from_one_and_the_button_stops_at_the_last(tab: ExercisesTab) -> None:
    tab.select("saxpy")  # two hints
    h1, h2 = exercise("saxpy").hints
    assert tab.hints.text() == ""
    assert tab.hintButton.text() == "Next hint (0/2)" and tab.hintButton.isEnabled()
    tab.hintButton.click()
    assert tab.hints.text() == f"Hint 1: {h1}"
    assert tab.hintButton.text() == "Next hint (1/2)" and tab.hintButton.isEnabled()
    tab.hintButton.click()
    assert tab.hints.text() == f"Hint 1: {h1}\nHint 2: {h2}"
    assert tab.hintButton.text() == "Next hint (2/2)" and not tab.hintButton.isEnabled()
    assert int(tab._qs.value("exercises/saxpy/hints")) == 2


def test_more_hints_saved_than_the_exercise_has_show_them_all_and_no_more(
    qtbot: Any, session: RunSession
) -> None:
    session.store.setValue("exercises/current", "saxpy")
    session.store.setValue("exercises/saxpy/hints", 5)  # saxpy has 2
    tab = _tab(qtbot, session)
    assert tab.hintButton.text() == "Next hint (2/2)" and not tab.hintButton.isEnabled()
    assert tab.hints.text().count("Hint ") == 2


def test_check_says_how_many_launches_and_locks_its_button_until_the_report(
    tab: ExercisesTab, monkeypatch: Any
) -> None:
    tab.select("saxpy")  # 2 launches, 4 checks
    monkeypatch.setattr(tab.session, "run", lambda experiment, request: True)
    assert tab.check()
    assert tab.status.text() == "Checking SAXPY: 2 launches…"
    assert not tab.checkButton.isEnabled() and tab.bar.isVisibleTo(tab) and tab.bar.value() == 0
    tab.session.runProgress.emit("exercise", 0.4)  # 0.4 of the bar's 1,000
    assert tab.bar.value() == 400
    tab.session.runProgress.emit("trace", 0.9)  # the Your kernel tab's run: not this bar
    assert tab.bar.value() == 400
    tab.session.resultArrived.emit("exercise", _report("saxpy", True, True, True, True))
    assert tab.checkButton.isEnabled() and not tab.bar.isVisibleTo(tab)
    # 4 of the 4 checks passed: the exercise is passed
    assert tab.status.text() == "4 of 4 checks passed on the CUDA simulator: exercise passed."
    assert [tab.results.item(r, 0).text() for r in range(4)] == [
        "Output",
        "In bounds",
        "Written once",
        "Coalesced",
    ]


def test_a_gpu_report_names_the_card_and_a_failed_one_ends_with_a_full_stop(tab: ExercisesTab) -> None:
    tab.select("saxpy")
    tab.session.resultArrived.emit(
        "exercise", _report("saxpy", True, False, True, False, backend="gpu:NVIDIA H100")
    )
    # 2 of the 4 passed (output, written once)
    assert tab.status.text() == "2 of 4 checks passed on NVIDIA H100."


def test_a_passed_exercise_is_ticked_in_the_list_and_said_when_it_is_picked_again(
    tab: ExercisesTab,
) -> None:
    tab.select("saxpy")
    tab.session.resultArrived.emit("exercise", _report("saxpy", True, True, True, True))
    titles = {tab.list.item(r).text() for r in range(tab.list.count())}
    assert "✓ SAXPY" in titles and "Reverse a vector" in titles and "✓ Reverse a vector" not in titles
    assert tab.progress()["saxpy"] and not tab.progress()["reverse"]
    tab.select("reverse")
    assert tab.status.text() == "Not passed yet: write the kernel, then Check."
    tab.select("saxpy")
    assert tab.status.text() == "Passed: every check."


def test_a_report_for_an_exercise_left_meanwhile_changes_nothing_shown(tab: ExercisesTab) -> None:
    tab.select("reverse")
    tab.session.resultArrived.emit("exercise", _report("saxpy", True, True, True, True))
    assert tab.results.rowCount() == 0 and tab.report() is None
    assert tab.status.text() == "Not passed yet: write the kernel, then Check."
    assert tab.checkButton.isEnabled()


def test_the_exercise_shown_is_the_one_shown_after_a_restart(qtbot: Any, session: RunSession) -> None:
    tab = _tab(qtbot, session)
    tab.select("colsum")
    assert session.store.value("exercises/current") == "colsum"
    assert _tab(qtbot, session).current().id == "colsum"


def test_a_failure_naming_lines_marks_the_first_of_them(tab: ExercisesTab) -> None:
    tab.set_source("\n".join(f"# line {n}" for n in range(1, 13)))
    report = Report(tab.current().id, "sim", [CheckResult("output", False, "stored at lines 7 and 9")])
    tab.session.resultArrived.emit("exercise", report)
    assert tab.editor._marked == 7


def test_a_check_that_could_not_run_says_why_and_marks_its_line(tab: ExercisesTab) -> None:
    tab.set_source("\n".join(f"# line {n}" for n in range(1, 13)))
    err = SyntaxError("invalid syntax")
    err.line = 5  # type: ignore[attr-defined]
    tab.bar.setVisible(True)
    tab.checkButton.setEnabled(False)
    tab.session.runFailed.emit("exercise", None, err, "")
    assert tab.status.text() == "Could not check: invalid syntax"
    assert tab.checkButton.isEnabled() and not tab.bar.isVisibleTo(tab)
    assert tab.editor._marked == 5


def test_the_file_dialogs_ask_for_python_and_html_under_their_names(
    tab: ExercisesTab, monkeypatch: Any
) -> None:
    asked = cancelled_file_dialogs(monkeypatch)
    tab.select("matadd-2d")  # its kernel is matadd: the file is matadd.py, not matadd-2d.py
    assert tab.save_file() is None
    assert tab.export_html() is None
    assert tab.open_file() is False
    assert asked == [
        ("Save your kernel", "matadd.py", "Python (*.py)"),
        ("Export exercises", "exercises.html", "HTML (*.html)"),
        ("Open your kernel", "", "Python (*.py)"),
    ]


def test_the_statement_lists_every_launch_and_check(tab: ExercisesTab) -> None:
    tab.select("matadd-2d")
    html = tab.statement.toHtml()
    # its two launches, and its four checks
    assert "grid (2, 2), block (16, 16), A=float32[20,24]" in html
    assert "grid (1, 2), block (16, 16), A=float32[17,16]" in html
    assert "Checks: Output, In bounds, Written once, Coalesced." in html


def test_each_exercise_keeps_its_own_text_even_when_left_before_the_save_pause(tab: ExercisesTab) -> None:
    tab.select("saxpy")
    tab.editor.setPlainText("# my saxpy\n")  # typed: saved after a pause that has not passed
    tab.select("reverse")
    assert tab.source() == exercise("reverse").starter
    assert tab._qs.value("exercises/saxpy/source") == "# my saxpy\n"
    assert tab._qs.value("exercises/reverse/source") is None
    tab.select("saxpy")
    assert tab.source() == "# my saxpy\n"
    tab.reset_to_starter()
    assert tab.source() == exercise("saxpy").starter
    assert tab._qs.value("exercises/saxpy/source") == exercise("saxpy").starter


def test_picking_another_exercise_clears_the_last_ones_results_and_mark(tab: ExercisesTab) -> None:
    tab.select("saxpy")
    tab.set_source("\n".join(f"# line {n}" for n in range(1, 13)))
    report = _report("saxpy", True, False)
    report.checks[1] = CheckResult("in_bounds", False, "thread 9 stores y[9] past its end at line 6")
    report.explanations[:] = ["first: why", "second: why"]
    tab.session.resultArrived.emit("exercise", report)
    assert tab.explain.text() == "first: why\nsecond: why"  # one a line, in order
    assert tab.results.item(1, 2).text() == "thread 9 stores y[9] past its end at line 6"
    assert tab.editor._marked == 6
    tab.select("reverse")
    assert tab.results.rowCount() == 0 and tab.explain.text() == "" and tab.editor._marked is None
    assert "Reverse a vector" in tab.statement.toHtml()


def test_a_check_the_session_refuses_leaves_the_tab_as_it_was(tab: ExercisesTab, monkeypatch: Any) -> None:
    tab.select("saxpy")
    monkeypatch.setattr(tab.session, "run", lambda experiment, request: False)
    assert tab.check() is False
    assert tab.status.text() == "Not passed yet: write the kernel, then Check."
    assert tab.checkButton.isEnabled() and not tab.bar.isVisibleTo(tab)


def test_an_unknown_saved_exercise_or_hint_count_falls_back_to_the_first_and_none(
    qtbot: Any, session: RunSession
) -> None:
    session.store.setValue("exercises/current", "no-such-exercise")
    session.store.setValue("exercises/vecadd-guard/hints", "lots")
    tab = _tab(qtbot, session)
    assert tab.current().id == "vecadd-guard"  # the first in the list
    assert tab.list.currentRow() == 0
    assert tab.hintButton.text() == "Next hint (0/3)" and tab.hints.text() == ""


def test_the_statement_heads_with_the_title_and_signature_and_the_list_tips_them(tab: ExercisesTab) -> None:
    from simtviz.qt.tabs.exercises.tab import _statement_html

    e = exercise("matadd-2d")
    html = _statement_html(e)
    assert html.startswith(
        f"<h3>2-D matrix add</h3><p>Write <code>{e.signature}</code> <i>({e.topic})</i></p>"
    )
    paragraphs = e.statement.split("\n\n")
    # one paragraph per blank-line-separated part, besides "Write …", "The grader launches:", "Checks: …"
    assert html.count("<p>") == len(paragraphs) + 3 and len(paragraphs) > 1
    assert "<p>The grader launches:</p><ul><li>grid (2, 2), block (16, 16)," in html
    row = [tab.list.item(r).data(0x0100) for r in range(tab.list.count())].index("matadd-2d")
    assert tab.list.item(row).toolTip() == f"{e.signature} — {e.topic}"


def test_the_results_table_heads_and_the_buttons_words(tab: ExercisesTab) -> None:
    heads = [tab.results.horizontalHeaderItem(c).text() for c in range(3)]
    assert heads == ["Check", "", "Why"]
    words = [b.text() for b in (tab.checkButton, tab.resetButton, tab.openButton, tab.saveButton)]
    assert words == ["Check", "Start over", "Open…", "Save as…"]


def test_a_failed_check_after_a_passed_one_takes_the_tick_away(tab: ExercisesTab) -> None:
    tab.select("saxpy")
    tab.session.resultArrived.emit("exercise", _report("saxpy", True, True, True, True))
    tab.session.resultArrived.emit("exercise", _report("saxpy", True, True, False, True))
    row = [tab.list.item(r).data(0x0100) for r in range(tab.list.count())].index("saxpy")
    assert tab.list.item(row).text() == "SAXPY"
    assert tab.progress()["saxpy"] is False
    assert tab.status.text() == "3 of 4 checks passed on the CUDA simulator."
