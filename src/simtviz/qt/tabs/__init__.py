"""The main window's tabs, in order: one row each, so a new tab is one new folder and one line here.

A tab depends on the ``RunSession`` only: its factory takes the session and returns the tab's
widget. What it needs from elsewhere it asks the session for (``show``, ``say``, ``show_launch``,
``show_block``; the settings in ``session.settings`` and ``session.store``), never the window.
Each tab's module is imported when the window is built, so a broken tab leaves the others running.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:
    from simtviz.qt.session import RunSession

Factory = Callable[["RunSession"], QWidget]
# Ctrl+R / F5 or Esc on the shown tab: called with the tab's widget (its type is the factory's).
Action = Callable[[Any], object]


@dataclass(frozen=True)
class Lazy:
    """A factory read lazily: ``"module:callable"`` (the module under ``simtviz.qt.tabs``), imported when the
    window builds the tab, not when this table is read: a tab whose module fails to import is
    left out, the others still start."""

    path: str

    @property
    def module(self) -> str:
        return f"{__name__}.{self.path.partition(':')[0]}"

    def __call__(self, session: RunSession) -> QWidget:
        make: Factory = getattr(importlib.import_module(self.module), self.path.partition(":")[2])
        return make(session)


@dataclass(frozen=True)
class TabSpec:
    title: str
    attribute: str  # the MainWindow attribute the widget is kept under (tests and scripts use it)
    factory: Factory  # builds the tab's widget from the session
    # True: the tab fits any window and scrolls its own long parts (one scroll area per tab at
    # most); False: the window puts it in a scroll area of its own.
    scrolls: bool = False
    # What Ctrl+R / F5 and Esc do while the tab is shown (None: nothing of the tab's own).
    run: Action | None = None
    cancel: Action | None = None


# One row per tab, in the window's order; the index map is first (the window opens on it).
# fmt: off
TABS: tuple[TabSpec, ...] = (
    TabSpec("Index map", "indexMapTab", Lazy("index_map.tab:IndexMapTab"), scrolls=True, run=lambda t: t.run()),  # noqa: E501
    TabSpec("Vector add", "vecaddPanel", Lazy("vecadd.panel:VecaddPanel"), scrolls=True, run=lambda t: t.run()),  # noqa: E501
    TabSpec("Your kernel", "kernelTab", Lazy("kernel.tab:KernelTab"), scrolls=True, run=lambda t: t.run(), cancel=lambda t: t.cancel()),  # noqa: E501
    TabSpec("Where blocks ran", "scheduleTab", Lazy("schedule.tab:SchedulePanel"), run=lambda t: t.run()),
    TabSpec("Lesson", "lessonPanel", Lazy("lesson.tab:LessonPanel"), scrolls=True, run=lambda t: t.try_it()),
    TabSpec("Exercises", "exercisesTab", Lazy("exercises.tab:ExercisesTab"), run=lambda t: t.check()),
)
# fmt: on
