"""The main window's tabs after the index map: one row each, so a new panel is one new file and
one line here. Each factory takes the run session and the main window (for cross-tab actions
such as "show this thread in the index map") and returns the tab's widget."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:
    from simtviz.qt.main_window import MainWindow
    from simtviz.qt.session import RunSession


@dataclass(frozen=True)
class TabSpec:
    title: str
    attribute: str  # the MainWindow attribute the widget is kept under (tests and scripts use it)
    factory: str  # "module:callable", imported when the window is built
    # True: the tab fits any window and scrolls its own long parts (one scroll area per tab at
    # most); False: the window puts it in a scroll area of its own.
    scrolls: bool = False
    # The widget's methods that Ctrl+R / F5 and Esc call while the tab is shown ("": none).
    run: str = ""
    cancel: str = ""

    def build(self, session: RunSession, window: MainWindow) -> QWidget:
        module, _, name = self.factory.partition(":")
        make: Callable[[RunSession, MainWindow], QWidget] = getattr(importlib.import_module(module), name)
        return make(session, window)


TABS: tuple[TabSpec, ...] = (
    TabSpec("Vector add", "vecaddPanel", "simtviz.qt.tabs.vecadd.panel:VecaddPanel", scrolls=True, run="run"),
    TabSpec(
        "Your kernel",
        "kernelTab",
        "simtviz.qt.tabs.kernel.tab:KernelTab",
        scrolls=True,
        run="run",
        cancel="cancel",
    ),
    TabSpec("Where blocks ran", "scheduleTab", "simtviz.qt.tabs.schedule.tab:SchedulePanel", run="run"),
    TabSpec("Lesson", "lessonPanel", "simtviz.qt.tabs.lesson.tab:LessonPanel", scrolls=True, run="try_it"),
    TabSpec("Exercises", "exercisesTab", "simtviz.qt.tabs.exercises.tab:ExercisesTab", run="check"),
)
