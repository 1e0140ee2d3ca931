"""On a machine with a GPU: ``auto`` still means the GPU, and ``--backend emu`` runs the emulator
there (no CUDA context in its process), saying which backend made each result.

Run there as ``SIMTVIZ_BACKEND=gpu python3 -m pytest -m gpu tests/gpu/test_emu_on_gpu_host.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


def _simtviz(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_ENABLE_CUDASIM", "SIMTVIZ_BACKEND")}
    command = [sys.executable, "-m", "simtviz", *argv]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


def test_auto_is_the_gpu_and_emu_is_listed(tmp_path: Path) -> None:
    out = _simtviz("devices", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    entries = {e["backend"]: e for e in json.loads(out.stdout)}
    assert entries["gpu"]["selected"] and entries["gpu"]["available"]
    assert entries["emu"]["available"] and not entries["emu"]["selected"]


def test_record_with_backend_emu_on_a_gpu_host(tmp_path: Path) -> None:
    out = _simtviz(
        "record", "--grid", "4,2", "--block", "16,8", "--out", "r.npz", "--backend", "emu", cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    with np.load(tmp_path / "r.npz") as data:
        backend = str(data["backend"])
        assert len(data["grid1"]) == 4 * 2 * 16 * 8  # 1,024 threads
        assert (data["smid"] == -1).all() and (data["t_ns"] == -1).all()  # no SMs, no clock off the GPU
    said = "CPU emulator cannot" in out.stderr
    assert (backend, said) in {("emu", False), ("sim", True)}, out.stderr
