"""On a real GPU, the issue's must-shows for the guide's vecadd (N = 2^24 + 11, block 256).

Run as its own process: ``SIMTVIZ_BACKEND=gpu python -m pytest -m gpu``.
"""

from __future__ import annotations

import json

import pytest

from simtviz.cli import run
from simtviz.core.limits import DRIVER_INVALID_VALUE
from simtviz.core.vecadd import (
    EXTRA_JSON_FIELDS,
    GPU_DEFAULT_N,
    JSON_FIELDS,
    VecaddRequest,
    VecaddResult,
    timing_lines,
)

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def backend():
    from simtviz.backends.gpu import GpuBackend

    return GpuBackend()


@pytest.fixture(scope="module")
def guarded(backend) -> VecaddResult:
    from simtviz.backends.vecadd import run_vecadd

    return run_vecadd(backend, VecaddRequest(GPU_DEFAULT_N, 256, 50, True, sweep=True))


def test_the_guides_program_verifies(guarded: VecaddResult) -> None:
    assert guarded.verified and guarded.grid == 65537
    assert guarded.max_abs_err == 0.0
    assert guarded.oob_writes == 0


def test_kernel_bandwidth_is_at_least_90_percent_of_the_copy(guarded: VecaddResult) -> None:
    assert guarded.bandwidth_GBps is not None and guarded.copy_GBps is not None
    assert guarded.bandwidth_GBps >= 0.9 * guarded.copy_GBps, guarded


def test_the_peak_is_above_the_kernel_and_the_copy(guarded: VecaddResult) -> None:
    # The copy moves the kernel's 3 × N × 8 bytes, and still the kernel beat it on the H200
    # (4,143 against 3,946 GB/s, 2026-12-02): the DRAM peak is the ceiling the app names first.
    assert guarded.bandwidth_GBps is not None and guarded.copy_GBps is not None
    assert guarded.bandwidth_GBps < guarded.peak_GBps
    # H100 SXM 3.35 TB/s, H200 4.8 TB/s: memory clock × bus width × 2 from the device attributes.
    assert guarded.peak_GBps is not None and 2_000 < guarded.peak_GBps < 10_000, guarded
    assert guarded.copy_GBps < guarded.peak_GBps
    line = dict((label, value) for label, value, _how in timing_lines(guarded))["effective bandwidth"]
    assert "TB/s peak" in line and "copy" in line


def test_kernel_is_within_10_percent_of_cupy_add(guarded: VecaddResult) -> None:
    assert guarded.kernel_ms is not None and guarded.cupy_ms is not None
    assert abs(guarded.kernel_ms - guarded.cupy_ms) <= 0.1 * guarded.cupy_ms, guarded


def test_launch_overhead_is_reported_apart_from_the_kernel(guarded: VecaddResult) -> None:
    assert guarded.launch_overhead_us is not None and guarded.launch_overhead_us > 0
    assert guarded.numpy_ms is not None and guarded.numpy_ms > 0
    assert not guarded.notes or not any("ran out of queued work" in note for note in guarded.notes)


def test_sweep_has_every_block_size(guarded: VecaddResult) -> None:
    assert [row.block for row in guarded.sweep] == [32, 64, 128, 256, 512, 1024]
    for row in guarded.sweep:
        assert row.bandwidth_GBps and row.bandwidth_GBps > 100
        assert row.grid * row.block - GPU_DEFAULT_N == row.idle_threads


def test_unguarded_writes_245_elements_past_the_end_and_no_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["vecadd", "--backend", "gpu", "--unguarded", "--repeat", "20", "--json"]) == 0
    data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert list(data) == list(JSON_FIELDS + EXTRA_JSON_FIELDS)  # the contract's keys first, in order
    assert data["oob_writes"] == 245 and data["verified"] is True and data["guarded"] is False


def test_cli_json_on_the_gpu(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["vecadd", "--backend", "gpu", "--json"]) == 0
    data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert data["backend"].startswith("gpu:") and data["n"] == GPU_DEFAULT_N and data["grid"] == 65537
    assert all(data[k] is not None for k in JSON_FIELDS + EXTRA_JSON_FIELDS)


def test_block_2048_is_rejected_by_the_driver(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["vecadd", "--backend", "gpu", "--block", "2048"]) == 3
    err = capsys.readouterr().err.splitlines()
    assert err[0] == DRIVER_INVALID_VALUE
    assert "2,048 > 1,024" in err[1]
