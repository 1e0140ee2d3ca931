"""Where there is no CUDA at all (a MacBook: no CuPy wheel, numba-cuda without its CUDA extra),
every module outside the device code imports, and the app's backend choice and window on ``emu``
never import numba or CuPy. Linux-only calls are guarded for the other platforms."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

# Imports every simtviz module while CuPy, cuda-python and numba cannot be imported, then starts
# the window and the CLI's emulator backend; prints the modules that failed.
BLOCKED = """
import importlib, os, pkgutil, sys
class NoCuda:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"cupy", "cupyx", "cuda", "numba", "numba_cuda", "llvmlite"}:
            raise ImportError(f"no module named {name!r} here")
        return None
sys.meta_path.insert(0, NoCuda())
import simtviz
failed = []
for m in pkgutil.walk_packages(simtviz.__path__, "simtviz."):
    if m.name.startswith("simtviz.kernels.") or m.name.endswith(("__main__", "sim_child", "trace.child")):
        continue  # device code (numba's dialect) and the processes that run it
    try:
        importlib.import_module(m.name)
    except Exception as exc:
        failed.append(f"{m.name}: {exc}")
from PySide6.QtWidgets import QApplication
from simtviz.gui import create_main_window
app = QApplication([])
window = create_main_window("emu")
from simtviz.cli import run
assert run(["devices", "--backend", "emu"]) == 0
import time
deadline = time.monotonic() + 60
while window.session.backend is None and time.monotonic() < deadline:
    app.processEvents()
    time.sleep(0.02)
print("FAILED", failed)
print("BACKEND", type(window.session.backend).__name__)
window.close()
"""


def test_everything_but_device_code_imports_without_cupy_and_numba() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_ENABLE_CUDASIM", "SIMTVIZ_BACKEND")}
    env["QT_QPA_PLATFORM"] = "offscreen"
    out = subprocess.run(
        [sys.executable, "-c", BLOCKED], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    assert "FAILED []" in lines, out.stdout
    assert "BACKEND EmuBackend" in lines
    assert "* emu: CPU emulator (lockstep, NumPy)" in lines


def test_stale_folder_check_never_signals_a_process_on_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    from simtviz.backends import sim_process

    def kill(*_args: object) -> None:  # on Windows, os.kill(pid, 0) terminates the process
        raise AssertionError("os.kill called")

    monkeypatch.setattr(sim_process.os, "name", "nt")
    monkeypatch.setattr(sim_process.os, "kill", kill)
    assert sim_process._pid_alive(12345) is True  # assumed alive: its folder is left alone


# activate("sim") in a fresh process, with or without NVIDIA's cuda-bindings importable.
ACTIVATE = """
import os, sys
if sys.argv[1] == "blocked":
    class NoCudaBindings:
        def find_spec(self, name, path=None, target=None):
            if name == "cuda" or name.startswith("cuda."):
                raise ImportError(f"no module named {name!r} here")
            return None
    sys.meta_path.insert(0, NoCudaBindings())
from simtviz.backends.selection import activate
activate("sim")
print(os.environ.get("NUMBA_ENABLE_CUDASIM"), os.environ.get("NUMBA_CUDA_USE_NVIDIA_BINDING"))
"""


@pytest.mark.parametrize(("bindings", "expected"), [("blocked", ["1", "0"]), ("present", ["1", "None"])])
def test_the_simulator_without_cuda_bindings_uses_numbas_ctypes_ones(
    bindings: str, expected: list[str]
) -> None:
    # numba-cuda (0.20.1 on macOS, no CUDA extra there) refuses to import numba.cuda, even to
    # simulate, without cuda-bindings unless NUMBA_CUDA_USE_NVIDIA_BINDING=0.
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    command = [sys.executable, "-c", ACTIVATE, bindings]
    out = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == expected
