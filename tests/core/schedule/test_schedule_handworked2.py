"""A schedule file's size cap, 256,000,000 bytes of arrays, at exactly its value and one byte
over, on archives made by hand whose .npy headers claim the sizes (no data is written)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pytest

from simtviz.core.errors import RecordFileError
from simtviz.core.schedule import load_npz


def claiming(path: Path, count: int) -> Path:
    """An .npz whose member ``blocks`` claims ``count`` uint8 values (``count`` bytes) and holds none."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "|u1", "fortran_order": False, "shape": (count,)})
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("blocks.npy", header.getvalue())
    return path


def test_one_byte_over_the_cap_is_refused_by_the_cap(tmp_path: Path) -> None:
    # 256,000,001 × 1 byte > 256,000,000: refused for its size, before anything is read.
    path = claiming(tmp_path / "big.npz", 256_000_001)
    with pytest.raises(RecordFileError, match="more than the 256 MB simtviz opens as a schedule"):
        load_npz(path)


def test_exactly_the_cap_passes_it_and_is_then_found_damaged(tmp_path: Path) -> None:
    # 256,000,000 × 1 byte: within the cap; the header's claim is then checked against the
    # archive, which holds only the header's bytes for it.
    path = claiming(tmp_path / "edge.npz", 256_000_000)
    with pytest.raises(RecordFileError) as info:
        load_npz(path)
    assert "is damaged: blocks: its header claims 256 MB (256,000,000 of uint8)" in str(info.value)
    assert "more than the" not in str(info.value)
