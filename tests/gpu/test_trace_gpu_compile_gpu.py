"""On a real GPU: a kernel numba-cuda cannot compile is refused by the GPU's own child, with its
line, exactly as on the simulator (tests/backends/trace/test_trace_gpu_compile.py), and the check
costs a kernel that compiles nothing it did not already pay.

Run as its own process:
``SIMTVIZ_BACKEND=gpu python -m pytest -m gpu tests/gpu/test_trace_gpu_compile_gpu.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from simtviz.cli import run

pytestmark = pytest.mark.gpu
DATA = Path(__file__).parent.parent / "data" / "trace"
RANDOM, NORM, FINE = ((DATA / n).read_text() for n in ("noisy.py", "normed.py", "twice.py"))


@pytest.mark.parametrize("backend", ["gpu", "sim"])
def test_random_random_is_refused_on_every_backend_naming_its_line(
    backend: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIMTVIZ_CACHE_DIR", str(tmp_path / "cache"))  # compiled, not remembered
    f = tmp_path / "noisy.py"
    f.write_text(RANDOM)
    code = run(
        ["trace", str(f), "--grid", "1", "--block", "32", "--arg", "a=float32[32]", "--backend", backend]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "noisy.py, line 10: a GPU would not compile this kernel" in err


def test_np_linalg_norm_and_a_fine_kernel_on_the_gpu(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIMTVIZ_CACHE_DIR", str(tmp_path / "cache"))
    f = tmp_path / "normed.py"
    f.write_text(NORM)
    argv = ["--grid", "1", "--block", "32", "--backend", "gpu"]
    code = run(["trace", str(f), *argv, "--arg", "a=float32[32]", "--arg", "out=float32[32]"])
    # Without SciPy numba-cuda refuses np.linalg (a GPU would not compile it); with SciPy it may
    # compile a vector's norm, and the tracer refuses the call: exit 2 on line 9 either way.
    assert code == 2 and "line 9:" in capsys.readouterr().err
    g = tmp_path / "twice.py"
    g.write_text(FINE)
    assert run(["trace", str(g), *argv, "--arg", "a=float32[32]:ones"]) == 0
