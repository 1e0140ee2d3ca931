"""The shared-memory tables' JSON, key by key, as `simtviz trace --json` writes them (docs/CONTRACT.md):
the typed rows must give back exactly what the dict rows used to be."""

from __future__ import annotations

from simtviz.core.trace.stats import SharedArrayStats, SharedLineStats


def test_a_shared_line_writes_every_key_with_its_space() -> None:
    # 32 loads in 1 request over 2 wavefronts where 1 would do: a 2-way conflict
    row = SharedLineStats(9, "tile", "load", 32, 1, 2, 2.0, 1, 2)
    assert row.as_json() == {
        "line": 9,
        "array": "tile",
        "kind": "load",
        "space": "shared",
        "count": 32,
        "requests": 1,
        "wavefronts": 2,
        "wavefronts_per_request": 2.0,
        "min_wavefronts": 1,
        "max_conflict_degree": 2,
    }
    assert list(row.as_json())[:4] == ["line", "array", "kind", "space"]  # the contract's order


def test_a_shared_array_writes_its_shape_as_a_list() -> None:
    row = SharedArrayStats((16, 17), "float32", 256, 256, 0)
    assert row.as_json() == {"shape": [16, 17], "dtype": "float32", "loads": 256, "stores": 256, "atomics": 0}
