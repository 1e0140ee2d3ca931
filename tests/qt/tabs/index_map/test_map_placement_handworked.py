"""Where the index map puts a recording window, which z-plane it says it shows, and its exports.

Hand-worked: a window's first cell sits at the window's own coordinates (so the axes read as
cuda.grid values), the z label adds the window's z origin, and the plane is clamped to the planes
a new recording has.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from simtviz.backends.sim import SimBackend
from simtviz.core.files import ExportError
from simtviz.core.launch import LaunchConfig
from simtviz.core.window import Window
from simtviz.qt.map import Cell, IndexMap
from simtviz.qt.tabs.index_map.launch import LaunchPanel

# The recordings are made with numba's simulator in this process, which a GPU run cannot switch to.
pytestmark = pytest.mark.skipif(
    os.environ.get("SIMTVIZ_BACKEND") == "gpu", reason="records with numba's simulator in this process"
)


@pytest.fixture
def index_map(qtbot) -> IndexMap:
    widget = IndexMap()
    qtbot.addWidget(widget)
    widget.resize(600, 400)
    widget.show()
    return widget


def test_a_2d_window_is_drawn_at_its_origin(index_map) -> None:
    config = LaunchConfig.of((8, 8, 1), (8, 8, 1))
    rec = SimBackend().record(config, Window((48, 10, 0), (16, 16, 1)))
    index_map.set_recording(rec)
    # View (48, 10) is the window's first cell; (47, 10) is left of the window.
    assert index_map.cell_at(48, 10) == Cell(0, 0, 0)
    assert index_map.cell_at(63, 25) == Cell(0, 15, 15)
    assert index_map.cell_at(47, 10) is None and index_map.cell_at(48, 9) is None
    assert index_map.thread_of(Cell(0, 0, 0))["grid3"] == (48, 10, 0)
    # Thread (50, 13): blockIdx (6, 1), threadIdx (2, 5).
    t = index_map.thread_of(index_map.cell_at(50, 13))
    assert t["blockIdx"] == (6, 1, 0) and t["threadIdx"] == (2, 5, 0)


def test_a_1d_window_is_drawn_at_its_first_blocks_row(index_map) -> None:
    config = LaunchConfig.of((10, 1, 1), (32, 1, 1))
    rec = SimBackend().record(config, Window((96, 0, 0), (96, 1, 1)))  # blocks 3, 4 and 5
    index_map.set_recording(rec)
    assert index_map.planes() == 1 and index_map.current_image().shape == (3, 32)
    # One row per block: block 3 is drawn at y 3, its thread 0 at x 0.
    assert index_map.cell_at(0, 3) == Cell(0, 0, 0)
    assert index_map.cell_at(0, 2) is None
    assert index_map.thread_of(index_map.cell_at(5, 4))["grid1"] == 4 * 32 + 5


def test_the_z_label_counts_from_the_windows_z_origin(index_map) -> None:
    config = LaunchConfig.of((1, 1, 4), (2, 2, 3))  # z 0 … 11
    rec = SimBackend().record(config, Window((0, 0, 5), (2, 2, 4)))  # planes z 5 … 8
    index_map.set_recording(rec)
    assert index_map.planes() == 4
    index_map.set_plane(2)
    # z 7: blockIdx.z 7 // 3 = 2, threadIdx.z 7 % 3 = 1.
    assert index_map.zLabel.text() == "z = 7  (blockIdx.z 2, threadIdx.z 1)"
    assert index_map.thread_of(Cell(2, 0, 0))["grid3"] == (0, 0, 7)
    index_map.set_plane(3)
    assert index_map.zLabel.text() == "z = 8  (blockIdx.z 2, threadIdx.z 2)"
    with pytest.raises(IndexError):
        index_map.set_plane(4)
    with pytest.raises(IndexError):
        index_map.set_plane(-1)


def test_a_new_recording_with_fewer_planes_clamps_the_plane(index_map) -> None:
    deep = LaunchConfig.of((1, 1, 2), (2, 2, 3))  # 6 planes
    index_map.set_recording(SimBackend().record(deep))
    index_map.set_plane(5)
    assert index_map.zLabel.text() == "z = 5  (blockIdx.z 1, threadIdx.z 2)"
    index_map.set_plane(4)
    shallow = LaunchConfig.of((1, 1, 1), (2, 2, 3))  # 3 planes: the last is 2
    index_map.set_recording(SimBackend().record(shallow))
    assert index_map.plane() == 2
    assert index_map.zSlice.maximum() == 2 and index_map.zSlice.value() == 2
    assert index_map.zLabel.text() == "z = 2  (blockIdx.z 0, threadIdx.z 2)"
    # Fitting planes keep the plane: 2 of 6.
    index_map.set_recording(SimBackend().record(deep))
    assert index_map.plane() == 2


def test_the_launch_panel_never_clamps_a_value(qtbot) -> None:
    panel = LaunchPanel()
    qtbot.addWidget(panel)
    # Past every limit of a device: shown as typed, so the launch is tried and explained.
    config = LaunchConfig.of((70_000, 65_536, 65_536), (2048, 1025, 65))
    panel.set_config(config)
    assert panel.config() == config
    panel.spins["gridX"].setValue(2**31 - 1)
    assert panel.config().grid.x == 2**31 - 1


# --- exports interrupted before they finish leave the old file ----------------------------------


def _replace_fails(monkeypatch) -> None:
    def fail(_src, _dst):  # type: ignore[no-untyped-def]
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)


def test_a_failed_png_export_leaves_the_old_file(index_map, tmp_path: Path, monkeypatch) -> None:
    index_map.set_recording(SimBackend().record(LaunchConfig.of((2, 1, 1), (4, 1, 1))))
    target = tmp_path / "map.png"
    target.write_bytes(b"the old picture")
    _replace_fails(monkeypatch)
    with pytest.raises(ExportError):
        index_map.export_png(target, width=200)
    assert target.read_bytes() == b"the old picture"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["map.png"]


def test_a_png_export_replaces_the_file(index_map, tmp_path: Path) -> None:
    index_map.set_recording(SimBackend().record(LaunchConfig.of((2, 1, 1), (4, 1, 1))))
    target = tmp_path / "map.png"
    target.write_bytes(b"the old picture")
    index_map.export_png(target, width=200)
    assert target.read_bytes().startswith(b"\x89PNG")


def test_a_csv_export_interrupted_mid_write_leaves_the_old_file(tmp_path: Path, monkeypatch) -> None:
    rec = SimBackend().record(LaunchConfig.of((2, 1, 1), (4, 1, 1)))
    target = tmp_path / "threads.csv"
    target.write_text("the old table\n")

    def half_then_interrupt(fh, *_args, **_kwargs):  # type: ignore[no-untyped-def]
        fh.write(b"threadIdx.x,threadIdx.y\n0,")
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savetxt", half_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        rec.save_csv(target)
    assert target.read_text() == "the old table\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["threads.csv"]
    monkeypatch.undo()
    rec.save_csv(target)
    lines = target.read_text().splitlines()
    assert lines[0].startswith("threadIdx.x,threadIdx.y,threadIdx.z,blockIdx.x")
    # Thread 5: block 1, thread 1; grid1 5; lane 1, warp 0; SM and start unknown (-1).
    assert lines[6] == "1,0,0,1,0,0,5,5,0,5,0,0,1,0,-1,-1"


def test_a_failed_npz_export_leaves_the_old_file(tmp_path: Path, monkeypatch) -> None:
    rec = SimBackend().record(LaunchConfig.of((2, 1, 1), (4, 1, 1)))
    target = tmp_path / "r.npz"
    target.write_bytes(b"old")
    _replace_fails(monkeypatch)
    with pytest.raises(ExportError):
        rec.save_npz(target)
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.npz"]
