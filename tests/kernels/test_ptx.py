"""CI has no GPU: it proves the real kernels compile by building them to PTX for cc 7.5 and 9.0."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import json, sys
    from numba import cuda
    from simtviz.kernels import registry
    out = {}
    for name, (kernel, signature) in registry.all_kernels().items():
        for cc in [(7, 5), (9, 0)]:
            ptx, _ = cuda.compile_ptx(kernel.py_func, signature, cc=cc)
            out[f"{name}@{cc[0]}{cc[1]}"] = {
                "entry": ".entry" in ptx,
                "smid": "%smid" in ptx,
                "globaltimer": "%globaltimer" in ptx,
                "target": f".target sm_{cc[0]}{cc[1]}" in ptx,
            }
    print(json.dumps(out))
    """
)


@pytest.fixture(scope="module")
def compiled() -> dict[str, dict[str, bool]]:
    import json

    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["SIMTVIZ_BACKEND"] = "gpu"
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_recording_kernel_compiles_with_the_hardware_registers(compiled: dict[str, dict[str, bool]]) -> None:
    for cc in ("75", "90"):
        result = compiled[f"record_threads@{cc}"]
        assert result == {"entry": True, "smid": True, "globaltimer": True, "target": True}


def test_every_registered_kernel_compiles(compiled: dict[str, dict[str, bool]]) -> None:
    assert all(r["entry"] and r["target"] for r in compiled.values())
    assert len(compiled) >= 2
