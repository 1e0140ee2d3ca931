"""One Run in the Your kernel tab parses the student's file once in the app's process: the check
before Run and ``Backend.run``'s check share the request's plan (core/trace/plan.py). Before the
plan it was parsed 4 times (2 per check). On the CPU emulator (no numba in the child)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QComboBox, QPushButton, QTextEdit

RUN_MS = 60_000


@pytest.fixture
def emu_window(qtbot: Any, tmp_path: Any) -> Iterator[Any]:
    from simtviz.gui import create_main_window

    w = create_main_window(
        backend="emu", settings=QSettings(str(tmp_path / "simtviz.ini"), QSettings.Format.IniFormat)
    )
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: w.session.backend is not None, timeout=RUN_MS)
    yield w
    w.close()


def test_a_run_parses_the_file_once_in_the_apps_process(
    qtbot: Any, emu_window: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    tab = emu_window.findChild(object, "kernelTab")
    combo = tab.findChild(QComboBox, "kernelTemplate")
    index = combo.findData("vecadd_guarded")
    combo.setCurrentIndex(index)
    combo.activated.emit(index)  # loading it reads the parameters from the text: not a Run
    source = tab.request().source
    seen: list[str] = []
    real = ast.parse

    def counting(text, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting)
    button = tab.findChild(QPushButton, "kernelRunButton")
    button.click()
    qtbot.waitUntil(lambda: button.isEnabled() and not tab.busy, timeout=RUN_MS)
    text = tab.findChild(QTextEdit, "kernelResult").toPlainText()
    assert "on the CPU emulator" in text and "Check C == A + B: passed." in text
    assert seen.count(source) == 1
