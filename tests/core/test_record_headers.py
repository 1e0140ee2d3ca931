"""Record files (.npz) are checked from their zip and .npy headers before any member is
decompressed (issue 24, items 2 and 8): a zip bomb, a crafted launch or a pipe is refused with
``RecordFileError`` in words, and nothing larger than a few MB is allocated on the way."""

from __future__ import annotations

import os
import threading
import time
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest

from simtviz.core import load_npz
from simtviz.core.errors import RecordFileError
from simtviz.core.recording import Recording


def good_arrays(tmp: Path) -> dict[str, np.ndarray]:
    """A real 64-thread record (grid 2, block 32) as saved by File → Export."""
    from simtviz.core.launch import LaunchConfig
    from simtviz.core.oracle import expected_field
    from simtviz.core.window import Window

    config = LaunchConfig.of((2, 1, 1), (32, 1, 1))
    window = Window.full(config)
    names = ("threadIdx", "blockIdx", "grid1", "grid2", "grid3", "laneid", "warp")
    fields = {n: expected_field(n, config, window) for n in names}
    fields["smid"] = np.full(window.threads, -1, np.int32)
    fields["t_ns"] = np.full(window.threads, -1, np.int64)
    rec = Recording(config, window, fields, "sim")
    path = rec.save_npz(tmp / "good.npz")
    with np.load(path) as data:
        return dict(data)


def write_npz(path: Path, arrays: dict[str, np.ndarray], raw: dict[str, bytes] | None = None) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for key, value in arrays.items():
            with z.open(f"{key}.npy", "w") as fh:
                np.lib.format.write_array(fh, value, allow_pickle=False)
        for key, data in (raw or {}).items():
            z.writestr(f"{key}.npy", data)
    return path


