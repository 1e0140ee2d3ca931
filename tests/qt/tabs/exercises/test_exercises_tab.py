"""The Exercises tab on the CUDA simulator: Check grades the editor's kernel in a child process,
each check's line says why, hints unlock one by one, progress and the student's text survive a
restart, and the teacher's HTML page has every statement and no answer."""

from __future__ import annotations

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QLabel, QListWidget, QPlainTextEdit, QPushButton, QTableWidget

from exercise_solutions import REFERENCE, WRONG
from simtviz.gui import create_main_window

CHECK_MS = 90_000


def tab_of(w):
    tab = w.findChild(object, "exercisesTab")
    assert tab is not None
    return tab


def press_check(qtbot, tab) -> None:
    button = tab.findChild(QPushButton, "exerciseCheckButton")
    button.click()
    qtbot.waitUntil(lambda: button.isEnabled() and not tab.busy, timeout=CHECK_MS)


def rows(tab) -> dict[str, tuple[str, str]]:
    table = tab.findChild(QTableWidget, "exerciseResults")
    return {
        table.item(r, 0).text(): (table.item(r, 1).text(), table.item(r, 2).text())
        for r in range(table.rowCount())
    }


def test_tile_sync_without_barrier_fails_races_then_the_reference_passes(qtbot, window) -> None:
    tab = tab_of(window)
    tab.select("tile-sync")
    editor = tab.findChild(QPlainTextEdit, "exerciseEditor")
    assert "def blur(a, out):" in editor.toPlainText()  # the starter, not an answer
    tab.set_source(WRONG["tile-sync"]["race_free"])
    press_check(qtbot, tab)
    verdict, why = rows(tab)["No races"]
    assert verdict == "FAIL" and "lines 11 and 17" in why
    assert "Missing barrier" in tab.findChild(QLabel, "exerciseExplain").text()
    assert tab.progress()["tile-sync"] is False
    tab.set_source(REFERENCE["tile-sync"])
    press_check(qtbot, tab)
    assert {v for v, _ in rows(tab).values()} == {"pass"}
    assert tab.progress()["tile-sync"] is True
    item = tab.findChild(QListWidget, "exerciseList").currentItem()
    assert item.text().startswith("✓ ")


def test_hints_unlock_one_by_one_and_are_remembered(qtbot, tmp_path) -> None:
    settings = QSettings(str(tmp_path / "e.ini"), QSettings.Format.IniFormat)
    w = create_main_window(backend="sim", settings=settings)
    qtbot.addWidget(w)
    tab = tab_of(w)
    tab.select("grid-stride")
    hints = tab.findChild(QLabel, "exerciseHints")
    assert hints.text() == ""
    tab.findChild(QPushButton, "exerciseHintButton").click()
    assert hints.text().startswith("Hint 1: ") and "Hint 2" not in hints.text()
    tab.set_source("# mine\n" + tab.current().starter)
    w.close()
    again = create_main_window(
        backend="sim", settings=QSettings(str(tmp_path / "e.ini"), QSettings.Format.IniFormat)
    )
    qtbot.addWidget(again)
    tab = tab_of(again)
    assert tab.current().id == "grid-stride"
    assert tab.findChild(QPlainTextEdit, "exerciseEditor").toPlainText().startswith("# mine\n")
    assert tab.findChild(QLabel, "exerciseHints").text().startswith("Hint 1: ")
    again.close()


def test_export_html_has_every_statement_and_no_answer(qtbot, window, tmp_path) -> None:
    from simtviz.core.exercise.catalog import exercises

    path = tab_of(window).export_html(tmp_path / "class.html")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    for e in exercises():
        assert e.title in text and e.signature in text
    assert "cuda.atomic.add(bins, data[i], 1)\n" not in text  # no reference solution in the page
    action = window.menuActions["exportExercisesAction"]
    assert action.text().startswith("Export &exercises")
