"""Every action of the one action table is in its menu, with its shortcut, and in the F1 list."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMessageBox

from simtviz.qt.actions import ACTIONS, ActionSpec, shortcut_text


@pytest.mark.parametrize("spec", ACTIONS, ids=[a.name for a in ACTIONS])
def test_action_is_in_its_menu_with_its_shortcuts(window, spec: ActionSpec) -> None:
    if spec.slot is None:  # a panel's own keys: in the F1 list only
        assert f"{' / '.join(spec.shortcuts)}  {spec.help}" in shortcut_text().splitlines()
        return
    action = window.findChild(QAction, spec.name)
    assert action is not None
    assert [s.toString() for s in action.shortcuts()] == [QKeySequence(s).toString() for s in spec.shortcuts]
    menus = {m.title(): m for m in (a.menu() for a in window.menuBar().actions()) if m is not None}
    assert action in menus[spec.menu].actions()
    assert action in window.actions()  # shortcuts work in full screen, where the menu bar may hide
    if spec.shortcuts and spec.help:
        assert f"{' / '.join(spec.shortcuts)}  {spec.help}" in shortcut_text().splitlines()


def test_f1_lists_the_shortcuts_of_the_table(qtbot, window) -> None:
    window.findChild(QAction, "shortcutsAction").trigger()
    box = window.findChild(QMessageBox, "shortcutsDialog")
    assert box is not None and box.text() == shortcut_text()
    lines = box.text().splitlines()
    for line in ("Esc  Cancel the run or the trace", "Ctrl+E  Export the map as PNG", "Ctrl+Q  Quit"):
        assert line in lines
    box.done(QMessageBox.StandardButton.Ok)


def test_theme_actions_exclude_each_other_and_tiled_follows_the_map(qtbot, window) -> None:
    dark, light = window.findChild(QAction, "darkThemeAction"), window.findChild(QAction, "lightThemeAction")
    dark.trigger()
    assert window.settings.theme == "dark" and dark.isChecked() and not light.isChecked()
    window.indexMap.tiledCheck.setChecked(True)
    assert window.findChild(QAction, "tiledAction").isChecked()
