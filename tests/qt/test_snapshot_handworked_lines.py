"""``render_snapshot`` by hand: the z-planes it accepts (0 … planes − 1), the plane it draws, and
an image whose height follows a wide map's rows over its columns."""

from __future__ import annotations

import struct

import pytest
from fake_backends import FakeGpuBackend

from simtviz.core.errors import SimtvizError
from simtviz.core.launch import LaunchConfig
from simtviz.qt.map import IndexMap
from simtviz.qt.snapshot import render_snapshot


def png_size(path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])  # IHDR: width, height


def test_z_planes_run_from_0_to_planes_minus_one(qtbot, tmp_path, monkeypatch) -> None:
    # grid (4, 3, 2) of blocks (8, 4, 2): 2 × 2 = 4 z-planes, 0 … 3
    recording = FakeGpuBackend().record(LaunchConfig.of((4, 3, 2), (8, 4, 2)))
    with pytest.raises(SimtvizError, match=r"^--z 4 is outside the launch's z-planes 0\.\.3$"):
        render_snapshot(recording, "global linear index", tmp_path / "a.png", z=4)
    with pytest.raises(SimtvizError, match="outside"):
        render_snapshot(recording, "global linear index", tmp_path / "a.png", z=-1)
    planes: list[int] = []
    original = IndexMap.set_plane
    monkeypatch.setattr(IndexMap, "set_plane", lambda self, z: (planes.append(z), original(self, z))[1])
    render_snapshot(recording, "global linear index", tmp_path / "b.png", z=3)  # the last plane
    assert planes[0] == 3


def test_an_unknown_colour_names_itself(tmp_path) -> None:
    recording = FakeGpuBackend().record(LaunchConfig.of((2, 1, 1), (4, 1, 1)))
    with pytest.raises(SimtvizError, match=r"^unknown colour field 'rainbow'; choose one of: "):
        render_snapshot(recording, "rainbow", tmp_path / "c.png")


def test_a_wide_map_gives_a_wide_image(qtbot, tmp_path) -> None:
    # grid (4, 3) of blocks (8, 4): a 12-row × 32-column map. Height: (1,600 − 220) × 12 / 32
    # + 170 = 517.5 + 170 = 687 px (between 480 and 1,000); width 1,600. The PNG is the map's
    # scene at that width (a few dozen pixels of frame less); rows and columns swapped would
    # reach the 1,000 px cap.
    recording = FakeGpuBackend().record(LaunchConfig.of((4, 3, 1), (8, 4, 1)))
    width, height = png_size(render_snapshot(recording, "blockIdx.x", tmp_path / "wide.png"))
    assert width == 1600
    assert 600 <= height <= 687


def test_a_very_wide_map_keeps_480_pixels_of_height(qtbot, tmp_path) -> None:
    # grid (40, 1) of blocks (32, 2): a 2-row × 1,280-column map. (1,600 − 220) × 2 / 1,280 + 170
    # = 172 px: less than the 480 px floor, so 480 (the PNG a few dozen pixels of frame less).
    recording = FakeGpuBackend().record(LaunchConfig.of((40, 1, 1), (32, 2, 1)))
    assert recording.plane_shape() == (1, 2, 1280)
    width, height = png_size(render_snapshot(recording, "blockIdx.x", tmp_path / "strip.png"))
    assert width == 1600
    assert 430 <= height <= 480
