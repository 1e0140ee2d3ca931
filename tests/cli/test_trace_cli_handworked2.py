"""`simtviz trace`: the failing kernel's own words reach the student verbatim, after the file's
name, even when they contain "simtviz: " themselves (one run on the simulator)."""

from __future__ import annotations

from pathlib import Path

import pytest

from simtviz.cli import run

# Line 8 raises in exactly one thread: grid(1) = 6 = blockIdx.x 1 × blockDim.x 4 + threadIdx.x 2.
RAISES = """from numba import cuda


@cuda.jit
def k(A):
    i = cuda.grid(1)
    if i == 6:
        raise ValueError("simtviz: boom")
    A[i] = 1.0
"""


def test_the_kernels_message_is_kept_whole_after_the_files_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    f = tmp_path / "boom.py"
    f.write_text(RAISES)
    code = run(["trace", str(f), "--grid", "2", "--block", "4", "--arg", "A=float32[8]", "--backend", "sim"])
    err = capsys.readouterr().err
    assert code == 1  # the kernel failed on the device
    # The CLI's own "simtviz: " gets the file's name; the student's "simtviz: boom" is left as written.
    assert err.splitlines() == [
        f"simtviz: {f}, line 8: ValueError: blockIdx=(1, 0, 0), threadIdx=(2, 0, 0): simtviz: boom"
    ]
