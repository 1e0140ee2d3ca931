"""Settings under a careless user, a broken disk and a hostile link (issue 24, item 6): a bad
value falls back to its default with one visible line; a folder that cannot be written is said
in the window; a link out of the settings folder is never written through; a huge file never
makes typing wait."""

from __future__ import annotations

import os
import time
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QSpinBox, QTextEdit

from simtviz.core.trace.model import DEFAULT_BUDGET
from simtviz.gui import create_main_window


def window_with(qtbot, ini: Path):
    qs = QSettings(str(ini), QSettings.Format.IniFormat)
    w = create_main_window(backend="sim", settings=qs)
    qtbot.addWidget(w)
    return w


def test_a_huge_kernel_budget_falls_back_with_one_visible_line(qtbot, tmp_path: Path) -> None:
    ini = tmp_path / "simtviz.ini"
    ini.write_text("[kernel]\nsource=# mine\\n\nbudget=99999999999\ntime_limit=nan\n")
    w = window_with(qtbot, ini)
    tab = w.findChild(object, "kernelTab")
    assert tab is not None  # the tab is there
    assert tab.findChild(QSpinBox, "kernelBudget").value() == DEFAULT_BUDGET
    said = tab.findChild(QTextEdit, "kernelResult").toPlainText()
    assert "kernel/budget" in said and "99999999999" in said
    assert "kernel/time_limit" in said
    w.close()


def test_a_settings_folder_that_cannot_be_written_is_said_in_the_window(qtbot, tmp_path: Path) -> None:
    blocker = tmp_path / "config"
    blocker.write_text("a file where the settings folder should be")
    w = window_with(qtbot, blocker / "simtviz.ini")
    assert "cannot be saved" in w.statusBar().currentMessage()
    assert str(blocker) in w.statusBar().currentMessage()
    w.close()


def test_a_link_out_of_the_settings_folder_is_never_written_through(qtbot, tmp_path: Path) -> None:
    folder = tmp_path / "config"
    folder.mkdir()
    other = tmp_path / "elsewhere.ini"
    other.write_text("[mine]\nkeep=this\n")
    before = other.read_text()
    link = folder / "simtviz.ini"
    link.symlink_to(other)
    w = window_with(qtbot, link)
    assert "outside the settings folder" in w.statusBar().currentMessage()
    w.close()
    assert other.read_text() == before
    assert link.is_file() and not link.is_symlink()  # a fresh file of our own
    assert any(p.name.startswith("simtviz.ini.bak") and p.is_symlink() for p in folder.iterdir())


def test_a_huge_settings_file_is_set_aside_and_typing_never_waits(qtbot, tmp_path: Path) -> None:
    ini = tmp_path / "simtviz.ini"
    with open(ini, "w") as fh:
        fh.write("[junk]\n")
        for i in range(100_000):  # ≈ 10 MB of keys
            fh.write(f"k{i}={'x' * 90}\n")
    size = os.path.getsize(ini)
    assert size > 9_000_000
    w = window_with(qtbot, ini)
    assert "set aside" in w.statusBar().currentMessage() or "too large" in w.statusBar().currentMessage()
    tab = w.findChild(object, "kernelTab")
    started = time.perf_counter()
    for _ in range(5):
        tab.editor.insertPlainText("x")
        tab.save_state()
    assert time.perf_counter() - started < 0.5  # a 10 MB file rewritten 5 times would take seconds
    w.close()
