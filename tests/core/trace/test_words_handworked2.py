"""The ideal sectors a warp needs (core/trace/words.py ``ideal_sectors``): 32 threads reading
32 side-by-side elements fetch 32 × itemsize bytes, in 32-byte sectors. Worked by hand for
element sizes from 1 byte to 64 (a record of four float64 fields is 32 bytes)."""

from __future__ import annotations

import pytest

from simtviz.core.trace.words import ideal_sectors


@pytest.mark.parametrize(
    ("dtype", "sectors"),
    [
        ("int8", 1),  # 32 × 1 = 32 bytes: 1 sector
        ("float32", 4),  # 32 × 4 = 128 bytes: 4 sectors
        ("complex128", 16),  # 32 × 16 = 512 bytes: 16 sectors
        ("V32", 32),  # 32 × 32 = 1,024 bytes: 32 sectors (a warp of 33 would say 33)
        ("V64", 64),  # 32 × 64 = 2,048 bytes: 64 sectors
    ],
)
def test_a_full_warp_of_side_by_side_elements_needs_32_times_their_size_in_sectors(
    dtype: str, sectors: int
) -> None:
    assert ideal_sectors(dtype) == sectors
