"""After a Check, by hand: the status counts the checks passed, the table says pass / FAIL per
check, and the editor marks the line of the FIRST failed check (the one to fix first)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_backends import FakeHostBackend
from PySide6.QtCore import QSettings

from simtviz.core.exercise.model import CheckResult, Report
from simtviz.qt.session import RunSession
from simtviz.qt.tabs.exercises.tab import ExercisesTab


@pytest.fixture
def tab(qtbot, tmp_path) -> Iterator[ExercisesTab]:
    session = RunSession(lambda: FakeHostBackend())
    session.store = QSettings(str(tmp_path / "simtviz.ini"), QSettings.Format.IniFormat)
    t = ExercisesTab(session)
    qtbot.addWidget(t)
    yield t
    session.close()


def test_the_first_failed_checks_line_is_marked(tab: ExercisesTab) -> None:
    tab.set_source("\n".join(f"# line {n}" for n in range(1, 13)))  # 12 lines to mark
    report = Report(
        tab.current().id,
        "sim",
        [
            CheckResult("output", True, "every output matches"),
            CheckResult("in_bounds", False, "thread 40 stores C[40] past its end at line 4"),
            CheckResult("written_once", False, "C[3] is stored twice, at line 9"),
        ],
    )
    tab.session.resultArrived.emit("exercise", report)
    # 1 of the 3 checks passed; the first failure (in bounds) names line 4, the second line 9.
    assert tab.status.text() == "1 of 3 checks passed on the CUDA simulator."
    assert [tab.results.item(r, 1).text() for r in range(3)] == ["pass", "FAIL", "FAIL"]
    assert tab.editor._marked == 4
    (selection,) = tab.editor.extraSelections()
    assert selection.cursor.blockNumber() == 3  # line 4, counted from 0
