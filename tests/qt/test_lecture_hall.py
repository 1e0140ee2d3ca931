"""The app in a lecture hall (issue 10): fits a 1280 × 720 projector, presentation mode reads from
the back, the backend is in view and in exports, and every rough edge a class would hit.

Geometry is asserted, never pixels: where widgets are and whether they fit the window.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QRect, QSize
from PySide6.QtGui import QTextOption
from PySide6.QtWidgets import QApplication, QLabel, QMessageBox, QScrollArea, QSpinBox, QWidget
from qt_helpers import RUN_TIMEOUT_MS, press_run, set_launch

from simtviz.core.errors import Cancelled
from simtviz.core.launch import LaunchConfig
from simtviz.core.oracle import expected_field
from simtviz.core.recording import Recording, load_npz
from simtviz.core.schema import RECORD_FIELDS
from simtviz.core.window import Window
from simtviz.qt.main_window import fit_to_screen
from simtviz.qt.map import Cell, IndexMap
from simtviz.qt.map.colours import CATEGORICAL, colorize

ROOT = Path(__file__).resolve().parents[2]
SPINS = ("gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ")


def settle(qtbot, ms: int = 50) -> None:
    qtbot.wait(ms)
    QApplication.processEvents()


def inside(w: QWidget, widget: QWidget) -> bool:
    """True when ``widget`` lies wholly inside the window ``w`` (nothing cut off at an edge)."""
    rect = QRect(widget.mapTo(w, QPoint(0, 0)), widget.size())
    return QRect(QPoint(0, 0), w.size()).contains(rect)


def synthetic(config: LaunchConfig, window: Window | None = None, backend: str = "sim") -> Recording:
    window = window or Window.full(config)
    fields = {}
    for name, (shape, kind) in RECORD_FIELDS.items():
        if name in ("smid", "t_ns"):
            fields[name] = np.full((window.threads, *shape), -1, dtype=kind)
        else:
            fields[name] = np.asarray(expected_field(name, config, window)).astype(kind)
    return Recording(config, window, fields, backend)


def run(qtbot, w, grid, block) -> Recording:
    set_launch(w, grid, block)
    press_run(qtbot, w)
    expected = LaunchConfig.of(grid, block)
    qtbot.waitUntil(
        lambda: w.recording is not None and w.recording.config == expected and not w.busy,
        timeout=RUN_TIMEOUT_MS,
    )
    settle(qtbot)
    return w.recording


def open_file(qtbot, w, path: Path) -> Recording:
    assert w.open_record(path)
    qtbot.waitUntil(lambda: w.session.opened_from == path and not w.busy, timeout=RUN_TIMEOUT_MS)
    settle(qtbot)
    return w.recording


# --- 1. fits a 1280 × 720 projector ---------------------------------------------------------------
def test_first_geometry_is_inside_the_screen() -> None:
    projector = QRect(0, 0, 1280, 720)
    assert projector.contains(fit_to_screen(projector))
    assert fit_to_screen(projector).size() == QSize(1280, 720)
    # a big monitor keeps the preferred 1500 × 900, centred
    assert fit_to_screen(QRect(0, 0, 2560, 1440)) == QRect(530, 270, 1500, 900)


def test_window_opens_inside_a_1280x720_screen(tmp_path) -> None:
    """A real start on a 1280 × 720 screen (Qt's offscreen platform, a screen of that size)."""
    screen = {"name": "p", "x": 0, "y": 0, "width": 1280, "height": 720, "logicalDpi": 96, "dpr": 1}
    config = tmp_path / "screen.json"
    config.write_text(json.dumps({"screens": [screen]}))
    code = (
        "import os\n"
        "from PySide6.QtCore import QSettings\n"
        "from PySide6.QtWidgets import QApplication\n"
        "from simtviz.gui import create_main_window\n"
        "app = QApplication([])\n"
        f"w = create_main_window('sim', QSettings({str(tmp_path / 's.ini')!r}, QSettings.Format.IniFormat))\n"
        "w.show(); app.processEvents()\n"
        "g, a = w.frameGeometry(), w.screen().availableGeometry()\n"
        "print(g.x(), g.y(), g.width(), g.height(), a.width(), a.height())\n"
        "w.session.close(); os._exit(0)\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}", "SIMTVIZ_BACKEND": "sim"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    x, y, width, height, aw, ah = (int(v) for v in out.stdout.split()[-6:])
    assert (aw, ah) == (1280, 720)
    assert x >= 0 and y >= 0 and x + width <= 1280 and y + height <= 720


def test_minimum_size_fits_1024x640_in_every_mode(qtbot, window) -> None:
    def check(mode: str) -> None:
        settle(qtbot)
        hint = window.minimumSizeHint().expandedTo(window.minimumSize())
        assert hint.width() <= 1024 and hint.height() <= 640, f"{mode}: minimum {hint.toTuple()}"
        window.resize(1024, 640)
        settle(qtbot)
        assert window.size() == QSize(1024, 640), mode

    check("normal")
    window.presentationAction.setChecked(True)
    check("presentation")
    for grid, block, mode in (
        ((4, 1, 1), (32, 1, 1), "1-D"),
        ((4, 3, 1), (8, 4, 1), "2-D"),
        ((2, 2, 2), (4, 2, 2), "3-D"),
    ):
        run(qtbot, window, grid, block)
        check(f"presentation after a {mode} run")
    window.set_tiled(True)
    check("presentation, tiled z-planes")
    window.presentationAction.setChecked(False)
    check("normal, tiled z-planes")
    window.toggle_full_screen()
    settle(qtbot)
    hint = window.minimumSizeHint().expandedTo(window.minimumSize())
    assert hint.width() <= 1024 and hint.height() <= 640, "full screen"
    window.toggle_full_screen()
    # every other tab: a tall panel must not set the window's minimum height
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        check(f"tab {window.tabs.tabText(index)}")


@pytest.mark.window_backend("sim")
def test_presentation_at_1280x720_shows_map_formula_and_backend(qtbot, window) -> None:
    window.resize(1280, 720)
    window.presentationAction.setChecked(True)
    run(qtbot, window, (4, 3, 1), (8, 4, 1))
    assert window.inspector.go_to("1,2 3,0")
    settle(qtbot)
    assert window.is_narrow()  # 1280 px at 20 pt: the inspector goes under the map
    # the map: in the window, uncut, and big enough to read
    view = window.indexMap.view
    assert inside(window, window.indexMap) and inside(window, view)
    assert view.width() >= 600 and view.height() >= 200
    # the backend, in words that fit their box
    badge = window.findChild(QLabel, "backendLabel")
    assert badge.isVisible() and inside(window, badge)
    assert "simulator" in badge.text().lower()
    assert badge.fontMetrics().horizontalAdvance(badge.text()) <= badge.contentsRect().width()
    # the worked formula of the pinned thread, visible without scrolling
    browser = window.inspector.browser
    assert inside(window, browser)
    assert browser.verticalScrollBar().value() == 0
    cursor = browser.document().find("= 3 + 1 × 8 = 11")
    assert not cursor.isNull()
    where = browser.cursorRect(cursor)
    assert where.top() >= 0 and where.bottom() <= browser.viewport().height()
    assert where.right() <= browser.viewport().width()


# --- 2. presentation mode does not clip the map ---------------------------------------------------
def test_presentation_mode_never_clips_the_map(qtbot, window) -> None:
    window.resize(1280, 720)
    run(qtbot, window, (8, 1, 1), (32, 1, 1))  # a 32 × 8 map (one row per block)

    def whole_map_in_view() -> None:
        settle(qtbot)
        assert inside(window, window.indexMap) and inside(window, window.indexMap.view)
        shown = window.indexMap.plot.vb.viewRect()
        assert shown.contains(QRect(0, 0, 31, 7))  # cell centres (0, 0) … (31, 7)

    whole_map_in_view()
    window.presentationAction.setChecked(True)
    window.fit_map()
    whole_map_in_view()
    window.presentationAction.setChecked(False)
    window.fit_map()
    whole_map_in_view()


def test_inspector_breaks_lines_between_words_only(window) -> None:
    assert window.inspector.browser.wordWrapMode() == QTextOption.WrapMode.WordWrap


# --- 3. the backend where the eye is, and in every PNG --------------------------------------------
@pytest.mark.window_backend("sim")
def test_backend_is_in_the_map_title_and_in_snapshots(qtbot, window, tmp_path) -> None:
    run(qtbot, window, (4, 3, 1), (8, 4, 1))
    title = window.indexMap.plot.titleLabel.text
    assert "ran on the CUDA simulator" in title
    # the title is part of the scene that PNG export and `simtviz snapshot` render
    assert window.indexMap.plot.titleLabel.scene() is window.indexMap.view.scene()
    gpu = synthetic(LaunchConfig.of((2, 1, 1), (32, 1, 1)), backend="gpu:NVIDIA H200")
    view = IndexMap()
    qtbot.addWidget(view)
    view.set_recording(gpu)
    assert "ran on the GPU: NVIDIA H200" in view.plot.titleLabel.text
    from simtviz.qt.snapshot import render_snapshot

    png = render_snapshot(gpu, "blockIdx.x", tmp_path / "snap.png")
    assert png.read_bytes().startswith(b"\x89PNG")


# --- 14. spin boxes keep their place ---------------------------------------------------------------
@pytest.mark.parametrize("size, presentation", [((1024, 640), False), ((1280, 720), True)])
def test_spin_boxes_keep_fixed_positions_while_editing(qtbot, window, size, presentation) -> None:
    window.resize(*size)
    window.presentationAction.setChecked(presentation)
    settle(qtbot)
    spins = {name: window.findChild(QSpinBox, name) for name in SPINS}
    scroll = window.findChild(QScrollArea, "launchScroll")

    def positions() -> dict[str, QRect]:
        settle(qtbot, 20)
        return {n: QRect(s.mapTo(window, QPoint(0, 0)), s.size()) for n, s in spins.items()}

    def all_visible() -> None:
        for name, spin in spins.items():
            rect = QRect(spin.mapTo(scroll.viewport(), QPoint(0, 0)), spin.size())
            assert scroll.viewport().rect().contains(rect), f"{name} is cut off"

    before = positions()
    all_visible()
    window.launchPanel.select_preset(1)  # a preset with a note
    assert positions() == before
    spins["blockX"].setValue(33)  # "last warp has only 1 of 32" warnings
    spins["blockY"].setValue(3)
    assert positions() == before
    spins["blockX"].setValue(2048)  # an invalid launch: more warning lines
    assert positions() == before
    spins["blockX"].setValue(8)  # back to no warning at all
    assert positions() == before
    all_visible()


# --- 15. status-bar messages ------------------------------------------------------------------------
@pytest.mark.window_backend("sim")
def test_running_message_goes_when_the_long_run_is_declined(qtbot, window) -> None:
    set_launch(window, (1024, 1, 1), (256, 1, 1))  # 262,144 threads: the simulator asks first
    press_run(qtbot, window)
    qtbot.waitUntil(
        lambda: window.findChild(QMessageBox, "launchTooLargeDialog") is not None, timeout=RUN_TIMEOUT_MS
    )
    box = window.findChild(QMessageBox, "launchTooLargeDialog")
    box.button(QMessageBox.StandardButton.No).click()
    settle(qtbot)
    assert not window.statusBar().currentMessage().startswith("Running")


def test_status_messages_get_the_whole_bar(qtbot, window) -> None:
    window.resize(1280, 720)
    window.presentationAction.setChecked(True)
    run(qtbot, window, (4, 3, 1), (8, 4, 1))
    bar = window.statusBar()
    message = bar.currentMessage()
    assert message == "Recording all 384 threads"
    assert not [w for w in bar.findChildren(QLabel) if w.isVisible() and w.text()]  # no permanent labels
    assert bar.fontMetrics().horizontalAdvance(message) < bar.width() - 20


# --- 7. tiled z-planes ------------------------------------------------------------------------------
def test_tiled_planes_have_their_own_ticks_and_captions_in_view(qtbot, window) -> None:
    window.resize(1280, 720)
    window.presentationAction.setChecked(True)
    run(qtbot, window, (1, 1, 2), (4, 2, 2))  # 4 planes of 4 × 2: tiled 2 × 2
    window.set_tiled(True)
    settle(qtbot)
    index_map = window.indexMap
    bottom = index_map.plot.getAxis("bottom")._tickLevels[0]
    left = index_map.plot.getAxis("left")._tickLevels[0]
    across = len({tile.origin[0] for tile in index_map._tiles})
    down = len({tile.origin[1] for tile in index_map._tiles})
    assert across * down >= 4
    assert [label for _, label in bottom] == ["0", "3"] * across  # each tile's own x: 0 … 3
    assert [label for _, label in left] == ["0", "1"] * down  # and y: 0 … 1
    assert "each tile" in index_map.plot.getAxis("bottom").labelText
    view = index_map.plot.vb.sceneBoundingRect()
    captions = [tile.caption for tile in index_map._tiles]
    assert [c.textItem.toPlainText() for c in captions] == ["z = 0", "z = 1", "z = 2", "z = 3"]
    for caption in captions:
        assert view.contains(caption.sceneBoundingRect()), caption.textItem.toPlainText()


# --- 8. categorical colours ---------------------------------------------------------------------------
def test_categorical_colours_stay_distinct_for_what_is_shown() -> None:
    ids = np.arange(0, 60).reshape(1, -1)
    rgba = colorize(ids, True, (0.0, 59.0))[0, :, :3]
    colours = [tuple(c) for c in rgba]
    assert colours[0] != colours[10]  # blockIdx.x 0 and 10 were the same blue
    assert len(set(colours[: len(CATEGORICAL)])) == len(CATEGORICAL)  # 48 neighbouring ids: all distinct
    assert colours[0] == colours[len(CATEGORICAL)]  # beyond that they cycle, as the legend says
    # the lowest id shown gets the first colour: a window starting at block 1000 is as distinct
    shifted = colorize(np.arange(1000, 1048).reshape(1, -1), True, (1000.0, 1047.0))[0, :, :3]
    assert len({tuple(c) for c in shifted}) == 48


def test_legend_for_categorical_fields_only(qtbot, window) -> None:
    run(qtbot, window, (4, 3, 1), (8, 4, 1))
    index_map = window.indexMap
    index_map.set_color_field("blockIdx.x")
    settle(qtbot)
    assert index_map.legend.isVisible()
    assert "blockIdx.x" in index_map.legend.text and all(
        f"</span> {i}" in index_map.legend.text for i in range(4)
    )
    index_map.set_color_field("global warp id")  # 12 blocks × 1 warp: ids 0 … 11
    assert index_map.current_image()[0, 8] == 1 and index_map.current_image()[4, 0] == 4
    assert index_map.legend.isVisible() and "</span> 11" in index_map.legend.text
    index_map.set_color_field("global linear index")  # continuous: a colour bar, no legend
    assert not index_map.legend.isVisible() and index_map.colorBar.isVisible()


# --- 9. elongated maps ----------------------------------------------------------------------------------
def test_elongated_map_opens_readable_and_see_all_shows_everything(qtbot) -> None:
    config = LaunchConfig.of((64, 4, 1), (256, 1, 1))  # 16,384 × 4 threads: a line at 1:1
    view = IndexMap()
    qtbot.addWidget(view)
    view.resize(1000, 600)
    view.show()
    qtbot.waitExposed(view)
    view.set_recording(synthetic(config))
    settle(qtbot)
    view.fit()
    assert view.is_elongated() and view.seeAllButton.isVisible()
    shown = view.plot.vb.viewRect()
    assert shown.top() <= -0.5 and shown.bottom() >= 3.5  # every row
    assert shown.width() < 100  # the first few columns, cells square enough to read
    assert view.plot.vb.state["aspectLocked"]
    view.seeAllButton.click()
    settle(qtbot)
    shown = view.plot.vb.viewRect()
    assert shown.left() <= 0 and shown.right() >= 16383  # all of it, stretched
    assert view.is_stretched() and not view.plot.vb.state["aspectLocked"]
    view.fit()
    assert not view.is_stretched() and view.plot.vb.state["aspectLocked"]


# --- 16. go to / pin a thread ---------------------------------------------------------------------------
def test_go_to_a_thread_by_its_indices(qtbot, window) -> None:
    window.presentationAction.setChecked(True)
    run(qtbot, window, (4, 3, 1), (8, 4, 1))
    window.inspector.goToEdit.setText("1,2 3,0")
    window.inspector.goToButton.click()
    assert window.indexMap.pinned() == Cell(0, 8, 11)  # x = 8 + 3, y = 2 × 4 + 0
    assert "= 3 + 1 × 8 = 11" in window.inspector.text()
    size, pen, visible = window.indexMap.pin_marker()
    assert visible and size >= 40 and pen >= 6  # a thick ring, seen from the back of the room
    assert window.inspector.go_to("42")
    assert window.indexMap.pinned() == Cell(0, 1, 10)
    assert not window.inspector.go_to("9,0 0,0")
    assert "gridDim.x = 4" in window.inspector.goToMessage.text()


# --- 17. File → Open a saved record ----------------------------------------------------------------------
def test_open_a_saved_record_as_recorded(qtbot, window, tmp_path) -> None:
    config = LaunchConfig.of((2, 3, 1), (4, 2, 1))
    saved = synthetic(config, backend="gpu:NVIDIA H200")
    path = saved.save_npz(tmp_path / "lecture.npz")
    rec = open_file(qtbot, window, path)
    assert rec.config == config and rec.backend == "gpu:NVIDIA H200" and rec.verification.ok
    assert window.launchPanel.config() == config
    assert "ran on the GPU: NVIDIA H200" in window.indexMap.plot.titleLabel.text
    assert "opened from lecture.npz" in window.indexMapTab.lastRunLabel.text()
    # global linear index = x + 8 y on the 8 × 6 map
    np.testing.assert_array_equal(window.indexMap.current_image(), np.arange(48).reshape(6, 8))


@pytest.mark.parametrize(
    "content, words",
    [
        (b"this is not a zip file", "bad.npz is not a NumPy .npz archive"),
        ("pickled", "bad.npz: threadIdx holds Python objects, which simtviz never loads"),
        ("missing", "bad.npz is not a simtviz record: it has no threadIdx"),
    ],
)
def test_a_malformed_file_gets_a_clear_message(qtbot, window, tmp_path, content, words) -> None:
    path = tmp_path / "bad.npz"
    if content == "pickled":
        # Every key a record has, and one of them an array of Python objects.
        names = ("blockIdx", "grid1", "grid2", "grid3", "laneid", "warp", "smid", "t_ns")
        arrays = {name: np.zeros(1, dtype=np.int64) for name in names}
        np.savez(path, threadIdx=np.array([{"a": 1}], dtype=object), gridDim=np.ones(3), blockDim=np.ones(3),
                 backend=np.array("sim"), **arrays)  # fmt: skip
    elif content == "missing":
        np.savez(path, gridDim=np.ones(3), blockDim=np.ones(3))
    else:
        path.write_bytes(content)
    assert window.open_record(path)
    qtbot.waitUntil(
        lambda: window.findChild(QMessageBox, "openErrorDialog") is not None, timeout=RUN_TIMEOUT_MS
    )
    box = window.findChild(QMessageBox, "openErrorDialog")
    assert "bad.npz" in box.text() and words in box.text()
    assert window.recording is None


# --- 11. exports on the worker, with progress and Cancel ---------------------------------------------------
def test_export_reports_progress_and_can_be_cancelled(qtbot, window, tmp_path, monkeypatch) -> None:
    import simtviz.core.recording as recording_module

    config = LaunchConfig.of((256, 1, 1), (256, 1, 1))  # 65,536 threads
    rec = open_file(qtbot, window, synthetic(config).save_npz(tmp_path / "big.npz"))
    assert rec.threads == 65_536
    monkeypatch.setattr(recording_module, "CSV_CHUNK_ROWS", 4096)  # 16 progress steps
    fractions: list[float] = []
    window.session.runProgress.connect(lambda what, f: what == "export" and fractions.append(f))
    target = tmp_path / "records.csv"
    with qtbot.waitSignal(window.session.exportFinished, timeout=RUN_TIMEOUT_MS):
        assert window.export_records(target, "csv") == target
    assert len(fractions) >= 8 and fractions == sorted(fractions) and fractions[-1] == 1.0
    assert len(target.read_text().splitlines()) == 65_537
    # Cancel at the first progress report: nothing is written, no part file is left behind.
    # One row a chunk: 65,536 steps, so the export is still running when the GUI thread gets the
    # first report and cancels (with 64-row chunks a loaded machine could finish first).
    monkeypatch.setattr(recording_module, "CSV_CHUNK_ROWS", 1)
    window.session.runProgress.connect(lambda what, _f: what == "export" and window.session.cancel())
    other = tmp_path / "cancelled.csv"
    with qtbot.waitSignal(window.session.exportFailed, timeout=RUN_TIMEOUT_MS) as failed:
        window.export_records(other, "csv")
    assert isinstance(failed.args[0], Cancelled)
    settle(qtbot)
    assert not other.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.npz", "records.csv"]
    assert "cancelled" in window.statusBar().currentMessage()
    assert load_npz(tmp_path / "big.npz").threads == 65_536
