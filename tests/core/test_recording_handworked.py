"""A Recording's planes, pickling, device-to-host copies and files, with hand-worked values."""

from __future__ import annotations

import pickle
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from simtviz.backends.sim import SimBackend
from simtviz.core.errors import RecordFileError
from simtviz.core.launch import LaunchConfig
from simtviz.core.recording import COLOR_FIELDS, GPU_ONLY_FIELDS, Recording, load_npz
from simtviz.core.schema import allocate
from simtviz.core.window import Window


class DeviceArray(np.ndarray):
    """A NumPy array posing as a CuPy one (``.get()`` copies to the host)."""

    def get(self) -> np.ndarray:
        return np.array(self)


FAKE_XP = SimpleNamespace(
    int32=np.int32,
    int64=np.int64,
    ascontiguousarray=lambda a: np.ascontiguousarray(a).view(DeviceArray),
)


def device_recording(to_host=None) -> Recording:  # type: ignore[no-untyped-def]
    config = LaunchConfig.of(1, 4)
    fields = {k: v.view(DeviceArray) for k, v in allocate(4).items()}
    return Recording(config, Window.full(config), fields, "gpu:test", xp=FAKE_XP, to_host=to_host)


def test_the_map_tables() -> None:
    assert COLOR_FIELDS["warp"] is True and COLOR_FIELDS["lane"] is False
    assert GPU_ONLY_FIELDS == ("SM", "start order")


@pytest.mark.parametrize(
    ("values", "dtype"),
    [
        ([0, 2**31 - 1], np.int32),  # fits int32: halved for the copy
        ([-(2**31), 5], np.int32),
        ([0, 2**31], np.int64),  # one past int32
        ([-(2**31) - 1, 0], np.int64),
    ],
)
def test_a_device_plane_crosses_as_int32_when_it_fits(values, dtype) -> None:
    rec = device_recording()
    plane = np.array(values, dtype=np.int64).view(DeviceArray)
    host = rec.plane_to_host(plane)
    assert host.dtype == dtype and host.tolist() == values
    assert rec.plane_to_host(np.zeros(0, dtype=np.int64).view(DeviceArray)).size == 0


def test_a_device_plane_goes_through_the_backends_copy() -> None:
    copies: list[np.ndarray] = []

    def pinned(a):  # type: ignore[no-untyped-def]
        copies.append(a)
        return np.array(a) + 100

    rec = device_recording(pinned)
    assert rec.plane_to_host(np.array([1, 2], dtype=np.int64).view(DeviceArray)).tolist() == [101, 102]
    assert len(copies) == 1


def test_only_host_recordings_pickle() -> None:
    rec = SimBackend().record(LaunchConfig.of(2, 4))
    back = pickle.loads(pickle.dumps(rec))
    assert back.config == rec.config and back.window == rec.window and back.backend == "sim"
    assert back.thread_at(5) == rec.thread_at(5) and back.verification == rec.verification
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(device_recording())
    host_with_copy = Recording(rec.config, rec.window, rec.fields, "sim", to_host=np.asarray)
    with pytest.raises(TypeError):
        pickle.dumps(host_with_copy)


def test_plane_bounds_of_a_window_with_more_rows_than_planes() -> None:
    config = LaunchConfig.of((1, 1, 1), (2, 3, 2))  # 2 planes of 3 rows × 2 columns
    rec = SimBackend().record(config)
    assert rec.plane_shape() == (2, 3, 2)
    assert rec.image("threadIdx.z", 1).tolist() == [[1, 1], [1, 1], [1, 1]]
    with pytest.raises(IndexError, match=r"z-plane 2 is outside 0\.\.1"):
        rec.image("lane", 2)


def test_npz_compression_up_to_2_to_the_20_threads(tmp_path: Path) -> None:
    import zipfile

    config = LaunchConfig.of(1 << 11, 1 << 10)
    fields = allocate(1)
    used = []
    for threads in (1 << 20, (1 << 20) + 1):
        rec = Recording(config, Window((0, 0, 0), (threads, 1, 1)), fields, "sim")
        path = rec.save_npz(tmp_path / f"{threads}.npz")
        assert path == tmp_path / f"{threads}.npz"
        with zipfile.ZipFile(path) as zf:
            used.append({info.compress_type for info in zf.infolist()})
    assert used == [{zipfile.ZIP_DEFLATED}, {zipfile.ZIP_STORED}]


def test_files_round_trip(tmp_path: Path) -> None:
    config = LaunchConfig.of((2, 3, 4), (5, 4, 3))
    window = Window((3, 4, 5), (4, 3, 2))
    rec = SimBackend().record(config, window)
    path = rec.save_npz(tmp_path / "r.npz")
    back = load_npz(path)
    assert (back.config, back.window, back.backend) == (config, window, "sim")
    assert back.verification.ok and back.thread_at(23)["grid3"] == (6, 6, 6)
    csv = rec.save_csv(tmp_path / "r.csv")
    assert csv == tmp_path / "r.csv"
    # Row 0 is thread (3, 4, 5): threadIdx (3, 0, 2), blockIdx (0, 1, 1), grid1 3; thread id
    # 3 + 0 + 2 × 20 = 43: lane 11, warp 1.
    assert csv.read_text().splitlines()[1] == "3,0,2,0,1,1,3,3,4,3,4,5,11,1,-1,-1"


def test_a_file_without_a_window_is_the_whole_launch(tmp_path: Path) -> None:
    rec = SimBackend().record(LaunchConfig.of(2, 4))
    arrays = {**rec.fields, "blockDim": np.array([4, 1, 1]), "gridDim": np.array([2, 1, 1]), "backend": "sim"}
    np.savez(tmp_path / "old.npz", **arrays)
    back = load_npz(tmp_path / "old.npz")
    assert back.window == Window((0, 0, 0), (8, 1, 1)) and back.verification.ok


def test_a_file_holding_python_objects_is_refused(tmp_path: Path) -> None:
    rec = SimBackend().record(LaunchConfig.of(2, 4))
    arrays = {**rec.fields, "blockDim": np.array([4, 1, 1], dtype=object), "gridDim": np.array([2, 1, 1])}
    np.savez(tmp_path / "evil.npz", backend="sim", **arrays)
    with pytest.raises(RecordFileError, match="blockDim holds Python objects, which simtviz never loads"):
        load_npz(tmp_path / "evil.npz")


def test_a_thread_becomes_one_map_cell_and_that_cell_reads_it_back() -> None:
    # 1-D, 4 blocks of 32, window of blocks 1..2 (threads 32..95): thread 70 is block 2, lane 6;
    # relative x = 70 - 32 = 38, so row 38 // 32 = 1 and column 38 % 32 = 6.
    config = LaunchConfig.of(4, 32)
    rec = Recording(config, Window((32, 0, 0), (64, 1, 1)), allocate(64), "sim")
    assert rec.cell_of((70, 0, 0)) == (0, 1, 6)
    assert rec.row_of(0, 1, 6) == 38  # rows are x fastest: 1 · 32 + 6
    assert rec.cell_of((31, 0, 0)) is None and rec.cell_of((96, 0, 0)) is None  # outside the window
    # 2-D, grid (3, 2) of blocks (8, 4): the whole 24 × 8 launch; thread (11, 6) is column 11, row 6.
    config = LaunchConfig.of((3, 2), (8, 4))
    rec = Recording(config, Window.full(config), allocate(192), "sim")
    assert rec.cell_of((11, 6, 0)) == (0, 6, 11)
    assert rec.row_of(0, 6, 11) == 6 * 24 + 11  # 155
