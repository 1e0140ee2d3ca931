"""Every menu action of the main window in one table: the menus and the F1 shortcut list come from it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMainWindow

# Given the main window, the callable an action calls: a method of the window (``lambda w:
# w.open_record``) or of one of its tabs (``lambda w: w.exercisesTab.export_html``). A tab that
# failed to start has no attribute there: its actions are left out.
Slot = Callable[[Any], Callable[..., object]]


@dataclass(frozen=True)
class ActionSpec:
    """One action: ``slot`` gives the callable it calls (with ``args``); checkable actions
    without a ``group`` pass their checked state instead."""

    name: str  # objectName
    menu: str  # "" with slot None: a key a panel handles itself, listed in F1 only
    text: str
    slot: Slot | None
    shortcuts: tuple[str, ...] = ()
    help: str = ""  # its line in the F1 list; "" leaves it out
    args: tuple[Any, ...] = ()
    checkable: bool = False
    group: str = ""  # checkable actions of one group exclude each other
    separator_before: bool = False


ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec(
        "openAction",
        "&File",
        "&Open record…",
        lambda w: w.open_record,
        ("Ctrl+O",),
        "Open a saved record (.npz)",
    ),
    ActionSpec(
        "runAction",
        "&File",
        "&Run (the shown tab)",
        lambda w: w.run_shown_tab,
        ("Ctrl+R", "F5"),
        "Run what the shown tab runs: Index map Run, Your kernel Run traced, Vector add Run, "
        "Where blocks ran Run on the GPU, Lesson Try it",
        separator_before=True,
    ),
    ActionSpec(
        "cancelAction",
        "&File",
        "&Cancel run",
        lambda w: w.cancel_shown_tab,
        ("Esc",),
        "Cancel the run or the trace",
    ),
    ActionSpec(
        "exportPngAction",
        "&File",
        "Export map as &PNG…",
        lambda w: w.export_map_png,
        ("Ctrl+E",),
        "Export the map as PNG",
        separator_before=True,
    ),
    ActionSpec(
        "exportNpzAction",
        "&File",
        "Export records as &NPZ…",
        lambda w: w.export_records,
        ("Ctrl+Shift+E",),
        "Export the records as NPZ",
        args=(None, "npz"),
    ),
    ActionSpec(
        "exportCsvAction", "&File", "Export records as &CSV…", lambda w: w.export_records, args=(None, "csv")
    ),
    ActionSpec(
        "exportExercisesAction",
        "&File",
        "Export &exercises as HTML…",
        lambda w: w.exercisesTab.export_html,
        help="Export the exercises with their statements as one HTML page",
    ),
    ActionSpec("quitAction", "&File", "&Quit", lambda w: w.close, ("Ctrl+Q",), "Quit", separator_before=True),
    ActionSpec(
        "lightThemeAction",
        "&View",
        "Light theme",
        lambda w: w.set_theme,
        args=("light",),
        checkable=True,
        group="theme",
    ),
    ActionSpec(
        "darkThemeAction",
        "&View",
        "Dark theme",
        lambda w: w.set_theme,
        args=("dark",),
        checkable=True,
        group="theme",
    ),
    ActionSpec(
        "presentationAction",
        "&View",
        "&Presentation mode",
        lambda w: w.set_presentation,
        ("Ctrl+Shift+P",),
        "Presentation mode",
        checkable=True,
        separator_before=True,
    ),
    ActionSpec(
        "fullScreenAction", "&View", "&Full screen", lambda w: w.toggle_full_screen, ("F11",), "Full screen"
    ),
    ActionSpec(
        "fitMapAction",
        "&View",
        "Fit &map",
        lambda w: w.fit_map,
        ("Ctrl+0",),
        "Fit the map",
        separator_before=True,
    ),
    ActionSpec(
        "tiledAction",
        "&View",
        "All &z-planes (tiled)",
        lambda w: w.set_tiled,
        ("Ctrl+T",),
        "All z-planes (3-D)",
        checkable=True,
    ),
    ActionSpec(
        "shortcutsAction",
        "&Help",
        "&Keyboard shortcuts",
        lambda w: w.show_shortcuts,
        ("F1",),
        "Keyboard shortcuts",
    ),
    ActionSpec("aboutAction", "&Help", "&About simtviz", lambda w: w.show_about),
    # Keys that belong to one panel (no menu entry): listed in F1 with the rest.
    ActionSpec(
        "lessonPageKeys",
        "",
        "",
        None,
        ("Page Down", "Page Up"),
        "Lesson: the rest of the step a page at a time, then the next (previous) step; a presenter "
        "remote's buttons. In an editor they page the editor.",
    ),
)


def shortcut_text(actions: tuple[ActionSpec, ...] = ACTIONS) -> str:
    """The F1 list: one line per action with a shortcut, e.g. ``Ctrl+R / F5  Run``."""
    return "\n".join(f"{' / '.join(a.shortcuts)}  {a.help}" for a in actions if a.shortcuts and a.help)


def _resolve(window: QMainWindow, slot: Slot) -> Callable[..., object] | None:
    """The callable ``slot`` gives for ``window``; None when its tab failed to start."""
    try:
        return slot(window)
    except AttributeError:
        return None


def build_actions(window: QMainWindow, actions: tuple[ActionSpec, ...] = ACTIONS) -> dict[str, QAction]:
    """Create the menus and actions on ``window``; returns the actions by objectName.

    Each action is also added to the window itself, so its shortcut works in full screen, where
    the menu bar may be hidden.
    """
    menus: dict[str, Any] = {}
    groups: dict[str, QActionGroup] = {}
    made: dict[str, QAction] = {}
    for spec in actions:
        if spec.slot is None:  # a panel's own keys: in the F1 list only
            continue
        if spec.menu not in menus:
            menus[spec.menu] = window.menuBar().addMenu(spec.menu)
        menu = menus[spec.menu]
        if spec.separator_before:
            menu.addSeparator()
        action = QAction(spec.text, window, objectName=spec.name, checkable=spec.checkable)
        if spec.shortcuts:
            action.setShortcuts([QKeySequence(s) for s in spec.shortcuts])
        slot = _resolve(window, spec.slot)
        if slot is None:  # a tab that failed to start: its actions are left out
            continue
        if spec.checkable and not spec.group:
            action.toggled.connect(slot)
        else:
            action.triggered.connect(lambda _checked=False, slot=slot, args=spec.args: slot(*args))
        if spec.group:
            groups.setdefault(spec.group, QActionGroup(window)).addAction(action)
        menu.addAction(action)
        window.addAction(action)
        made[spec.name] = action
    return made
