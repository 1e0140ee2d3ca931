"""GPU records stay on the device: the map's image and single threads come through worker jobs.

A fake GPU backend (``fake_backends``) stands in for CuPy; its arrays log any use on the GUI thread.
"""

from __future__ import annotations

import numpy as np
import pytest
from fake_backends import LOG, FakeGpuBackend
from PySide6.QtWidgets import QLabel
from qt_helpers import RUN_TIMEOUT_MS, press_run, set_launch

from simtviz.core.launch import LaunchConfig
from simtviz.core.oracle import expected_field
from simtviz.core.recording import load_npz
from simtviz.core.window import Window
from simtviz.qt.main_window import MainWindow
from simtviz.qt.map import Cell


@pytest.fixture
def gpu_window(qtbot, settings_file):
    LOG.reset()
    w = MainWindow(settings=settings_file, backend_factory=FakeGpuBackend)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: w.session.backend is not None, timeout=RUN_TIMEOUT_MS)
    yield w
    w.close()


def run_on_fake_gpu(qtbot, w, grid, block):
    set_launch(w, grid, block)
    press_run(qtbot, w)
    config = LaunchConfig.of(grid, block)
    qtbot.waitUntil(
        lambda: w.recording is not None and w.recording.config == config and not w.busy,
        timeout=RUN_TIMEOUT_MS,
    )
    qtbot.waitUntil(lambda: w.indexMap.current_image() is not None and not w.indexMap.loading())
    return w.recording


def linear(config: LaunchConfig, window: Window) -> np.ndarray:
    g = expected_field("grid3", config, window)
    ex, ey, _ = config.extent
    return g[:, 0] + g[:, 1] * ex + g[:, 2] * ex * ey


def test_map_image_and_inspector_come_from_the_worker(qtbot, gpu_window, tmp_path) -> None:
    w = gpu_window
    assert "Fake GPU" in w.findChild(QLabel, "backendLabel").text()
    rec = run_on_fake_gpu(qtbot, w, (4, 3, 1), (8, 4, 1))
    assert rec.xp is not np, "the record must stay on the (fake) device"
    config = rec.config
    expected = linear(config, rec.window).reshape(12, 32)
    np.testing.assert_array_equal(w.indexMap.current_image(), expected)
    # Only the shown image crossed: 12 × 32 values (and no whole field).
    assert sum(LOG.copied_elements) == 12 * 32

    # Colour by another field: a new image, fetched the same way.
    LOG.copied_elements.clear()
    w.indexMap.set_color_field("blockIdx.y")
    qtbot.waitUntil(lambda: w.indexMap.current_image() is not None and not w.indexMap.loading())
    np.testing.assert_array_equal(
        w.indexMap.current_image(), expected_field("blockIdx", config, rec.window)[:, 1].reshape(12, 32)
    )
    assert sum(LOG.copied_elements) == 12 * 32

    # Hover: a short "…" at once, the thread's values once the worker fetched them.
    cell = Cell(0, 5, 13)  # global x 13, y 5: blockIdx (1, 1), threadIdx (5, 1)
    text = w.indexMap.hover(cell)
    assert "fetching" in text
    qtbot.waitUntil(lambda: "threadIdx = (5, 1, 0)" in w.indexMap.tooltip())
    assert "blockIdx = (1, 1, 0)" in w.indexMap.tooltip()
    assert "SM " in w.indexMap.tooltip()  # a GPU records the SM

    # Pin another cell: the inspector shows it when its record arrives.
    w.indexMap.pin(Cell(0, 11, 31))
    qtbot.waitUntil(lambda: "cuda.grid(2)" in w.inspector.text())
    text = w.inspector.text()
    assert "(31, 11)" in text and "(7, 3, 0)" in text and "(3, 2, 0)" in text
    assert "✗" not in text

    # Export: the records are copied to the host on the worker, the file matches the oracle.
    target = tmp_path / "records.npz"
    w.export_records(target)
    qtbot.waitUntil(target.exists)
    qtbot.waitUntil(lambda: "Saved" in w.statusBar().currentMessage())
    loaded = load_npz(target)
    assert loaded.verification.ok
    np.testing.assert_array_equal(loaded.fields["grid3"], expected_field("grid3", config, rec.window))

    assert LOG.gui_thread_uses == [], LOG.gui_thread_uses


def test_3d_planes_are_fetched_one_by_one(qtbot, gpu_window) -> None:
    w = gpu_window
    rec = run_on_fake_gpu(qtbot, w, (2, 2, 2), (4, 2, 2))
    full = linear(rec.config, rec.window).reshape(4, 4, 8)
    assert sum(LOG.copied_elements) == 4 * 8  # one plane of four
    for z in (3, 1):
        w.indexMap.set_plane(z)
        qtbot.waitUntil(lambda: not w.indexMap.loading() and w.indexMap.current_image() is not None)
        np.testing.assert_array_equal(w.indexMap.current_image(), full[z])
    w.indexMap.set_tiled(True)
    qtbot.waitUntil(lambda: not w.indexMap.loading() and len(w.indexMap._tiles) == 4)
    assert LOG.gui_thread_uses == [], LOG.gui_thread_uses


def test_stale_images_are_dropped(qtbot, gpu_window) -> None:
    w = gpu_window
    run_on_fake_gpu(qtbot, w, (4, 3, 1), (8, 4, 1))
    # Three colour changes in a row: only the last one's image is drawn.
    for name in ("warp", "lane", "threadIdx.x"):
        w.indexMap.set_color_field(name)
    qtbot.waitUntil(lambda: not w.indexMap.loading() and w.indexMap.current_image() is not None)
    qtbot.wait(100)
    rec = w.recording
    np.testing.assert_array_equal(
        w.indexMap.current_image(), expected_field("threadIdx", rec.config, rec.window)[:, 0].reshape(12, 32)
    )


def test_snapshot_of_a_device_record_copies_only_the_plane_drawn(qtbot, tmp_path) -> None:
    from simtviz.core.launch import LaunchConfig
    from simtviz.qt.snapshot import render_snapshot

    recording = FakeGpuBackend().record(LaunchConfig.of((4, 3, 2), (8, 4, 2)))
    LOG.reset()
    path = render_snapshot(recording, "global linear index", tmp_path / "snap.png", z=3)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sum(LOG.copied_elements) == 12 * 32  # one 12 × 32 plane, not the record
