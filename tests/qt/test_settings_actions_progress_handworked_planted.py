"""Worked by hand: the tiled-map choice survives a restart on its own (not presentation mode's),
File → Export records as CSV… asks for CSV, and the progress panel's "left" is what is left."""

from __future__ import annotations

import types

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMainWindow

from simtviz.qt.actions import build_actions
from simtviz.qt.settings import AppSettings, load_settings, save_settings
from simtviz.qt.widgets.progress import ProgressPanel


def test_tiled_and_presentation_are_saved_and_restored_apart(tmp_path) -> None:
    for tiled, presentation in ((True, False), (False, True)):
        path = tmp_path / f"tiled-{tiled}.ini"
        qs = QSettings(str(path), QSettings.Format.IniFormat)
        save_settings(qs, AppSettings(tiled=tiled, presentation=presentation))
        # The file says it in its own keys: [map] tiled=…, [view] presentation=….
        text = path.read_text()
        assert f"tiled={str(tiled).lower()}" in text
        assert f"presentation={str(presentation).lower()}" in text
        back, warning = load_settings(QSettings(str(path), QSettings.Format.IniFormat))
        assert warning is None
        assert (back.tiled, back.presentation) == (tiled, presentation)


class _Window(QMainWindow):
    """Only what the File menu's export actions call."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[object, ...]] = []

    def export_records(self, path: object = None, fmt: object = None) -> None:
        self.calls.append((path, fmt))


def test_the_export_menu_asks_for_npz_and_csv_by_their_names(qtbot) -> None:
    w = _Window()
    qtbot.addWidget(w)
    actions = build_actions(w)
    actions["exportCsvAction"].trigger()
    actions["exportNpzAction"].trigger()
    # no path (a dialog asks), then the format the menu entry names
    assert w.calls == [(None, "csv"), (None, "npz")]


def test_time_left_is_the_rest_of_the_run_not_all_of_it(qtbot, monkeypatch) -> None:
    clock = [100.0]
    monkeypatch.setattr("simtviz.qt.widgets.progress.time", types.SimpleNamespace(monotonic=lambda: clock[0]))
    panel = ProgressPanel()
    qtbot.addWidget(panel)
    panel.start("Running 1,024 threads", 50.0)
    assert panel.label.text() == "Running 1,024 threads — estimated 50 s"
    # 10 s in and a quarter done: the whole run takes 10 / 0.25 = 40 s, so 40 − 10 = 30 s are left.
    clock[0] = 110.0
    panel.set_fraction(0.25)
    assert panel.label.text() == "Running 1,024 threads — about 30 s left"
    # 90 s in and 90 % done: 90 / 0.9 = 100 s in all, 10 s left.
    clock[0] = 190.0
    panel.set_fraction(0.9)
    assert panel.label.text() == "Running 1,024 threads — about 10 s left"
