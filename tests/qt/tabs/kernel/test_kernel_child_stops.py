"""The Your kernel tab against a file that starts a background process and never finishes its
top-level code (issue 24, items 3 and 5): the time limit frees the tab on time, Cancel works,
closing the window mid-run ends it; each time the background process and the temporary folder
are gone."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import pytest
from PySide6.QtWidgets import QPlainTextEdit, QPushButton, QSpinBox, QTextEdit

from simtviz.gui import create_main_window

SLEEPER = """
import os, subprocess, time
from numba import cuda


def _start(p=subprocess.Popen(["sleep", "300"])):
    return p


def _mark(w=open(os.environ["SIMTVIZ_TEST_MARK"], "w").write(str(_start.__defaults__[0].pid))):
    return w


def _wait(t=time.sleep(300)):
    return t


@cuda.jit
def k(A):
    i = cuda.grid(1)
    if i < A.shape[0]:
        A[i] = 1.0
"""


def gone(pid: int) -> bool:
    try:
        return "\nState:\tZ" in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True


@pytest.fixture
def mark(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", None)
    monkeypatch.setenv("SIMTVIZ_TEST_MARK", str(tmp_path / "mark"))
    return tmp_path / "mark"


def start(qtbot, mark: Path, limit: float):
    w = create_main_window(backend="sim")
    qtbot.addWidget(w)
    tab = w.findChild(object, "kernelTab")
    tab.findChild(QPlainTextEdit, "kernelEditor").setPlainText(SLEEPER)
    tab.set_args({"A": "float32[32]"})
    tab.findChild(QSpinBox, "kernelBlockX").setValue(32)
    tab.timeLimit.setValue(limit)
    tab.findChild(QPushButton, "kernelRunButton").click()
    qtbot.waitUntil(mark.exists, timeout=60_000)
    return w, tab


def folders(mark: Path) -> list[Path]:
    return list((mark.parent / "tmp").glob("simtviz-trace-*"))


@pytest.mark.prewarm  # as in the app: the child waits, started, so 2 s are the kernel's, not Python's start
def test_the_time_limit_frees_the_tab_and_ends_the_background_process(qtbot, mark: Path) -> None:
    w, tab = start(qtbot, mark, 2.0)
    started = time.monotonic()
    qtbot.waitUntil(lambda: not tab.busy, timeout=10_000)
    assert time.monotonic() - started < 4  # the 2 s limit, counted from the request
    assert "top-level code" in tab.findChild(QTextEdit, "kernelResult").toPlainText()
    pid = int(mark.read_text())
    qtbot.waitUntil(lambda: gone(pid), timeout=3000)
    w.close()
    qtbot.waitUntil(lambda: folders(mark) == [], timeout=5000)


def test_cancel_and_window_close_end_the_background_process(qtbot, mark: Path) -> None:
    w, tab = start(qtbot, mark, 60.0)
    tab.findChild(QPushButton, "kernelCancelButton").click()
    qtbot.waitUntil(lambda: not tab.busy, timeout=2000)
    assert "Cancelled" in tab.findChild(QTextEdit, "kernelResult").toPlainText()
    first = int(mark.read_text())
    qtbot.waitUntil(lambda: gone(first), timeout=3000)
    mark.unlink()
    tab.findChild(QPushButton, "kernelRunButton").click()
    qtbot.waitUntil(mark.exists, timeout=60_000)
    second = int(mark.read_text())
    w.close()  # mid-run
    qtbot.waitUntil(lambda: gone(second), timeout=5000)
    qtbot.waitUntil(lambda: folders(mark) == [], timeout=5000)
