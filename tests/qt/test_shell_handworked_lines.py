"""Worked by hand: the shell around the tabs. What the settings file holds and gives back (non-square
launches, values at their limits), the menus' shortcuts and what each action asks for, the words
and numbers of the dialogs, where the first window goes on a screen, and the status bar's lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QByteArray, QRect, QSettings, QSize
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMessageBox, QWidget

from simtviz.core.errors import Cancelled, LaunchRejected, LaunchTooLarge, OutOfDeviceMemory, RecordFileError
from simtviz.core.launch import Dim3, LaunchConfig
from simtviz.core.limits import LimitViolation
from simtviz.qt import dialogs
from simtviz.qt.actions import ACTIONS, build_actions, shortcut_text
from simtviz.qt.main_window import fit_to_screen
from simtviz.qt.messages import is_noise
from simtviz.qt.settings import (
    AppSettings,
    _backup_name,
    _bool,
    load_settings,
    read_number,
    save_settings,
)


# --- settings ---------------------------------------------------------------------------------------
def _qs(path: Path) -> QSettings:
    return QSettings(str(path), QSettings.Format.IniFormat)


def test_each_setting_is_saved_under_its_own_key(tmp_path: Path) -> None:
    path = tmp_path / "simtviz.ini"
    s = AppSettings(
        grid=Dim3(3, 5, 1),
        block=Dim3(48, 2, 1),
        color="threadIdx.y",
        theme="dark",
        presentation=True,
        tiled=False,
        export_dir="/data/out",
        budget_threads=65536,
    )
    save_settings(_qs(path), s)
    qs = _qs(path)
    assert qs.value("launch/grid") == "3,5,1"
    assert qs.value("launch/block") == "48,2,1"
    assert qs.value("map/color") == "threadIdx.y"
    assert qs.value("view/theme") == "dark"
    assert qs.value("files/export_dir") == "/data/out"
    assert str(qs.value("record/budget_threads")) == "65536"
    assert str(qs.value("version")) == "1"
    assert qs.value("window/geometry") is None  # none to save: none written
    back, warning = load_settings(_qs(path))
    assert warning is None
    assert back.grid == Dim3(3, 5, 1) and back.block == Dim3(48, 2, 1)
    assert (back.color, back.theme, back.presentation, back.tiled) == ("threadIdx.y", "dark", True, False)
    assert (back.export_dir, back.budget_threads) == ("/data/out", 65536)
    assert back.config == LaunchConfig(Dim3(3, 5, 1), Dim3(48, 2, 1))


def test_a_written_file_is_read_key_by_key(tmp_path: Path) -> None:
    path = tmp_path / "simtviz.ini"
    path.write_text(
        "[launch]\ngrid=2,7,1\nblock=16,3,1\n[map]\ncolor=blockIdx.y\ntiled=yes\n"
        "[view]\ntheme=light\npresentation=0\n[record]\nbudget_threads=1\n"
    )
    s, warning = load_settings(_qs(path))
    assert warning is None
    assert s.grid.as_tuple() == (2, 7, 1) and s.block.as_tuple() == (16, 3, 1)
    assert s.color == "blockIdx.y" and s.tiled is True and s.presentation is False
    assert s.budget_threads == 1  # one thread: the least, still a budget


def test_the_defaults_are_a_4_by_3_grid_of_8_by_4_blocks(tmp_path: Path) -> None:
    s, warning = load_settings(_qs(tmp_path / "none.ini"))
    assert warning is None
    assert s.grid.as_tuple() == (4, 3, 1) and s.block.as_tuple() == (8, 4, 1)
    assert (s.theme, s.presentation, s.tiled, s.export_dir) == ("light", False, False, "")
    assert s.budget_threads == 4_194_304  # 2^22
    assert s.geometry is None


def test_a_budget_of_zero_threads_is_a_bad_value_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "simtviz.ini"
    path.write_text("[record]\nbudget_threads=0\n")
    s, warning = load_settings(_qs(path))
    assert s.budget_threads == 4_194_304
    assert warning == (
        f"the settings file {path} holds a bad value (a recording budget of 0 threads); "
        f"using the defaults; it is kept as {path}.bak"
    )


def test_an_unknown_theme_is_named(tmp_path: Path) -> None:
    path = tmp_path / "simtviz.ini"
    path.write_text("[view]\ntheme=blue\n")
    s, warning = load_settings(_qs(path))
    assert s.theme == "light"
    assert warning is not None and "(unknown theme 'blue')" in warning


@pytest.mark.parametrize(
    ("text", "value"),
    [("true", True), ("1", True), ("YES", True), ("false", False), ("0", False), ("no", False)],
)
def test_true_and_false_in_their_spellings(text: str, value: bool) -> None:
    assert _bool(text) is value


def test_a_word_that_is_not_true_or_false_is_refused() -> None:
    with pytest.raises(ValueError, match="'maybe' is not true or false"):
        _bool("maybe")


def test_a_number_out_of_range_names_the_key_the_range_and_the_default(tmp_path: Path) -> None:
    qs = _qs(tmp_path / "n.ini")
    qs.setValue("kernel/time_limit", "5000000")
    qs.setValue("kernel/low", "2")
    qs.setValue("kernel/high", "10")
    problems: list[str] = []
    assert read_number(qs, "kernel/time_limit", 60, 1, 3600, problems) == 60
    assert problems == ["kernel/time_limit=5000000 is not a number from 1 to 3,600; using 60"]
    # exactly at the limits: kept
    assert read_number(qs, "kernel/low", 60, 2, 10, problems) == 2
    assert read_number(qs, "kernel/high", 60, 2, 10, problems) == 10
    assert len(problems) == 1
    assert read_number(qs, "kernel/missing", 7, 1, 10, problems) == 7 and len(problems) == 1
    qs.setValue("kernel/long", "x" * 30)
    read_number(qs, "kernel/long", 1.5, 0.5, 2.5, problems, whole=False)
    # 21 characters and an ellipsis; 0.5 and 2.5 as they are
    assert problems[-1] == f"kernel/long={'x' * 21}… is not a number from 0.5 to 2.5; using 1.5"


def test_backups_are_numbered_after_the_first(tmp_path: Path) -> None:
    path = tmp_path / "simtviz.ini"
    assert _backup_name(path) == tmp_path / "simtviz.ini.bak"
    (tmp_path / "simtviz.ini.bak").write_text("")
    assert _backup_name(path) == tmp_path / "simtviz.ini.bak.1"
    (tmp_path / "simtviz.ini.bak.1").write_text("")
    assert _backup_name(path) == tmp_path / "simtviz.ini.bak.2"


def test_a_file_of_exactly_the_limit_is_read_and_one_byte_more_is_not(tmp_path: Path) -> None:
    path = tmp_path / "simtviz.ini"
    head = b"[view]\ntheme=dark\n;"
    path.write_bytes(head + b"x" * (4_000_000 - len(head) - 1) + b"\n")
    assert path.stat().st_size == 4_000_000
    s, warning = load_settings(_qs(path))
    assert warning is None and s.theme == "dark"
    path.write_bytes(head + b"x" * (4_000_000 - len(head)) + b"\n")
    s, warning = load_settings(_qs(path))
    assert s.theme == "light"
    assert warning == (
        f"the settings file {path} is 4.0 MB, too large for settings (more than 4.0 MB); using the "
        f"defaults; it is set aside; it is kept as {path}.bak"
    )


# --- actions ----------------------------------------------------------------------------------------
EXPECTED_KEYS = {
    "openAction": ("&File", ("Ctrl+O",)),
    "runAction": ("&File", ("Ctrl+R", "F5")),
    "cancelAction": ("&File", ("Esc",)),
    "exportPngAction": ("&File", ("Ctrl+E",)),
    "exportNpzAction": ("&File", ("Ctrl+Shift+E",)),
    "exportCsvAction": ("&File", ()),
    "exportExercisesAction": ("&File", ()),
    "quitAction": ("&File", ("Ctrl+Q",)),
    "lightThemeAction": ("&View", ()),
    "darkThemeAction": ("&View", ()),
    "presentationAction": ("&View", ("Ctrl+Shift+P",)),
    "fullScreenAction": ("&View", ("F11",)),
    "fitMapAction": ("&View", ("Ctrl+0",)),
    "tiledAction": ("&View", ("Ctrl+T",)),
    "shortcutsAction": ("&Help", ("F1",)),
    "aboutAction": ("&Help", ()),
    "lessonPageKeys": ("", ("Page Down", "Page Up")),
}


def test_each_action_has_its_menu_and_keys() -> None:
    assert {a.name: (a.menu, a.shortcuts) for a in ACTIONS} == EXPECTED_KEYS


def test_the_f1_list_has_a_line_per_key_in_the_menus_order() -> None:
    lines = shortcut_text().split("\n")
    assert [line.split("  ", 1)[0] for line in lines] == [
        "Ctrl+O",
        "Ctrl+R / F5",
        "Esc",
        "Ctrl+E",
        "Ctrl+Shift+E",
        "Ctrl+Q",
        "Ctrl+Shift+P",
        "F11",
        "Ctrl+0",
        "Ctrl+T",
        "F1",
        "Page Down / Page Up",
    ]
    assert lines[0] == "Ctrl+O  Open a saved record (.npz)"
    assert lines[3] == "Ctrl+E  Export the map as PNG"
    assert lines[4] == "Ctrl+Shift+E  Export the records as NPZ"
    assert lines[9] == "Ctrl+T  All z-planes (3-D)"


class _Window(QMainWindow):
    """What the menus call, recorded."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[object, ...]] = []

    def __getattr__(self, name: str):
        if name.startswith("_") or name in ("exercisesTab",):
            raise AttributeError(name)
        return lambda *args: self.calls.append((name, *args))


