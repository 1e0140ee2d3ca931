"""Each Try it launches what its step's code and words say, written out by hand here: a Try it
that showed [5, 32] under code that launches [4, 32] would teach the wrong count, and no probe
result would notice (the walk checks what a probe reports, not which launch it was given)."""

from __future__ import annotations

from typing import Any

import pytest

from simtviz.core import lesson


def try_its(section: str) -> list[tuple[str, dict[str, Any]]]:
    return [(t.action, dict(t.params)) for t in lesson.step(section).try_its]


def maps(section: str) -> list[dict[str, Any]]:
    return [params for action, params in try_its(section) if action == "index_map"]


def probe(section: str, name: str) -> dict[str, Any]:
    (found,) = [p for action, p in try_its(section) if action == "probe" and p["probe"] == name]
    return found


@pytest.mark.parametrize(
    ("section", "launches", "threads"),
    [
        ("2.2.2", ((2, 4),), 8),  # count[2, 4]: 2 × 4
        ("2.2.2.2", ((1, 32), (3, 64)), 224),  # [1, 32] then [3, 64]: 32 + 192
        ("2.2.2.2.1", ((4, 32),), 128),  # my_kernel[4, 32]: 4 × 32
        ("2.2.2.2.2", (((3, 2), (8, 4)),), 192),  # [(3, 2), (8, 4)]: 6 blocks × 32
    ],
)
def test_thread_counts_run_the_step_s_launches(section: str, launches: tuple[Any, ...], threads: int) -> None:
    assert probe(section, "thread_count")["launches"] == launches
    (claim,) = [c for c in lesson.step(section).claims if c.key == "threads_ran"]
    assert claim.expect == {"sim": threads, "gpu": threads}


@pytest.mark.parametrize(
    ("section", "grid", "block", "colors"),
    [
        ("2.2.2.2.1", (4, 1, 1), (32, 1, 1), ("blockIdx.x",)),  # the 4 × 32 launch, one row a block
        ("2.2.2.2.2", (3, 2, 1), (8, 4, 1), ("blockIdx.x", "blockIdx.y")),
        ("2.2.2.3", (4, 1, 1), (32, 1, 1), ("threadIdx.x", "blockIdx.x", "global linear index")),
        ("2.2.2.3+", (1, 1, 1), (48, 1, 1), ("thread id in block", "warp", "lane")),  # 32 + 16 lanes
    ],
)
def test_index_maps_show_the_step_s_launch(
    section: str, grid: tuple[int, ...], block: tuple[int, ...], colors: tuple[str, ...]
) -> None:
    (shown,) = maps(section)
    assert (shown["grid"], shown["block"], shown["colors"]) == (grid, block, colors)


def test_the_inspected_thread_is_the_one_the_question_works_out() -> None:
    # "thread 5 of block 2": idx = 5 + 2 × 32 = 69, inside the 4 × 32 launch.
    (shown,) = maps("2.2.2.3")
    assert shown["inspect"] == {"blockIdx": (2, 0, 0), "threadIdx": (5, 0, 0)}
    claims = {c.key: c.expect for c in lesson.step("2.2.2.3").claims}
    assert claims["idx_b2_t5"] == {"sim": 69, "gpu": 69}
    assert claims["distinct_grid1_2d"] == {"sim": 24, "gpu": 24}
    assert claims["grid1_equals_formula_1d"] == {"sim": True, "gpu": True}


def test_the_warp_step_claims_16_threads_in_the_second_warp() -> None:
    # 48 threads: warp 0 has 32, warp 1 the other 16; lanes are threadIdx.x % 32.
    claims = {c.key: c.expect for c in lesson.step("2.2.2.3+").claims}
    assert claims == {
        "second_warp_threads": {"sim": 16, "gpu": 16},
        "lane_is_tid_mod_32": {"sim": True, "gpu": True},
    }


def test_the_chapter_s_vector_add_and_its_2048_thread_launch() -> None:
    # 2.2.5: N = 2^24 + 11 = 16,777,227 with 256-thread blocks, guarded and not; 2.2.6: 2048.
    runs = [params for action, params in try_its("2.2.5") if action == "vecadd"]
    assert runs == [
        {"n": None, "block": 256, "unguarded": False},
        {"n": None, "block": 256, "unguarded": True},
    ]
    assert probe("2.2.5", "bounds_check")["n"] == 2**24 + 11
    # Unguarded, the last block's 256 - 11 = 245 threads write past C.
    (oob,) = [c for c in lesson.step("2.2.5").claims if c.key == "oob_writes"]
    assert oob.expect == {"gpu": 245}
    assert [params for action, params in try_its("2.2.6") if action == "vecadd"] == [
        {"n": None, "block": 2048, "unguarded": False}
    ]


def test_timing_probes_run_with_the_step_s_sizes() -> None:
    assert probe("2.2.3.2", "copy_bandwidth")["mbytes"] == 64
    assert probe("2.2.4", "async_timeline")["hold_ms"] == 50.0


def test_the_jit_step_claims_a_right_answer_everywhere() -> None:
    claims = {c.key: c.expect for c in lesson.step("2.2.2.1").claims}
    assert claims["verified"] == {"sim": True, "gpu": True}
