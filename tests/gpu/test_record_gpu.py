"""On a real GPU: records equal the oracle, the SM and clock registers are real, the driver refuses.

Run as its own process: ``SIMTVIZ_BACKEND=gpu python -m pytest -m gpu``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simtviz.core.launch import LaunchConfig
from simtviz.core.limits import DRIVER_INVALID_VALUE
from simtviz.core.oracle import CHECKED_FIELDS, expected_field
from simtviz.core.window import Window

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def gpu():
    from simtviz.backends.gpu import GpuBackend

    return GpuBackend()


@pytest.mark.parametrize(
    ("grid", "block"),
    [
        (4096, 256),
        (65537, 256),
        ((4, 3), (8, 4)),
        ((64, 64), (16, 16)),
        ((2, 3, 4), (8, 4, 2)),
        ((16, 16, 16), (8, 8, 8)),
    ],
)
def test_records_match_the_oracle(gpu, grid, block) -> None:
    config = LaunchConfig.of(grid, block)
    recording = gpu.to_host(gpu.record(config))
    assert recording.verification.ok, recording.verification.summary()
    for name in CHECKED_FIELDS:
        np.testing.assert_array_equal(
            recording.fields[name], expected_field(name, config, recording.window), err_msg=name
        )
    assert recording.backend.startswith("gpu:")
    assert recording.timings_ms["kernel_ms"] is not None and recording.timings_ms["kernel_ms"] > 0


def test_smid_takes_many_values_in_a_large_launch(gpu) -> None:
    config = LaunchConfig.of(65536, 256)
    recording = gpu.record(config, Window.full(config))  # 2^24 threads: over the default budget
    smids = np.unique(recording.fields["smid"].get())
    sms = gpu.info().limits.multiprocessors
    assert smids.min() >= 0 and smids.max() < sms
    assert len(smids) >= 0.9 * sms, (len(smids), sms)
    # Threads of one block run on one SM.
    per_block = recording.fields["smid"].get().reshape(65536, 256)
    assert (per_block == per_block[:, :1]).all()


def test_start_times_are_sensible(gpu) -> None:
    config = LaunchConfig.of(65536, 256)
    recording = gpu.record(config, Window.full(config))
    t = recording.fields["t_ns"].get().reshape(65536, 256)
    assert (t > 0).all()
    span_ms = (t.max() - t.min()) / 1e6
    assert span_ms < 100, span_ms  # the whole launch starts within a fraction of a second
    # Threads of one warp start together (one instruction, all lanes): same timer value.
    warps = t.reshape(65536, 8, 32)
    assert (warps.max(axis=2) - warps.min(axis=2)).max() < 2_000
    # Early blocks start no later than late blocks (the scheduler hands out blocks in order).
    first = np.median(t[:4096].min(axis=1))
    last = np.median(t[-4096:].min(axis=1))
    assert first <= last
    # The start-order colour field is a dense rank: 0 for the earliest threads.
    order = recording.color_values("start order").get()
    assert order.min() == 0 and order.max() < t.size


@pytest.mark.parametrize(
    ("grid", "block", "limit"),
    [
        ("1", "2048", "2,048 > 1,024"),
        ("1", "1024,2", "2,048 > 1,024"),
        ("1", "1,1,65", "65 > 64"),
        ("1,65536", "1", "65,536 > 65,535"),
        ("2147483648", "1", "2,147,483,648 > 2,147,483,647"),
    ],
)
def test_invalid_launches_exit_3_with_the_drivers_text(tmp_path: Path, capsys, grid, block, limit) -> None:
    from simtviz.cli import run

    code = run(
        ["record", "--grid", grid, "--block", block, "--out", str(tmp_path / "x.npz"), "--backend", "gpu"]
    )
    err = capsys.readouterr().err.splitlines()
    assert code == 3
    assert err[0] == DRIVER_INVALID_VALUE
    assert limit in err[1]


def test_zero_blocks_exit_3_with_numbas_text(tmp_path: Path, capsys) -> None:
    from simtviz.cli import run

    code = run(
        ["record", "--grid", "0", "--block", "32", "--out", str(tmp_path / "x.npz"), "--backend", "gpu"]
    )
    err = capsys.readouterr().err
    assert code == 3
    assert "LaunchConfig.grid values must be >= 1" in err


def test_record_cli_on_the_gpu(tmp_path: Path, capsys) -> None:
    from simtviz.cli import run

    out = tmp_path / "r.npz"
    assert run(["record", "--grid", "4,3", "--block", "8,4", "--out", str(out), "--backend", "gpu"]) == 0
    with np.load(out) as data:
        assert str(data["backend"]).startswith("gpu:")
        assert (data["smid"] >= 0).all() and (data["t_ns"] > 0).all()


def test_device_verification_agrees_with_the_oracle_and_catches_corruption(gpu) -> None:
    import cupy as cp

    from simtviz.core.oracle import verify

    config = LaunchConfig.of((8, 4, 2), (8, 4, 4))
    recording = gpu.record(config)
    assert recording.verification.ok
    recording.fields["blockIdx"][100, 2] = 9
    recording.fields["laneid"][5] = -1  # as if thread 5 never wrote its lane
    from simtviz.backends.record.gpu import verify_on_device

    fast = verify_on_device(cp, recording.fields, config, recording.window, gpu.limits().multiprocessors)
    reference = verify(recording.fields, config, recording.window, xp=cp)
    assert fast.matched == reference.matched == recording.threads - 2
    assert fast.mismatched_by_field == reference.mismatched_by_field
    assert fast.first_mismatch == reference.first_mismatch
    assert fast.first_mismatch.row == 5 and fast.first_mismatch.field == "laneid"


def test_image_comes_back_through_pinned_memory_as_int32(gpu) -> None:
    recording = gpu.record(LaunchConfig.of((64, 64), (16, 16)))
    image = recording.image("global linear index")
    assert image.dtype == np.int32 and image.shape == (1024, 1024)
    assert image[3, 5] == 3 * 1024 + 5


def test_gpu_out_of_memory_is_refused_in_words(tmp_path: Path, capsys) -> None:
    from simtviz.cli import run

    # 2^31 threads × 92 bytes = 184 GiB: more than the card has. Exit 4, the app keeps working.
    args = ["--grid", "8388608", "--block", "256", "--budget", str(2**31), "--force"]
    code = run(["record", *args, "--out", str(tmp_path / "x.npz"), "--backend", "gpu"])
    err = capsys.readouterr().err
    assert code == 4 and "too little free memory" in err and "Traceback" not in err
    assert (
        run(["record", "--grid", "4", "--block", "32", "--out", str(tmp_path / "y.npz"), "--backend", "gpu"])
        == 0
    )


def test_a_dimension_too_large_for_the_driver_is_rejected_in_words(tmp_path: Path, capsys) -> None:
    from simtviz.cli import run

    code = run(
        ["record", "--grid", str(2**32), "--block", "1", "--out", str(tmp_path / "x.npz"), "--backend", "gpu"]
    )
    err = capsys.readouterr().err.splitlines()
    assert code == 3
    assert "too large" in err[0]  # numba's own OverflowError text, verbatim
    assert "4,294,967,296 > 2,147,483,647" in err[1]


def test_the_first_launch_of_a_process_reports_kernel_time_without_the_compile(tmp_path: Path) -> None:
    import os
    import re
    import subprocess
    import sys

    env = {**os.environ, "SIMTVIZ_BACKEND": "gpu"}
    args = ["record", "--grid", "64", "--block", "256", "--out", str(tmp_path / "x.npz")]
    proc = subprocess.run(
        [sys.executable, "-W", "ignore", "-m", "simtviz", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    # The threads' own clock and the CUDA events: neither counts the JIT compile (~900 ms).
    for pattern in (r"kernel ran ([0-9.]+) (µs|ms)", r"CUDA events ([0-9.]+) (µs|ms)"):
        found = re.search(pattern, proc.stdout)
        assert found is not None, proc.stdout
        kernel_ms = float(found.group(1)) / (1000 if found.group(2) == "µs" else 1)
        assert kernel_ms < 50, proc.stdout