def bomb_member(shape: tuple[int, ...], dtype: str, payload: int) -> bytes:
    """An .npy whose header claims ``shape`` (GBs) but which holds ``payload`` zero bytes."""
    import io

    buf = io.BytesIO()
    header = {"descr": np.dtype(dtype).str, "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(buf, header)
    return buf.getvalue() + b"\0" * payload


def load_with_peak(path: Path) -> tuple[BaseException | None, int]:
    tracemalloc.start()
    try:
        load_npz(path)
        error: BaseException | None = None
    except BaseException as exc:
        error = exc
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return error, peak


def test_a_member_claiming_6_gb_is_refused_before_any_allocation(tmp_path: Path) -> None:
    arrays = good_arrays(tmp_path)
    del arrays["threadIdx"]
    # 1,500,000,000 × 3 int32 = 18 GB claimed; 1 MB present (compresses to ~1 KB: a zip bomb).
    path = write_npz(
        tmp_path / "bomb.npz", arrays, {"threadIdx": bomb_member((1_500_000_000, 3), "<i4", 1 << 20)}
    )
    error, peak = load_with_peak(path)
    assert isinstance(error, RecordFileError), repr(error)
    assert "threadIdx" in str(error) and "18 GB" in str(error)
    assert peak < 32 << 20  # no member was decompressed into memory


def test_a_record_over_the_size_cap_is_refused_with_its_size(tmp_path: Path) -> None:
    arrays = good_arrays(tmp_path)
    # A consistent record of 2^23 threads: 8,388,608 × 92 bytes = 772 MB > the 386 MB cap
    # (4,194,304 threads × 92 bytes). Each member's header claims its share.
    from simtviz.core.schema import RECORD_SCHEMA

    n = 1 << 23
    raw = {f.name: bomb_member((n, *f.shape), f.dtype, 1024) for f in RECORD_SCHEMA}
    small = {k: arrays[k] for k in ("backend",)}
    small["gridDim"] = np.array([n // 1024, 1, 1], dtype=np.int64)
    small["blockDim"] = np.array([1024, 1, 1], dtype=np.int64)
    error, peak = load_with_peak(write_npz(tmp_path / "huge.npz", small, raw))
    assert isinstance(error, RecordFileError), repr(error)
    assert "772 MB" in str(error) and "386 MB" in str(error)
    assert peak < 32 << 20


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("gridDim", np.array([0, 1, 1]), "gridDim.x is 0"),
        ("gridDim", np.array([1 << 62, 1, 1]), "gridDim.x is 4,611,686,018,427,387,904"),
        ("blockDim", np.array([2048, 1, 1]), "2,048 threads"),
        ("blockDim", np.array([32, 1]), "blockDim must be 3 whole numbers"),
        ("gridDim", np.array([2.5, 1, 1]), "gridDim must be 3 whole numbers"),
        ("gridDim", np.array([1 + 2j, 1, 1]), "gridDim must be 3 whole numbers"),
        ("gridDim", np.array(["a", "b", "c"]), "gridDim must be 3 whole numbers"),
        ("window_origin", np.array([5, 0, 0]), "window"),
        ("window_size", np.array([0, 1, 1]), "window"),
        ("backend", np.zeros((2, 2)), "backend"),
        ("laneid", np.zeros((64, 2), dtype=np.int32), "laneid"),
        ("grid3", np.zeros(64, dtype=np.float64), "grid3"),
    ],
)
def test_crafted_members_are_refused_in_words_at_load(tmp_path: Path, key: str, value, words: str) -> None:
    arrays = good_arrays(tmp_path)
    arrays[key] = value
    with pytest.raises(RecordFileError) as info:
        load_npz(write_npz(tmp_path / "crafted.npz", arrays))
    assert words in str(info.value)


def test_a_structured_dtype_member_raises_only_record_file_error(tmp_path: Path) -> None:
    arrays = good_arrays(tmp_path)
    arrays["gridDim"] = np.zeros(3, dtype=[("a", "<i4"), ("b", "<f8")])
    with pytest.raises(RecordFileError):
        load_npz(write_npz(tmp_path / "structured.npz", arrays))


def test_a_damaged_member_header_raises_only_record_file_error(tmp_path: Path) -> None:
    arrays = good_arrays(tmp_path)
    del arrays["warp"]
    path = write_npz(tmp_path / "bad.npz", arrays, {"warp": b"\x93NUMPY\x01\x00\xff\xffnot a dict"})
    with pytest.raises(RecordFileError) as info:
        load_npz(path)
    assert "warp" in str(info.value)


def test_a_fifo_named_npz_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "r.npz"
    os.mkfifo(fifo)
    outcome: list[BaseException | None] = []

    def load() -> None:
        try:
            load_npz(fifo)
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    t = threading.Thread(target=load, daemon=True)
    started = time.monotonic()
    t.start()
    t.join(5)
    if t.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("load_npz waited on a pipe")
    assert time.monotonic() - started < 5
    assert isinstance(outcome[0], RecordFileError) and "is a pipe" in str(outcome[0])


def test_a_good_record_still_loads(tmp_path: Path) -> None:
    path = write_npz(tmp_path / "ok.npz", good_arrays(tmp_path))
    rec = load_npz(path)
    assert rec.threads == 64 and rec.verification.ok


def test_a_header_claiming_more_than_the_archive_holds_is_refused(tmp_path: Path) -> None:
    arrays = good_arrays(tmp_path)
    del arrays["threadIdx"]
    # 64 × 3 int32 = 768 bytes claimed; 10 bytes present after the header.
    path = write_npz(tmp_path / "short.npz", arrays, {"threadIdx": bomb_member((64, 3), "<i4", 10)})
    with pytest.raises(RecordFileError) as info:
        load_npz(path)
    assert "threadIdx: its header claims 768 bytes" in str(info.value)


def test_a_schedule_file_is_checked_the_same_way(tmp_path: Path) -> None:
    from simtviz.core.schedule import load_npz as load_schedule

    path = write_npz(tmp_path / "s.npz", {}, {"smid": bomb_member((1 << 34,), "<i4", 1 << 16)})
    with pytest.raises(RecordFileError) as info:
        load_schedule(path)
    assert "69 GB" in str(info.value)
    fifo = tmp_path / "f.npz"
    os.mkfifo(fifo)
    with pytest.raises(RecordFileError, match="is a pipe"):
        load_schedule(fifo)


def test_running_out_of_memory_while_checking_is_a_record_file_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import simtviz.core.recording as recording

    def no_memory(*_a: object, **_k: object) -> None:
        raise MemoryError

    monkeypatch.setattr(recording, "verify", no_memory)
    with pytest.raises(RecordFileError, match="does not fit in memory"):
        load_npz(write_npz(tmp_path / "ok.npz", good_arrays(tmp_path)))


@pytest.mark.parametrize("lost", ["window_size", "window_origin"])
def test_half_a_window_is_refused_in_words(tmp_path: Path, lost: str) -> None:
    # A windowed record with one of its two window members gone: "damaged", not KeyError: 'window_size'
    # (the app's Open dialog showed "could not be opened: 'window_size'.").
    arrays = good_arrays(tmp_path)
    arrays["window_origin"] = np.array([0, 0, 0])
    arrays["window_size"] = np.array([64, 1, 1])
    del arrays[lost]
    with pytest.raises(RecordFileError) as info:
        load_npz(write_npz(tmp_path / "half.npz", arrays))
    assert str(info.value).endswith(f"is damaged: it has a window but no {lost}")
