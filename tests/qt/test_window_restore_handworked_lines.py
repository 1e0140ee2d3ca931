"""Worked by hand: what a window restores from the settings file (a non-square launch, the
theme, presentation mode, the tiled map, its size wider than tall) and what it writes back on
close; the F1 and About boxes; a bad file's warning in the status bar."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox

from simtviz import __version__
from simtviz.qt.actions import shortcut_text


def _window(qtbot, qs: QSettings):
    from simtviz.gui import create_main_window

    w = create_main_window(backend="emu", settings=qs)
    qtbot.addWidget(w)
    return w


def test_a_window_restores_each_setting_and_writes_it_back(qtbot, tmp_path: Path) -> None:
    path = tmp_path / "simtviz.ini"
    path.write_text(
        "[launch]\ngrid=3,5,1\nblock=48,2,1\n[map]\ncolor=threadIdx.y\ntiled=true\n"
        "[view]\ntheme=dark\npresentation=true\n"
    )
    w = _window(qtbot, QSettings(str(path), QSettings.Format.IniFormat))
    config = w.launchPanel.config()
    assert config.grid.as_tuple() == (3, 5, 1) and config.block.as_tuple() == (48, 2, 1)
    assert w.indexMap.color_field() == "threadIdx.y"
    assert w.menuActions["tiledAction"].isChecked()
    assert w.menuActions["darkThemeAction"].isChecked() and not w.menuActions["lightThemeAction"].isChecked()
    assert w.presentationAction.isChecked() and w.session.settings.presentation is True
    # Back to the light theme, out of presentation mode, a wide window: all saved on close.
    w.menuActions["lightThemeAction"].trigger()
    w.presentationAction.trigger()
    w.resize(790, 520)
    w.close()
    qs = QSettings(str(path), QSettings.Format.IniFormat)
    assert qs.value("view/theme") == "light"
    assert str(qs.value("view/presentation")).lower() == "false"
    assert qs.value("launch/grid") == "3,5,1" and qs.value("launch/block") == "48,2,1"
    assert qs.value("map/color") == "threadIdx.y"
    w2 = _window(qtbot, qs)
    # 790 × 520 comes back as it was, not 520 × 790
    assert (w2.width(), w2.height()) == (790, 520)
    assert not w2.presentationAction.isChecked()
    w2.close()


def test_f1_shows_the_shortcut_list_and_about_the_version(qtbot, window) -> None:
    window.menuActions["shortcutsAction"].trigger()
    box = window.findChild(QMessageBox, "shortcutsDialog")
    assert box is not None and box.windowTitle() == "Keyboard shortcuts"
    assert box.text() == shortcut_text()
    window.menuActions["aboutAction"].trigger()
    about = window.findChild(QMessageBox, "aboutDialog")
    assert about is not None and about.windowTitle() == "About simtviz"
    assert about.text().startswith(f"simtviz {__version__}: ")


def test_a_bad_settings_file_is_said_in_the_status_bar(qtbot, tmp_path: Path) -> None:
    path = tmp_path / "simtviz.ini"
    path.write_text("[view]\ntheme=blue\n")
    w = _window(qtbot, QSettings(str(path), QSettings.Format.IniFormat))
    assert w.statusBar().currentMessage() == f"Warning: {w.settings_warning}"
    assert "unknown theme 'blue'" in w.statusBar().currentMessage()
    assert w.menuActions["lightThemeAction"].isChecked()
    w.close()
