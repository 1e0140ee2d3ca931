"""Export, settings, presentation mode, themes, the launch panel, snapshot and the no-display exit."""

from __future__ import annotations

import os
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QComboBox, QLabel, QMessageBox, QPlainTextEdit, QPushButton, QSpinBox, QWidget
from qt_helpers import RUN_TIMEOUT_MS, set_launch

from simtviz.core.errors import LaunchRejected, SimtvizError
from simtviz.core.launch import Dim3
from simtviz.core.recording import load_npz

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.window_backend("sim")
def test_export_writes_png_and_npz_loadable_like_record_output(qtbot, window, run_launch, tmp_path) -> None:
    recording = run_launch((4, 3, 1), (8, 4, 1))
    png = window.export_map_png(tmp_path / "map.png")
    assert png is not None and png.read_bytes().startswith(b"\x89PNG")
    image = QImage(str(png))
    assert image.width() >= 800 and not image.isNull()
    # Exports run on the worker (the GUI thread never waits for a file): wait for "Saved".
    with qtbot.waitSignal(window.session.exportFinished, timeout=RUN_TIMEOUT_MS):
        npz = window.export_records(tmp_path / "records.npz")
    loaded = load_npz(npz)
    assert loaded.config == recording.config
    assert loaded.verification.ok
    for name, values in recording.fields.items():
        np.testing.assert_array_equal(loaded.fields[name], values)
    np.testing.assert_array_equal(loaded.image("global linear index"), np.arange(384).reshape(12, 32))
    with np.load(npz) as data:  # the keys `simtviz record` writes (docs/CONTRACT.md)
        assert data["threadIdx"].shape == (384, 3) and data["threadIdx"].dtype == np.int32
        assert str(data["backend"]) == "sim"
    with qtbot.waitSignal(window.session.exportFinished, timeout=RUN_TIMEOUT_MS):
        csv = window.export_records(tmp_path / "records.csv", fmt="csv")
    lines = csv.read_text().splitlines()
    assert lines[0].startswith("threadIdx.x,") and len(lines) == 385
    # No temporary files left behind.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["map.png", "records.csv", "records.npz"]


def test_export_into_a_missing_folder_reports_and_leaves_nothing(qtbot, window, run_launch, tmp_path) -> None:
    run_launch((1, 1, 1), (8, 1, 1))
    assert window.export_map_png(tmp_path / "missing" / "map.png") is None
    box = window.findChild(QMessageBox, "exportErrorDialog")
    assert box is not None and box.windowTitle() == "Export failed"
    assert not (tmp_path / "missing").exists()


def test_spin_boxes_take_any_value_and_warn_live(qtbot, window) -> None:
    for name in ("gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ"):
        spin = window.findChild(QSpinBox, name)
        assert spin.minimum() == 0 and spin.maximum() == 2_147_483_647
    set_launch(window, (2_147_483_647, 70_000, 1), (1024, 2, 1))
    assert window.findChild(QSpinBox, "gridY").value() == 70_000  # not clamped
    warnings = window.findChild(QLabel, "launchWarnings").text()
    assert "70,000 > 65,535" in warnings and "2,048 > 1,024" in warnings
    assert window.findChild(QPushButton, "runButton").isEnabled()
    code = window.findChild(QPlainTextEdit, "launchCode").toPlainText()
    assert "index_kernel[(2147483647, 70000), (1024, 2)](out)" in code
    set_launch(window, (4, 1, 1), (48, 1, 1))
    assert "only 16 of 32 threads" in window.findChild(QLabel, "launchTotals").text()
    assert window.findChild(QLabel, "launchWarnings").text() == ""


def test_presets_fill_the_spin_boxes(qtbot, window) -> None:
    combo = window.findChild(QComboBox, "presetCombo")
    names = [combo.itemText(i) for i in range(combo.count())]
    assert any("invalid" in n for n in names) and any(n.startswith("3-D") for n in names)
    window.launchPanel.select_preset(3)
    assert window.launchPanel.config().block == Dim3(2048, 1, 1)
    window.launchPanel.select_preset(2)
    assert window.launchPanel.config().rank == 3


