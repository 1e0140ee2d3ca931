"""The command line under a careless student's probes (issue 24): words and exit 2, never a
traceback, a hang or a silent default. Each case was a traceback, a hang or exit 0 before."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from simtviz.cli import run

TRACE = ["trace", "--grid", "1", "--block", "32", "--arg", "A=float32[32]"]
GOOD = """from numba import cuda


@cuda.jit
def k(A):
    i = cuda.grid(1)
    if i < A.shape[0]:
        A[i] = 1.0
"""


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = run(list(argv))
    out = capsys.readouterr()
    assert "Traceback" not in out.err + out.out
    return code, out.err


def test_a_fifo_as_the_kernel_file_is_refused_at_once(tmp_path: Path, capsys) -> None:
    fifo = tmp_path / "k.py"
    os.mkfifo(fifo)
    result: list[int] = []
    t = threading.Thread(target=lambda: result.append(run([*TRACE[:1], str(fifo), *TRACE[1:]])), daemon=True)
    started = time.monotonic()
    t.start()
    t.join(5)
    if t.is_alive():  # unblock the reader so the test process can end
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        pytest.fail("trace waited on a FIFO")
    assert result == [2] and time.monotonic() - started < 5
    assert "is a pipe" in capsys.readouterr().err


def test_a_kernel_file_over_1_mb_is_refused_in_words(tmp_path: Path, capsys) -> None:
    big = tmp_path / "k.py"
    big.write_text(GOOD + "#" * 1_100_000 + "\n")  # 1.1 MB > the 1 MB cap
    code, err = cli(capsys, TRACE[0], str(big), *TRACE[1:])
    assert code == 2 and "1.0 MB" in err
