"""`simtviz vecadd` on the CUDA simulator (the issue's own command on the emulator), as
docs/CONTRACT.md and issue 4 state it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from simtviz.cli import run
from simtviz.core.limits import DRIVER_INVALID_VALUE
from simtviz.core.vecadd import EXTRA_JSON_FIELDS, GPU_WOULD_NOT_RAISE, JSON_FIELDS

GPU_ONLY = ("kernel_ms", "launch_overhead_us", "bandwidth_GBps", "copy_GBps", "cupy_ms")


def last_json(out: str) -> dict:
    return json.loads(out.strip().splitlines()[-1])


def test_the_issues_command_verifies_with_grid_391() -> None:
    # The must-show, exactly as a user types it, in its own process (≈100,000 threads), on the
    # emulator: what `auto` runs without a GPU, and a second rather than the simulator's 40 s
    # (tests/emu/ pins the emulator to the simulator; the simulator's JSON is checked below).
    env = dict(os.environ, SIMTVIZ_BACKEND="emu")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "simtviz",
            "vecadd",
            "--backend",
            "emu",
            "--n",
            "100003",
            "--block",
            "256",
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = last_json(proc.stdout)
    assert list(data) == list(JSON_FIELDS + EXTRA_JSON_FIELDS)  # the contract's keys first, in order
    assert data["verified"] is True and data["grid"] == 391 and data["n"] == 100003 and data["block"] == 256
    assert data["backend"] == "emu" and data["dtype"] == "float64" and data["guarded"] is True
    assert all(data[k] is None for k in GPU_ONLY)
    assert data["oob_writes"] == 0 and data["max_abs_err"] == 0.0
    assert isinstance(data["numpy_ms"], float)


def test_text_mode_ends_with_test_succeeded(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["vecadd", "--backend", "sim", "--n", "1011"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("Test succeeded")
    assert "vecadd[4, 256]" in out and "13 idle threads" in out and "CPU-simulator wall-clock" in out


def test_default_n_in_the_simulator_is_small(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["vecadd", "--backend", "sim", "--json"]) == 0
    data = last_json(capsys.readouterr().out)
    assert data["n"] == 2**12 + 11 and data["grid"] == 17  # 4,107 = 16 × 256 + 11: a partial last block
    assert list(data) == list(JSON_FIELDS + EXTRA_JSON_FIELDS)  # the contract's keys first, in order
    assert data["verified"] is True and data["block"] == 256
    assert data["backend"] == "sim" and data["dtype"] == "float64" and data["guarded"] is True
    assert all(data[k] is None for k in GPU_ONLY)
    assert data["oob_writes"] == 0 and data["max_abs_err"] == 0.0
    assert isinstance(data["numpy_ms"], float)


def test_block_2048_exits_3_with_the_drivers_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["vecadd", "--backend", "sim", "--block", "2048"]) == 3
    err = capsys.readouterr().err.splitlines()
    assert err[0] == DRIVER_INVALID_VALUE
    assert "2,048 > 1,024" in err[1]
    assert "Traceback" not in "\n".join(err)


def test_block_0_exits_3_with_numbas_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["vecadd", "--backend", "sim", "--block", "0"]) == 3
    assert capsys.readouterr().err.startswith("LaunchConfig.grid values must be >= 1")


def test_unguarded_in_the_simulator_exits_1_and_says_a_gpu_would_not_raise(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(["vecadd", "--backend", "sim", "--n", "1011", "--unguarded", "--json"]) == 1
    captured = capsys.readouterr()
    data = last_json(captured.out)
    assert list(data) == list(JSON_FIELDS + EXTRA_JSON_FIELDS)  # the contract's keys first, in order
    assert data["verified"] is False and data["guarded"] is False
    assert "IndexError" in captured.err and GPU_WOULD_NOT_RAISE in captured.err


def test_unguarded_text_mode_reports_the_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["vecadd", "--backend", "sim", "--n", "300", "--unguarded"]) == 1
    out = capsys.readouterr().out
    assert "IndexError" in out and "A GPU would not raise" in out and out.rstrip().endswith("Test failed")


def test_a_long_simulator_run_needs_force(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["vecadd", "--backend", "sim", "--n", "10000000"]) == 4
    err = capsys.readouterr().err
    assert "--force" in err and "10,000,128 simulated threads" in err


def test_sweep_reports_every_block_size(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["vecadd", "--backend", "sim", "--n", "100", "--sweep", "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    rows = [json.loads(line)["sweep"] for line in lines[:-1]]
    assert [r["block"] for r in rows] == [32, 64, 128, 256, 512, 1024]
    assert [r["idle_threads"] for r in rows] == [28, 28, 28, 156, 412, 924]
    assert all(r["bandwidth_GBps"] is None and r["sim_wall_ms"] > 0 for r in rows)
    assert list(json.loads(lines[-1])) == list(JSON_FIELDS + EXTRA_JSON_FIELDS)


def test_bad_numbers_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["vecadd", "--backend", "sim", "--n", "lots"]) == 2


def test_unguarded_text_mode_explains_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["vecadd", "--backend", "sim", "--n", "300", "--unguarded"]) == 1
    captured = capsys.readouterr()
    assert (captured.out + captured.err).count(GPU_WOULD_NOT_RAISE) == 1
    assert "out-of-bounds writes     0" not in captured.out


def test_unguarded_sweep_on_the_simulator_says_why_there_is_none(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["vecadd", "--backend", "sim", "--n", "300", "--unguarded", "--sweep"]) == 1
    out = capsys.readouterr().out
    assert "No block-size sweep: the unguarded kernel raised IndexError" in out


def test_unguarded_json_on_the_simulator_has_null_oob_writes(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["vecadd", "--backend", "sim", "--n", "300", "--unguarded", "--json"]) == 1
    data = last_json(capsys.readouterr().out)
    assert data["oob_writes"] is None  # not measured: the simulator stopped at the first bad index


def test_a_long_simulator_run_shows_progress_on_stderr(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from simtviz.cli import progress

    monkeypatch.setattr(progress, "SHOW_AFTER_S", 0.0)  # as if N were 100,003 (37 s)
    assert run(["vecadd", "--backend", "sim", "--n", "1011", "--json"]) == 0
    captured = capsys.readouterr()
    assert "vecadd: 1,024 threads on the CUDA simulator, about" in captured.err
    assert "100%" in captured.err
    assert last_json(captured.out)["verified"] is True  # stdout keeps only the result


def test_a_short_simulator_run_prints_no_progress(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["vecadd", "--backend", "sim", "--n", "300"]) == 0
    assert capsys.readouterr().err == ""
