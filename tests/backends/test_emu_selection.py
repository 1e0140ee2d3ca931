"""Choosing ``emu``: ``auto`` without a GPU, ``--backend emu`` on every command, ``SIMTVIZ_BACKEND``;
``simtviz devices`` lists it; and every command that runs says which backend ran (the emulator,
or the simulator after one line on stderr that says why: never silently)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from simtviz.backends import selection
from simtviz.cli import COMMANDS, build_parser
from simtviz.cli import run as cli_run
from simtviz.resources import resource_path

FALLBACK = "running it on the CUDA simulator instead (slower)"
TRACE_FALLBACK = "running the traced kernel on the CUDA simulator instead (slower)"


def test_auto_without_a_gpu_means_emu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(selection.ENV_VAR, raising=False)
    monkeypatch.setattr(selection, "gpu_probe", lambda: (False, "no NVIDIA driver (libcuda) found"))
    assert selection.resolve_backend() == "emu"
    assert selection.resolve_backend("auto") == "emu"
    assert selection.resolve_backend("sim") == "sim"  # the reference stays, by name
    monkeypatch.setattr(selection, "gpu_probe", lambda: (True, "1 NVIDIA GPU(s) found"))
    assert selection.resolve_backend() == "gpu"


def test_the_environment_variable_chooses_emu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(selection.ENV_VAR, "EMU")
    assert selection.requested_backend() == "emu" and selection.resolve_backend() == "emu"


# Each command with its required options; a new command needs a line here.
REQUIRED = {
    "record": ["--grid", "2", "--block", "32", "--out", "r.npz"],
    "vecadd": [],
    "trace": ["k.py", "--grid", "1", "--block", "32"],
    "devices": [],
    "snapshot": ["--grid", "2", "--block", "32", "--out", "m.png"],
    "schedule": ["--grid", "2", "--block", "32"],
    "occupancy": ["--block", "256"],
    "exercise": ["check", "saxpy", "k.py"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_takes_backend_emu_before_or_after_it(command: str) -> None:
    parser = build_parser()
    after = parser.parse_args([command, *REQUIRED[command], "--backend", "emu"])
    before = parser.parse_args(["--backend", "emu", command, *REQUIRED[command]])
    assert (after.command, after.backend, before.backend) == (command, "emu", "emu")


def test_activating_emu_imports_no_numba_and_sets_no_simulator() -> None:
    code = (
        "import os, sys; from simtviz.backends import create_backend; "
        "b = create_backend(); print(b.info().backend_id, 'numba' in sys.modules, "
        "os.environ.get('NUMBA_ENABLE_CUDASIM'))"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["SIMTVIZ_BACKEND"] = "emu"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["emu", "False", "None"]


def test_devices_lists_emu_and_marks_it_chosen(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(selection.ENV_VAR, "emu")
    assert cli_run(["devices"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "* emu: CPU emulator (lockstep, NumPy)" in lines
    assert any(line.startswith("  sim: CUDA simulator on the CPU") for line in lines)
    assert cli_run(["devices", "--json"]) == 0
    entries = json.loads(capsys.readouterr().out)
    assert [e["backend"] for e in entries] == ["gpu", "emu", "sim"]
    emu = entries[1]
    assert emu["selected"] and emu["available"] and emu["limits"]["max_threads_per_block"] == 1024
    assert [e["backend"] for e in entries if e["selected"]] == ["emu"]


def _simtviz(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_ENABLE_CUDASIM", "SIMTVIZ_BACKEND")}
    return subprocess.run(
        [sys.executable, "-m", "simtviz", *argv, "--backend", "emu"],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=180,
    )


def _said_which_ran(backend: str, stderr: str, line: str) -> None:
    """The emulator ran it (no fallback line), or the simulator did after the line on stderr."""
    fallback = [text for text in stderr.splitlines() if line in text]
    if backend == "emu":
        assert fallback == [], stderr
    else:
        assert backend == "sim" and len(fallback) == 1, stderr
        assert fallback[0].startswith("simtviz: ") and "CPU emulator cannot" in fallback[0]


def test_record_on_emu_saves_which_backend_ran(tmp_path: Path) -> None:
    out = _simtviz("record", "--grid", "2,2", "--block", "8,4", "--out", "r.npz", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    with np.load(tmp_path / "r.npz") as data:
        backend = str(data["backend"])
        assert len(data["grid1"]) == 2 * 2 * 8 * 4  # 128 threads, every one recorded
    _said_which_ran(backend, out.stderr, FALLBACK)


def test_vecadd_json_on_emu_says_which_backend_ran(tmp_path: Path) -> None:
    out = _simtviz("vecadd", "--n", "1000", "--block", "256", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["verified"] is True and summary["n"] == 1000
    _said_which_ran(summary["backend"], out.stderr, FALLBACK)


def test_trace_json_on_emu_says_which_backend_ran(tmp_path: Path) -> None:
    kernel = resource_path("kernels/index.json").parent / "vecadd_unguarded.py"
    args = ["--arg", "A=float32[1000]:random", "--arg", "B=float32[1000]:random", "--arg", "C=float32[1000]"]
    out = _simtviz("trace", str(kernel), "--grid", "4", "--block", "256", *args, "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    # 1,024 threads over 1,000 elements: 24 extra threads × (load A, load B, store C) = 72.
    assert summary["oob_total"] == 72
    _said_which_ran(summary["backend"], out.stderr, TRACE_FALLBACK)


def test_kernel_time_is_unknown_on_the_cpu_in_the_words_of_the_backend_that_ran() -> None:
    from simtviz.core.run_timings import kernel_time_words

    assert kernel_time_words({}, "emu") == "kernel time unknown (the CPU emulator has no GPU clock)"
    assert kernel_time_words({}, "sim") == "kernel time unknown (the simulator has no GPU clock)"