def test_each_action_calls_its_slot_with_its_arguments(qtbot) -> None:
    w = _Window()
    qtbot.addWidget(w)
    actions = build_actions(w)
    assert "exportExercisesAction" not in actions  # its tab did not start: left out
    assert "lessonPageKeys" not in actions  # a panel's own keys: no action
    for name in ("openAction", "runAction", "cancelAction", "exportPngAction", "fitMapAction"):
        actions[name].trigger()
    actions["darkThemeAction"].trigger()
    actions["lightThemeAction"].trigger()
    assert w.calls == [
        ("open_record",),
        ("run_shown_tab",),
        ("cancel_shown_tab",),
        ("export_map_png",),
        ("fit_map",),
        ("set_theme", "dark"),
        ("set_theme", "light"),
    ]
    w.calls.clear()
    # Checkable without a group: the checked state is passed, on and off.
    actions["presentationAction"].trigger()
    actions["presentationAction"].trigger()
    actions["tiledAction"].trigger()
    assert w.calls == [("set_presentation", True), ("set_presentation", False), ("set_tiled", True)]
    assert actions["darkThemeAction"].isCheckable() and not actions["runAction"].isCheckable()
    assert actions["lightThemeAction"].actionGroup() is actions["darkThemeAction"].actionGroup() is not None
    assert actions["presentationAction"].actionGroup() is None
    assert actions["fullScreenAction"] in w.actions()  # works with the menu bar hidden
    assert [k.toString() for k in actions["runAction"].shortcuts()] == ["Ctrl+R", "F5"]


