"""The index map tab's own words and settings, worked out by hand, line by line: what is saved and
restored, the backend badge, the progress line, the last run's summary, the partial-window
warning, the export dialogs' formats, and where the inspector goes.

Launches are non-square (grid 3 × 5 of 48 × 2 blocks: 144 columns × 10 rows) so that x/y and
grid/block mix-ups show.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from fake_backends import FakeHostBackend
from PySide6.QtCore import Qt
from qt_helpers import RUN_TIMEOUT_MS

from simtviz.backends.base import BackendInfo
from simtviz.core.launch import Dim3, LaunchConfig
from simtviz.core.limits import DeviceLimits
from simtviz.core.oracle import expected_field
from simtviz.core.recording import Recording
from simtviz.core.window import Window
from simtviz.qt import dialogs
from simtviz.qt.map import Cell
from simtviz.qt.session import RecordRequest, RunSession
from simtviz.qt.settings import AppSettings
from simtviz.qt.tabs.index_map.tab import IndexMapTab

WIDE = LaunchConfig.of((3, 5, 1), (48, 2, 1))  # 144 × 10 threads, 1,440 in all


@pytest.fixture
def tab(qtbot) -> Iterator[IndexMapTab]:
    session = RunSession(lambda: FakeHostBackend())
    qtbot.waitUntil(lambda: session.backend is not None, timeout=RUN_TIMEOUT_MS)
    t = IndexMapTab(session)
    qtbot.addWidget(t)
    yield t
    session.close()


def record(qtbot, tab: IndexMapTab, config: LaunchConfig = WIDE) -> None:
    with qtbot.waitSignal(tab.session.recordingChanged, timeout=RUN_TIMEOUT_MS):
        assert tab.session.record(RecordRequest(config))


def said(tab: IndexMapTab) -> list[str]:
    texts: list[str] = []
    tab.session.statusRequested.connect(lambda text, _ms: texts.append(text))
    return texts


def hand_recording(window: Window, **kw) -> Recording:
    names = ("threadIdx", "blockIdx", "grid1", "grid2", "grid3", "laneid", "warp")
    fields = {n: expected_field(n, WIDE, window) for n in names}
    return Recording(WIDE, window, fields, "sim", **kw)


# --- settings ------------------------------------------------------------------------------------
def test_store_settings_keeps_grid_block_colour_tiled_and_budget_apart(tab: IndexMapTab) -> None:
    tab.launchPanel.set_config(WIDE)
    tab.indexMap.set_color_field("blockIdx.y")
    tab.indexMap.set_tiled(True)
    tab.windowPanel.set_budget(12_345)
    s = AppSettings()
    tab.store_settings(s)
    assert s.grid == Dim3(3, 5, 1)
    assert s.block == Dim3(48, 2, 1)
    assert s.color == "blockIdx.y"
    assert s.tiled is True
    assert s.budget_threads == 12_345


def test_apply_settings_restores_launch_colour_and_tiled(tab: IndexMapTab) -> None:
    tab.apply_settings(AppSettings(grid=Dim3(3, 5, 1), block=Dim3(48, 2, 1), color="warp", tiled=True))
    assert tab.launchPanel.config() == LaunchConfig.of((3, 5, 1), (48, 2, 1))
    assert tab.indexMap.color_field() == "warp"
    assert tab.indexMap.colorBy.currentText() == "warp"
    assert tab.indexMap.tiledCheck.isChecked()
    tab.apply_settings(AppSettings(tiled=False))
    assert not tab.indexMap.tiledCheck.isChecked()


def test_a_budget_edit_goes_into_the_session_settings(tab: IndexMapTab) -> None:
    tab.windowPanel.budgetSpin.setValue(4_096)
    assert tab.session.settings.budget_threads == 4_096


# --- badge and progress words --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kind", "label", "badge"),
    [
        ("sim", "Numba simulator — lockstep", "CUDA simulator"),
        ("emu", "NumPy emulator — lockstep", "CPU emulator"),
        ("gpu", "NVIDIA H200 — compute 9.0, 132 SMs", "GPU: NVIDIA H200"),
    ],
)
def test_the_badge_names_the_backend_in_short_words(
    tab: IndexMapTab, kind: str, label: str, badge: str
) -> None:
    tab.session.backendReady.emit(BackendInfo(kind, kind, label, DeviceLimits()))
    assert tab.backendLabel.text() == badge
    assert tab.backendLabel.toolTip() == label  # the details


def test_the_progress_line_counts_every_thread_of_the_launch(tab: IndexMapTab) -> None:
    # 3 × 5 blocks × 48 × 2 threads = 15 × 96 = 1,440 (a window of 96 still runs them all).
    text, seconds = tab._describe_run(RecordRequest(WIDE, False, 96, (0, 0, 0)))
    assert text == "Running 1,440 threads on the CUDA simulator"
    assert seconds is not None
    tab.session._info = None  # before the backend answered
    assert tab._describe_run(RecordRequest(WIDE))[0] == "Running 1,440 threads"


def test_the_export_progress_names_the_file(tab: IndexMapTab) -> None:
    assert tab._describe_export(Path("/tmp/a/b/records.csv")) == ("Writing records.csv", None)


# --- the last run's summary ----------------------------------------------------------------------
def test_the_summary_gives_the_launch_and_the_host_time(qtbot, tab: IndexMapTab) -> None:
    record(qtbot, tab)
    rec = hand_recording(Window.full(WIDE), timings_ms={"wall_ms": 1500.0})
    tab._on_recorded(rec)
    text = tab.lastRunLabel.text()
    # 1,500 ms of wall time is 1.5 s, written "2 s" by format_duration's whole seconds.
    assert text.startswith("Last run: kernel[(3, 5), (48, 2)], ")
    assert ", host 2 s, Run → map " in text
    assert tab.lastRunLabel.toolTip() == text
    # No verification: said so, in red.
    assert tab.verificationLabel.text() == "not verified"
    assert "#d32f2f" in tab.verificationLabel.styleSheet()


def test_a_verified_run_is_not_red(qtbot, tab: IndexMapTab) -> None:
    record(qtbot, tab)
    assert tab.verificationLabel.text() == "1,440 of 1,440 threads match"
    assert tab.verificationLabel.styleSheet() == ""


def test_over_the_budget_the_map_says_which_part_recorded(qtbot, tab: IndexMapTab) -> None:
    texts = said(tab)
    tab.windowPanel.set_budget(1_000)
    record(qtbot, tab)
    rec = hand_recording(Window((48, 2, 0), (96, 4, 1)))
    tab._on_recorded(rec)
    # 96 × 4 = 384 of 1,440 threads; x 48 … 48 + 96 − 1 = 143, y 2 … 2 + 4 − 1 = 5.
    assert not tab.windowMessage.isHidden()
    assert tab.windowMessage.text() == (
        "⚠ Over the recording budget of 1,000 threads — every thread ran, but recording 384 of "
        "1,440 threads: window x 48–143, y 2–5. Move the window with the Recording window controls."
    )
    assert texts[-1] == "Recording 384 of 1,440 threads: window x 48–143, y 2–5"
    tab._on_recorded(hand_recording(Window.full(WIDE)))
    assert tab.windowMessage.isHidden()
    assert texts[-1] == "Recording all 1,440 threads"


# --- show_launch ---------------------------------------------------------------------------------
def test_show_launch_of_the_launch_shown_does_not_run_again(qtbot, tab: IndexMapTab, monkeypatch) -> None:
    record(qtbot, tab)
    runs: list[bool] = []
    monkeypatch.setattr(tab, "run", lambda force=False: runs.append(force))
    tab.show_launch(WIDE, "blockIdx.x")
    assert runs == []
    assert tab.indexMap.color_field() == "blockIdx.x"
    other = LaunchConfig.of((5, 3, 1), (2, 48, 1))
    tab.show_launch(other)
    assert runs == [False]
    assert tab.launchPanel.config() == other


# --- export dialogs ------------------------------------------------------------------------------
def test_export_dialogs_ask_for_their_formats_and_remember_the_folder(
    qtbot, tab: IndexMapTab, monkeypatch, tmp_path: Path
) -> None:
    record(qtbot, tab)
    asked: list[tuple[str, Path, str, str]] = []
    answer = tmp_path / "out" / "chosen"

    def ask(_parent, title, start, suffix, filters):
        asked.append((title, start, suffix, filters))
        return answer.with_suffix("." + suffix)

    monkeypatch.setattr(dialogs, "ask_save_path", ask)
    written: list[tuple[Path, str]] = []
    monkeypatch.setattr(
        tab.session, "export_records", lambda target, fmt: written.append((target, fmt)) or target
    )
    tab.session.settings.export_dir = str(tmp_path / "start")
    texts = said(tab)

    assert tab.export_records() == tmp_path / "out" / "chosen.npz"
    assert asked[-1] == (
        "Export records",
        tmp_path / "start" / "simtviz-map.npz",
        "npz",
        "NumPy records (*.npz)",
    )
    assert written[-1] == (tmp_path / "out" / "chosen.npz", "npz")
    assert texts[-1] == "Writing chosen.npz …"
    # The folder chosen is where the next dialog starts.
    assert tab.session.settings.export_dir == str(tmp_path / "out")

    tab.export_records(fmt="csv")
    assert asked[-1] == ("Export records", tmp_path / "out" / "simtviz-map.csv", "csv", "CSV table (*.csv)")
    assert written[-1] == (tmp_path / "out" / "chosen.csv", "csv")

    monkeypatch.setattr(tab.indexMap, "export_png", lambda target: Path(target))
    assert tab.export_map_png() == tmp_path / "out" / "chosen.png"
    assert asked[-1] == ("Export map", tmp_path / "out" / "simtviz-map.png", "png", "PNG image (*.png)")
    assert texts[-1] == f"Saved {tmp_path / 'out' / 'chosen.png'}"


def test_export_with_a_path_takes_its_suffix_as_the_format(
    qtbot, tab: IndexMapTab, monkeypatch, tmp_path
) -> None:
    record(qtbot, tab)
    written: list[str] = []
    monkeypatch.setattr(tab.session, "export_records", lambda target, fmt: written.append(fmt) or target)
    tab.export_records(tmp_path / "r.CSV")
    assert written == ["csv"]


def test_nothing_to_export_before_a_run(tab: IndexMapTab, monkeypatch) -> None:
    texts = said(tab)
    monkeypatch.setattr(dialogs, "ask_save_path", lambda *a: pytest.fail("no dialog before a run"))
    assert tab.export_records() is None
    assert tab.export_map_png() is None
    assert texts == ["Nothing to export yet: press Run first."] * 2


# --- where the inspector goes --------------------------------------------------------------------
def test_narrow_is_below_80_px_per_point(tab: IndexMapTab) -> None:
    # 11 pt normally: 80 × 11 = 880 px; exactly 880 is not narrow, 879 is.
    tab.resize(880, 500)
    assert not tab.is_narrow()
    tab.resize(879, 500)
    assert tab.is_narrow()


def test_a_wide_map_in_a_narrow_window_puts_the_inspector_under_it(qtbot, tab: IndexMapTab) -> None:
    tab.resize(800, 600)  # narrow: < 880
    record(qtbot, tab)  # 10 rows × 144 columns: 10 < 0.6 × 144
    assert tab._innerSplitter.orientation() == Qt.Orientation.Vertical


def test_a_tall_map_in_a_narrow_window_keeps_the_inspector_beside_it(qtbot, tab: IndexMapTab) -> None:
    tab.resize(800, 600)
    record(qtbot, tab, LaunchConfig.of((5, 3, 1), (2, 48, 1)))  # 144 rows × 10 columns
    assert tab._innerSplitter.orientation() == Qt.Orientation.Horizontal


def test_beside_the_map_the_inspector_gets_the_smaller_share(qtbot, tab: IndexMapTab) -> None:
    tab.resize(1600, 900)
    tab.show()
    qtbot.waitExposed(tab)
    record(qtbot, tab)
    map_w, inspector_w = tab._innerSplitter.sizes()
    assert inspector_w < map_w
    assert np.isclose(inspector_w / (map_w + inspector_w), 0.32, atol=0.05)


# --- wiring: which signal updates which widget ---------------------------------------------------
def test_run_records_the_windows_budget_and_origin_and_says_so(qtbot, tab: IndexMapTab) -> None:
    texts = said(tab)
    tall = LaunchConfig.of((5, 3, 1), (2, 48, 1))  # 10 columns × 144 rows
    tab.launchPanel.set_config(tall)
    tab.windowPanel.set_budget(200)
    tab.windowPanel.set_origin((2, 48, 0))
    with qtbot.waitSignal(tab.session.recordingChanged, timeout=RUN_TIMEOUT_MS):
        tab.run()
    assert "Running record_threads[(5, 3), (2, 48)](...) …" in texts
    # A 200-thread window: 8 wide (doubling the side stops at 8, as 16 × 16 = 256 > 200),
    # 200 // 8 = 25 high; from x 2 (10 − 8 = 2 is the last that fits) and y 48.
    assert tab.session.recording.window == Window((2, 48, 0), (8, 25, 1))
    assert tab.windowPanel.origin() == (2, 48, 0)  # the spin boxes follow the window used
    # 8 × 25 = 200 of 5 × 3 × 2 × 48 = 1,440 threads; x 2 … 9, y 48 … 72.
    assert tab.windowPanel.description.text() == "recording 200 of 1,440 threads: window x 2–9, y 48–72"


def test_editing_the_launch_sends_the_window_back_to_its_start(tab: IndexMapTab) -> None:
    tab.windowPanel.set_origin((96, 4, 0))
    tab.launchPanel.spins["gridY"].setValue(6)
    assert tab.windowPanel.origin() == (0, 0, 0)


def test_the_record_button_runs_the_window_typed_in(tab: IndexMapTab, monkeypatch) -> None:
    runs: list[bool] = []
    monkeypatch.setattr(tab, "run", lambda force=False: runs.append(force))
    tab.windowPanel.recordButton.click()
    assert runs and runs[-1] is False


def test_a_backend_that_fails_is_named_over_the_map(tab: IndexMapTab) -> None:
    tab.session.backendFailed.emit(RuntimeError("numba is missing"), "")
    assert tab.backendLabel.text() == "No backend: numba is missing"


def test_a_failed_run_reports_the_budget_and_whether_a_map_is_shown(
    qtbot, tab: IndexMapTab, monkeypatch
) -> None:
    got: list[dialogs.RecordFailure] = []
    monkeypatch.setattr(dialogs, "report_record_error", lambda _w, _e, _tb, f: got.append(f) or "it failed")
    texts = said(tab)
    tab.windowPanel.set_budget(3_000)
    request = RecordRequest(WIDE)
    tab.session.runFailed.emit("vecadd", request, RuntimeError("x"), "")  # another experiment's: not ours
    assert got == []
    tab.session.runFailed.emit("record", request, RuntimeError("x"), "")
    assert (got[-1].budget, got[-1].map_shown) == (3_000, False)
    assert texts[-1] == "it failed"
    record(qtbot, tab)
    tab.session.runFailed.emit("record", request, RuntimeError("x"), "")
    assert (got[-1].budget, got[-1].map_shown) == (3_000, True)


def test_a_new_plane_clears_the_inspector(qtbot, tab: IndexMapTab) -> None:
    record(qtbot, tab, LaunchConfig.of((1, 1, 2), (48, 2, 2)))
    tab.indexMap.pin(Cell(0, 1, 5))
    assert tab.inspector.row is not None
    tab.indexMap.set_plane(1)
    assert tab.inspector.row is None
    assert tab.inspector.text() == "Click a cell of the map to pin its thread here."


def test_a_2d_heading_has_no_z_plane(qtbot, tab: IndexMapTab) -> None:
    record(qtbot, tab)
    tab.inspector.set_wide(False)
    tab.indexMap.pin(Cell(0, 9, 143))  # the last row and column
    assert tab.inspector.text().splitlines()[0] == "Map row 9, column 143"


def test_presentation_mode_enlarges_the_inspectors_text(tab: IndexMapTab) -> None:
    tab.apply_style("light", True)
    assert tab.inspector.browser.document().defaultFont().pointSize() == 20
    tab.apply_style("light", False)
    assert tab.inspector.browser.document().defaultFont().pointSize() == 11


def test_an_opened_recording_is_named_and_set_in_the_launch_panel(qtbot, tab: IndexMapTab, tmp_path) -> None:
    record(qtbot, tab)
    path = tmp_path / "class-demo.npz"
    with qtbot.waitSignal(tab.session.exportFinished, timeout=RUN_TIMEOUT_MS):
        tab.export_records(path)
    tab.launchPanel.set_config(LaunchConfig.of((1, 1, 1), (32, 1, 1)))
    with qtbot.waitSignal(tab.session.recordingChanged, timeout=RUN_TIMEOUT_MS):
        assert tab.session.open_record(path)
    assert tab.launchPanel.config() == WIDE
    assert tab.lastRunLabel.text().endswith(", opened from class-demo.npz")


def test_show_launch_and_show_block_bring_the_tab_forward(qtbot, tab: IndexMapTab, monkeypatch) -> None:
    record(qtbot, tab)
    shown: list[object] = []
    tab.session.showRequested.connect(shown.append)
    monkeypatch.setattr(tab, "run", lambda force=False: None)
    tab.show_launch(WIDE)
    assert shown == [tab]
    tab._selector.select(WIDE, (0, 0, 0))
    assert shown == [tab, tab]