def test_zero_block_is_rejected_with_numbas_text(qtbot, window) -> None:
    set_launch(window, (4, 1, 1), (0, 1, 1))
    with qtbot.waitSignal(window.session.runFailed, timeout=20_000) as failed:
        window.run()
    assert isinstance(failed.args[2], LaunchRejected)
    assert "must be >= 1" in failed.args[2].driver_text


def test_settings_are_remembered(qtbot, settings_file) -> None:
    from simtviz.gui import create_main_window

    first = create_main_window("sim", settings_file)
    qtbot.addWidget(first)
    set_launch(first, (5, 1, 1), (64, 1, 1))
    first.indexMap.set_color_field("warp")
    first.set_theme("dark")
    first.close()
    second = create_main_window("sim", QSettings(settings_file.fileName(), QSettings.Format.IniFormat))
    qtbot.addWidget(second)
    assert second.launchPanel.config().grid == Dim3(5, 1, 1)
    assert second.indexMap.color_field() == "warp"
    assert second.settings.theme == "dark"
    assert second.settings_warning is None
    second.close()


@pytest.mark.parametrize(
    "content",
    [b"\x00\xff\xfe garbage [[[ \n=\n", b"[launch]\ngrid=not a number\n", b"[map]\ncolor=rainbow\n"],
)
def test_broken_settings_file_falls_back_to_defaults_with_a_warning(qtbot, tmp_path, content) -> None:
    from simtviz.gui import create_main_window

    path = tmp_path / "broken.ini"
    path.write_bytes(content)
    w = create_main_window("sim", QSettings(str(path), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    assert w.settings_warning and "using the defaults" in w.settings_warning
    assert w.launchPanel.config().grid == Dim3(4, 3, 1)
    assert w.indexMap.color_field() == "global linear index"
    assert "Warning" in w.statusBar().currentMessage()
    w.close()


def test_presentation_mode_uses_big_fonts_and_dark_theme_recolours(qtbot, window) -> None:
    window.presentationAction.setChecked(True)
    assert window.findChild(QPushButton, "runButton").font().pointSize() >= 18
    assert window.findChild(QWidget, "threadInspector").font().pointSize() >= 18
    window.presentationAction.setChecked(False)
    assert window.findChild(QPushButton, "runButton").font().pointSize() < 18
    window.set_theme("dark")
    assert "#1e1f22" in window.styleSheet()
    assert window.indexMap.view.backgroundBrush().color().name() == "#1e1f22"


@pytest.mark.window_backend("sim")
def test_backend_label_names_the_simulator(qtbot, window) -> None:
    assert "simulator" in window.findChild(QLabel, "backendLabel").text().lower()


def test_snapshot_renders_png(qtbot, tmp_path) -> None:
    from simtviz.cli.snapshot import run_snapshot_command

    args = Namespace(
        grid=Dim3(2, 2, 2),
        block=Dim3(4, 4, 2),
        color="threadIdx.z",
        out=tmp_path / "s.png",
        z=3,
        force=False,
        backend=os.environ.get("SIMTVIZ_BACKEND", "sim"),
        debug=False,
    )  # fmt: skip  (the backend this process runs: numba cannot switch in a process)
    assert run_snapshot_command(args) == 0
    assert QImage(str(tmp_path / "s.png")).width() == 1600
    with pytest.raises(SimtvizError):
        run_snapshot_command(Namespace(**{**vars(args), "color": "rainbow"}))
    with pytest.raises(SimtvizError):
        run_snapshot_command(Namespace(**{**vars(args), "z": 9}))
    with pytest.raises(LaunchRejected):
        run_snapshot_command(Namespace(**{**vars(args), "block": Dim3(2048, 1, 1)}))


def _env_without_display() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["SIMTVIZ_BACKEND"] = "sim"
    return env


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the no-display check is for Linux")
def test_app_without_display_exits_with_a_message() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "simtviz"],
        env=_env_without_display(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "no display" in result.stderr
    assert "Traceback" not in result.stderr


def test_snapshot_command_exit_code_for_a_rejected_launch(tmp_path) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SIMTVIZ_BACKEND": "sim"}
    cmd = [sys.executable, "-m", "simtviz", "snapshot", "--grid", "4", "--block", "2048", "--out"]
    result = subprocess.run(
        [*cmd, str(tmp_path / "x.png")], env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 3
    assert "CUDA_ERROR_INVALID_VALUE" in result.stderr
    assert not (tmp_path / "x.png").exists()