# --- dialogs ----------------------------------------------------------------------------------------
def _rejected(messages: list[str]) -> LaunchRejected:
    config = LaunchConfig.of((0, 1, 1), (2048, 1, 1))
    violations = [LimitViolation("x", 0, 0, m) for m in messages]
    return LaunchRejected(
        "CUDA_ERROR_INVALID_VALUE <&>",
        config,
        violations,
        "CudaAPIError",
        launch_line="kernel[(0, 1, 1), (2048, 1, 1)]",
        source="the driver",
    )


def test_the_launch_error_heads_with_the_block_then_lists_the_rest(qtbot) -> None:
    error = _rejected(["grid x is 0, at least 1", "block has 2,048 threads, at most 1,024"])
    box = dialogs.launch_error_dialog(None, error, "the previous map is still shown")
    qtbot.addWidget(box)
    assert box.objectName() == "launchErrorDialog" and box.windowTitle() == "Kernel launch failed"
    assert box.text() == "This launch cannot run: block has 2,048 threads, at most 1,024."
    assert box.informativeText() == (
        "<b>grid x is 0, at least 1</b><br>the driver said, word for word:<br>"
        "<code>CUDA_ERROR_INVALID_VALUE &lt;&amp;&gt;</code><br><br>Raised by the driver as "
        "<code>CudaAPIError</code>. Nothing ran; the previous map is still shown."
    )
    assert box.detailedText().startswith("Launch: kernel[(0, 1, 1), (2048, 1, 1)]\n\n")
    none = dialogs.launch_error_dialog(None, _rejected([]))
    qtbot.addWidget(none)
    assert none.text() == "This launch cannot run: the driver refused it."
    assert none.informativeText().endswith("Nothing ran.")


