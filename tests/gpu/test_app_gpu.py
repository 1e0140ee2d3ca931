"""The real desktop window on the real GPU backend (offscreen Qt on the GPU machine).

Run there as ``SIMTVIZ_BACKEND=gpu python3 -m pytest -m gpu tests/gpu/test_app_gpu.py`` with Qt
carried (shared/device/README.md). Everything here goes through the window's widgets, as a
teacher's clicks would: no fakes.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "qt"))

from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtWidgets import QComboBox, QLabel, QMessageBox, QPushButton, QSpinBox  # noqa: E402
from qt_helpers import press_run, set_launch  # noqa: E402

from simtviz.core.launch import LaunchConfig  # noqa: E402
from simtviz.core.limits import DRIVER_INVALID_VALUE  # noqa: E402

TIMEOUT_MS = 60_000


@pytest.fixture
def gpu_window(qtbot, tmp_path) -> Iterator:
    from simtviz.gui import create_main_window

    settings = QSettings(str(tmp_path / "simtviz.ini"), QSettings.Format.IniFormat)
    w = create_main_window(backend="gpu", settings=settings)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: w.session.backend is not None, timeout=TIMEOUT_MS)
    yield w
    w.close()


def _run(qtbot, w, grid, block):
    set_launch(w, grid, block)
    press_run(qtbot, w)
    expected = LaunchConfig.of(grid, block)
    qtbot.waitUntil(
        lambda: w.recording is not None and w.recording.config == expected and not w.busy,
        timeout=TIMEOUT_MS,
    )
    qtbot.waitUntil(
        lambda: w.indexMap.current_image() is not None and not w.indexMap.loading(), timeout=TIMEOUT_MS
    )
    return w.recording


def test_the_window_says_it_runs_on_the_gpu(gpu_window) -> None:
    label = gpu_window.findChild(QLabel, "backendLabel")
    assert "NVIDIA" in label.text() or "GPU" in label.text()
    assert "simulator" not in label.text().lower()


def test_a_2d_run_draws_the_verified_map_from_gpu_records(qtbot, gpu_window) -> None:
    rec = _run(qtbot, gpu_window, (4, 3, 1), (8, 4, 1))
    assert rec.backend.startswith("gpu:")
    assert rec.verification is not None and rec.verification.ok
    image = gpu_window.indexMap.current_image()
    assert image.shape == (12, 32)  # rows = cuda.grid(2)[1] over 3 × 4, columns = 4 × 8
    # Coloured by global linear index: row y, column x → y * 32 + x.
    colour = gpu_window.findChild(QComboBox, "colorBy")
    colour.setCurrentText("global linear index")
    qtbot.waitUntil(lambda: not gpu_window.indexMap.loading(), timeout=TIMEOUT_MS)
    image = gpu_window.indexMap.current_image()
    assert image[0, 0] == 0 and image[1, 0] == 32 and image[11, 31] == 12 * 32 - 1


def test_colouring_by_sm_shows_real_sms(qtbot, gpu_window) -> None:
    _run(qtbot, gpu_window, (512, 1, 1), (256, 1, 1))
    colour = gpu_window.findChild(QComboBox, "colorBy")
    colour.setCurrentText("SM")
    qtbot.waitUntil(lambda: not gpu_window.indexMap.loading(), timeout=TIMEOUT_MS)
    image = np.asarray(gpu_window.indexMap.current_image())
    sms = np.unique(image[image >= 0])
    assert len(sms) > 16  # 512 blocks spread over many SMs; the simulator would give -1 everywhere
    assert (image >= 0).all()


def test_block_2048_shows_the_drivers_own_error_and_the_app_goes_on(qtbot, gpu_window) -> None:
    set_launch(gpu_window, (1, 1, 1), (2048, 1, 1))
    press_run(qtbot, gpu_window)

    def dialog() -> QMessageBox | None:
        return gpu_window.findChild(QMessageBox, "launchErrorDialog")

    qtbot.waitUntil(lambda: dialog() is not None and dialog().isVisible(), timeout=TIMEOUT_MS)
    assert DRIVER_INVALID_VALUE in dialog().informativeText()  # verbatim, under a heading in words
    assert "2,048 > 1,024" in dialog().informativeText() or "2,048 &gt; 1,024" in dialog().informativeText()
    dialog().done(QMessageBox.StandardButton.Ok)
    rec = _run(qtbot, gpu_window, (2, 1, 1), (64, 1, 1))
    assert rec.verification.ok


def test_the_vector_add_tab_succeeds_on_the_gpu_with_gpu_time(qtbot, gpu_window) -> None:
    panel = gpu_window.vecaddPanel
    panel.findChild(QSpinBox, "vecaddN").setValue(2**20 + 11)
    panel.findChild(QSpinBox, "vecaddBlock").setValue(256)
    with qtbot.waitSignal(panel.resultShown, timeout=TIMEOUT_MS) as shown:
        qtbot.mouseClick(panel.findChild(QPushButton, "vecaddRunButton"), Qt.MouseButton.LeftButton)
    result = shown.args[0]
    assert result is not None and result.verified and result.kernel_ms is not None and result.kernel_ms > 0
    assert "Test succeeded" in panel.findChild(QLabel, "vecaddResult").text()


def test_the_map_exports_a_png_and_the_records_an_npz(qtbot, gpu_window, tmp_path) -> None:
    _run(qtbot, gpu_window, (4, 3, 1), (8, 4, 1))
    png = gpu_window.export_map_png(tmp_path / "map.png")
    assert png is not None and Path(png).stat().st_size > 1000
    target = tmp_path / "records.npz"
    gpu_window.export_records(target)
    qtbot.waitUntil(lambda: target.exists(), timeout=TIMEOUT_MS)
    with np.load(target, allow_pickle=False) as data:
        assert str(data["backend"]).startswith("gpu:")
        assert data["threadIdx"].shape == (384, 3)
        assert (data["smid"] >= 0).all()
    if os.environ.get("OUT"):
        Path(png).replace(Path(os.environ["OUT"]) / "gpu-map.png")


def test_the_issues_elongated_launch_opens_readable_on_the_gpu(qtbot, gpu_window) -> None:
    # Issue 10, item 9: grid (4096, 16) × (256, 1) on the H200 drew a 262,144 × 16 window as a
    # flat line with a ±100,000 y axis. Now it opens on its first blocks, every row in view.
    rec = _run(qtbot, gpu_window, (4096, 16, 1), (256, 1, 1))
    view = gpu_window.indexMap
    assert rec.window.size[:2] == (262_144, 16)  # the default budget: 4,194,304 threads
    assert view.is_elongated() and view.seeAllButton.isVisible()
    shown = view.plot.vb.viewRect()
    _say("first view", shown)
    assert shown.top() <= 0 and shown.bottom() >= 15  # all 16 rows
    assert shown.width() < 2_000  # a few blocks of 256, not 262,144 columns squeezed into a line
    view.seeAllButton.click()
    qtbot.waitUntil(lambda: view.is_stretched(), timeout=TIMEOUT_MS)
    shown = view.plot.vb.viewRect()
    _say("see all", shown)
    assert shown.left() <= 0 and shown.right() >= 262_143 and shown.bottom() >= 15


def _say(what: str, rect) -> None:  # the numbers docs/BENCHMARKS.md quotes (pytest -s)
    x, y = f"{rect.left():.1f}..{rect.right():.1f}", f"{rect.top():.1f}..{rect.bottom():.1f}"
    print(f"ELONGATED {what}: x {x}, y {y}")
