"""What the index and warp probes show when a kernel leaves slots unwritten, hand-worked: -1 (no
index, no warp, no lane), never a value a thread could have stored; and the warp probe launches
exactly one block. Stand-in kernels replace the lesson's, so every slot's origin is known."""

from __future__ import annotations

import pytest
from numba import cuda

import simtviz.kernels.lesson as lesson_kernels
from simtviz.backends.lesson import both


@pytest.fixture(autouse=True)
def _simulator(backend_kind: str) -> None:
    if backend_kind != "sim":
        pytest.skip("simulator test")


@cuda.jit
def _writes_nothing(formula, grid1):
    pass


@cuda.jit
def _first_warp_writes_the_grid_width(warp, lane):
    # Threads 0..31 store how many blocks the launch has; lanes are left unwritten.
    t = cuda.threadIdx.x
    if t < 32:
        warp[t] = cuda.gridDim.x


def test_an_index_no_thread_stored_reads_minus_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lesson_kernels, "index_1d", _writes_nothing)
    result = both.index_formula()
    # Slot 69 (block 2, thread 5) was never written: -1, not an index 0..127.
    assert result["idx_b2_t5"] == -1
    # Neither array was written: both still all -1, so they are equal.
    assert result["grid1_equals_formula_1d"] is True


def test_the_warp_probe_launches_one_block_and_shows_unwritten_threads_as_minus_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(lesson_kernels, "warp_and_lane", _first_warp_writes_the_grid_width)
    result = both.warps(block=48)
    # One block: gridDim.x = 1 in threads 0..31; threads 32..47 wrote nothing: 32 ones, 16 × -1.
    assert result["warp_of_thread"] == [1] * 32 + [-1] * 16
    assert result["lane_of_thread"] == [-1] * 48
    # Distinct warp values {1, -1}: 2; the value 1 appears 32 times.
    assert (result["warps"], result["second_warp_threads"]) == (2, 32)
    assert result["lane_is_tid_mod_32"] is False