def test_run_it_anyway_says_how_long_and_defaults_to_no(qtbot) -> None:
    ran: list[bool] = []
    exc = LaunchTooLarge(
        50_000_000, 90.0, 1_000_000, "the CUDA simulator", detail="Fewer threads: smaller N."
    )
    box = dialogs.ask_run_anyway(None, exc, lambda: ran.append(True))
    qtbot.addWidget(box)
    assert box.objectName() == "launchTooLargeDialog" and box.windowTitle() == "A long run"
    assert box.text() == str(exc)
    assert box.informativeText() == (
        "Fewer threads: smaller N.\n\n"
        "Run it anyway? It should take about 90 s; Cancel (Esc) stops it at any time."
    )
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.No)
    box.button(QMessageBox.StandardButton.No).click()
    assert ran == []
    box2 = dialogs.ask_run_anyway(None, LaunchTooLarge(10, None, 1, "here"), lambda: ran.append(True))
    qtbot.addWidget(box2)
    assert box2.informativeText() == (
        "Run it anyway? It should take about a long time; Cancel (Esc) stops it at any time."
    )
    box2.button(QMessageBox.StandardButton.Yes).click()
    assert ran == [True]


@pytest.mark.parametrize(("budget", "smaller"), [(4_194_304, "1,048,576"), (7, "1"), (3, "1"), (8, "2")])
def test_out_of_memory_suggests_a_quarter_of_the_budget(qtbot, budget: int, smaller: str) -> None:
    box = dialogs.out_of_memory(None, "The recording", "details", budget)
    qtbot.addWidget(box)
    assert box.objectName() == "outOfMemoryDialog" and box.windowTitle() == "Not enough GPU memory"
    assert f"({budget:,} threads at most)" in box.informativeText()
    assert f"e.g. to {smaller} threads, and press Run again." in box.informativeText()


def test_a_failed_run_says_whether_the_map_stays(qtbot) -> None:
    shown = dialogs.run_failed(None, ValueError("first line\nsecond"), "TRACEBACK", True)
    qtbot.addWidget(shown)
    assert shown.text() == "first line"
    assert shown.informativeText().startswith("The previous map is still shown;")
    assert shown.detailedText() == "first line\nsecond\n\nTRACEBACK"  # unexpected: with its traceback
    gone = dialogs.run_failed(None, RecordFileError("ours"), "TRACEBACK", False)
    qtbot.addWidget(gone)
    assert gone.informativeText() == "The app works on: try the launch again or another one."
    assert gone.detailedText() == "ours"


def test_a_failed_index_map_run_gives_its_status_line(qtbot) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    run = dialogs.RecordFailure(budget=4096, map_shown=True)
    error = _rejected(["block has 2,048 threads, at most 1,024"])
    assert dialogs.report_record_error(parent, error, "", run) == f"Launch rejected: {error.explanation}"
    assert parent.findChild(QMessageBox, "launchErrorDialog") is not None
    assert dialogs.report_record_error(parent, Cancelled(), "", run) == (
        "Run cancelled; the previous map is still shown."
    )
    oom = OutOfDeviceMemory(10**10, 10**9, "the recording")
    assert dialogs.report_record_error(parent, oom, "", run) == (
        "Not enough GPU memory for the recording; the previous map stays."
    )
    box = parent.findChild(QMessageBox, "outOfMemoryDialog")
    assert box is not None and "e.g. to 1,024 threads" in box.informativeText()  # 4,096 / 4
    assert dialogs.report_record_error(parent, LaunchTooLarge(10, 5.0, 1, "here"), "", run) is None


def test_open_failed_names_the_file_not_its_folder(qtbot, tmp_path: Path) -> None:
    path = tmp_path / "run.npz"
    box = dialogs.open_failed(None, path, RecordFileError(f"{path} has no key 'ids'"))
    qtbot.addWidget(box)
    assert box.text() == "run.npz has no key 'ids'."
    assert box.objectName() == "openErrorDialog" and box.windowTitle() == "Could not open the record"
    other = dialogs.open_failed(None, path, PermissionError("denied"))
    qtbot.addWidget(other)
    assert other.text() == "run.npz could not be opened: denied."


def test_a_saved_name_gets_the_suffix_only_when_it_has_none(monkeypatch) -> None:
    asked: list[tuple[object, ...]] = []
    answers = iter(["/tmp/map", "/tmp/map.jpeg", ""])

    def ask(parent, title, start, filters):
        asked.append((title, start, filters))
        return next(answers), filters

    monkeypatch.setattr(QFileDialog, "getSaveFileName", ask)
    assert dialogs.ask_save_path(None, "Save", Path("/home/u/x.png"), "png", "PNG (*.png)") == Path(
        "/tmp/map.png"
    )
    assert dialogs.ask_save_path(None, "Save", Path("/home/u/x.png"), "png", "PNG (*.png)") == Path(
        "/tmp/map.jpeg"
    )
    assert dialogs.ask_save_path(None, "Save", Path("/home/u/x.png"), "png", "PNG (*.png)") is None
    assert asked[0] == ("Save", "/home/u/x.png", "PNG (*.png)")


