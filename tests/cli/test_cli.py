"""`simtviz record` and `simtviz devices` as docs/CONTRACT.md states them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from simtviz.cli import run
from simtviz.core.limits import DRIVER_INVALID_VALUE
from simtviz.core.recording import load_npz


def test_record_saves_every_thread_with_the_contracts_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.npz"
    assert run(["record", "--grid", "4,3", "--block", "8,4", "--out", str(out), "--backend", "sim"]) == 0
    assert "384 of 384 threads match" in capsys.readouterr().out
    with np.load(out) as data:
        n = 384
        expected = {
            "threadIdx": ((n, 3), np.int32),
            "blockIdx": ((n, 3), np.int32),
            "blockDim": ((3,), np.int64),
            "gridDim": ((3,), np.int64),
            "grid1": ((n,), np.int64),
            "grid2": ((n, 2), np.int64),
            "grid3": ((n, 3), np.int64),
            "laneid": ((n,), np.int32),
            "warp": ((n,), np.int32),
            "smid": ((n,), np.int32),
            "t_ns": ((n,), np.int64),
        }
        for key, (shape, dtype) in expected.items():
            assert data[key].shape == shape, key
            assert data[key].dtype == dtype, key
        assert str(data["backend"]) == "sim"
        assert tuple(data["gridDim"]) == (4, 3, 1) and tuple(data["blockDim"]) == (8, 4, 1)
        assert (data["smid"] == -1).all()
    assert load_npz(out).verification.ok


def test_2048_threads_per_block_exits_3_with_the_drivers_text_fast(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start = time.perf_counter()
    code = run(
        ["record", "--grid", "2048", "--block", "2048", "--out", str(tmp_path / "x.npz"), "--backend", "sim"]
    )
    assert time.perf_counter() - start < 0.5
    assert code == 3
    err = capsys.readouterr().err.splitlines()
    assert err[0] == DRIVER_INVALID_VALUE
    assert "2,048 > 1,024" in err[1]
    assert not (tmp_path / "x.npz").exists()


@pytest.mark.parametrize(
    ("grid", "block", "code"),
    [
        ("abc", "32", 2),
        ("-4", "32", 2),
        ("1,2,3,4", "32", 2),
        ("0", "32", 3),
        ("4", "1024,2", 3),
        ("4", "1,1,65", 3),
        ("1,65536", "1", 3),
        ("2147483648", "1", 3),
        ("1024", "1024", 4),
    ],
)
def test_exit_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], grid: str, block: str, code: int
) -> None:
    assert (
        run(
            ["record", "--grid", grid, "--block", block, "--out", str(tmp_path / "x.npz"), "--backend", "sim"]
        )
        == code
    )
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) in (1, 2)


def test_a_long_simulator_record_says_how_to_force_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 1,048,576 threads at 3,000 simulated threads a second: 349.53 s, "about 6 min".
    code = run(
        ["record", "--grid", "1024", "--block", "1024", "--out", str(tmp_path / "x.npz"), "--backend", "sim"]
    )
    assert code == 4
    assert capsys.readouterr().err.strip() == (
        "simtviz: 1,048,576 threads would take about 6 min on the CUDA simulator "
        "(it runs up to 131,072 without asking); use --force to run it anyway"
    )


def test_unknown_backend_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["devices", "--backend", "tpu"]) == 2
    assert "tpu" in capsys.readouterr().err


def test_devices_json_lists_the_simulator_limits(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["devices", "--json", "--backend", "sim"]) == 0
    entries = json.loads(capsys.readouterr().out)
    sim = next(e for e in entries if e["backend"] == "sim")
    assert sim["selected"] and sim["available"]
    assert sim["limits"]["max_threads_per_block"] == 1024
    assert sim["limits"]["max_grid"] == [2**31 - 1, 65535, 65535]


def simtviz_in_a_fresh_process(backend: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m simtviz ARGS`` as a student runs it, with numba not yet decided."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["SIMTVIZ_BACKEND"] = backend
    return subprocess.run(
        [sys.executable, "-m", "simtviz", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_python_dash_m_in_a_fresh_process(tmp_path: Path) -> None:
    """The real entry point: exit code and stderr, no traceback."""
    proc = simtviz_in_a_fresh_process(
        "sim", "record", "--grid", "2048", "--block", "2048", "--out", str(tmp_path / "x.npz")
    )
    assert proc.returncode == 3
    assert proc.stderr.splitlines()[0] == DRIVER_INVALID_VALUE
    assert "Traceback" not in proc.stderr


def test_asking_for_the_gpu_without_one_says_so(tmp_path: Path) -> None:
    proc = simtviz_in_a_fresh_process(
        "gpu", "record", "--grid", "4", "--block", "32", "--out", str(tmp_path / "x.npz")
    )
    if proc.returncode == 0:
        pytest.skip("this machine has a GPU")
    assert proc.returncode == 3
    assert "GPU" in proc.stderr and "--backend sim" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_launch_over_the_budget_records_exactly_the_window(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "w.npz"
    code = run(
        [
            "record",
            "--grid",
            "8,8",
            "--block",
            "8,8",
            "--budget",
            "1024",
            "--out",
            str(out),
            "--backend",
            "sim",
        ]
    )
    text = capsys.readouterr().out
    assert code == 0
    assert "recording 1,024 of 4,096 threads: window x 0–31, y 0–31" in text
    assert "1,024 of 1,024 threads match" in text
    recording = load_npz(out)
    assert recording.threads == 1024 and recording.verification.ok
    xy = recording.fields["grid2"]
    assert xy[:, 0].max() == 31 and xy[:, 1].max() == 31  # only the window's threads wrote