def test_the_backend_box_offers_the_simulator_once(qtbot) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    used: list[bool] = []
    box = dialogs.backend_unavailable(parent, RuntimeError("no driver"), "TB", lambda: used.append(True))
    assert box is not None and box.text() == "no driver" and box.detailedText() == "TB"
    button = parent.findChild(QWidget, "useSimulatorButton")
    assert button is not None and button.text() == "Use the CUDA simulator"
    assert dialogs.backend_unavailable(parent, RuntimeError("again"), "", lambda: None) is None
    button.click()
    assert used == [True]


# --- the window's place, the status bar --------------------------------------------------------------
def test_the_first_window_is_centred_and_shrunk_to_a_wide_screen() -> None:
    # 1920 × 1080 at (0, 0): 1500 × 900 centred at ((1920 − 1500) / 2, (1080 − 900) / 2) = (210, 90).
    assert fit_to_screen(QRect(0, 0, 1920, 1080)) == QRect(210, 90, 1500, 900)
    # A 1280 × 720 projector right of a 1920 monitor, under a 30 px panel: the whole of it.
    assert fit_to_screen(QRect(1920, 30, 1280, 720)) == QRect(1920, 30, 1280, 720)
    # Wide but low (2560 × 800 at (0, 40)): the width fits, the height is cut:
    # x = (2560 − 1500) / 2 = 530, y = 40 + 0.
    assert fit_to_screen(QRect(0, 40, 2560, 800)) == QRect(530, 40, 1500, 800)
    # A wanted size wider than tall inside a tall screen: 800 × 400 in 1000 × 2000 at (10, 20):
    # x = 10 + 100, y = 20 + 800.
    assert fit_to_screen(QRect(10, 20, 1000, 2000), QSize(800, 400)) == QRect(110, 820, 800, 400)


def test_only_the_known_noise_is_dropped() -> None:
    assert is_noise("qt.qpa: This plugin does not support propagateSizeHints()")
    assert is_noise("This plugin does not support raise()")
    assert is_noise("This plugin does not support grabbing the keyboard")
    assert not is_noise("QPainter::begin: Paint device returned engine == 0")


def test_the_status_bar_says_what_the_session_did(qtbot, window) -> None:
    s, bar = window.session, window.statusBar()
    s.exportFinished.emit(Path("/tmp/out/records.npz"))
    assert bar.currentMessage() == "Saved /tmp/out/records.npz"
    s.exportFailed.emit(Cancelled())
    assert bar.currentMessage() == "Export cancelled: no file was written."
    s.fetchFailed.emit(RuntimeError("bus error"), "")
    assert bar.currentMessage() == "Could not read the record from the GPU: bus error"
    s.statusRequested.emit("Tracing …", 0)
    assert bar.currentMessage() == "Tracing …"
    s.statusRequested.emit("Copied", 3000)
    assert bar.currentMessage() == "Copied"
    s.statusRequested.emit("Tracing …", 0)
    window._on_busy(False)  # the run ended: its busy line goes
    assert bar.currentMessage() == ""
    s.statusRequested.emit("Kept", 3000)
    window._on_busy(False)  # a passing message stays
    assert bar.currentMessage() == "Kept"
    s.noticeArrived.emit("ran on the simulator")
    assert window.backendNotice.text() == "ran on the simulator" and window.backendNotice.isVisibleTo(window)
    window.show_notice("")
    assert not window.backendNotice.isVisibleTo(window)


def test_the_theme_and_presentation_are_saved_on_close(qtbot, window, settings_file) -> None:
    window.menuActions["darkThemeAction"].trigger()
    assert window.settings.theme == "dark"
    assert window.menuActions["darkThemeAction"].isChecked()
    assert not window.menuActions["lightThemeAction"].isChecked()
    window.menuActions["presentationAction"].trigger()
    assert window.settings.presentation is True
    window.close()
    settings_file.sync()
    assert settings_file.value("view/theme") == "dark"
    assert str(settings_file.value("view/presentation")).lower() == "true"
    assert isinstance(settings_file.value("window/geometry"), QByteArray)


def test_opening_a_record_starts_in_the_export_folder(qtbot, window, monkeypatch, tmp_path: Path) -> None:
    asked: list[tuple[object, ...]] = []
    monkeypatch.setattr(
        dialogs, "ask_open_path", lambda parent, title, start, filters: asked.append((title, start, filters))
    )
    window.settings.export_dir = str(tmp_path)
    assert window.open_record() is False
    assert asked == [("Open a record", tmp_path, "simtviz records (*.npz)")]
