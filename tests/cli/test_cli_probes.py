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


KERNEL = """
@cuda.jit
def k(A):
    i = cuda.grid(1)
    if i < A.shape[0]:
        A[i] = 1.0
"""


@pytest.mark.parametrize(
    ("top", "words"),
    [
        ("import no_such_module_xyz\n", "line 2: ModuleNotFoundError: No module named 'no_such_module_xyz'"),
        ("X = 1 / 0\n", "line 2: ZeroDivisionError: division by zero"),
        ("def f(a=undefined_name):\n    pass\n", "line 2: NameError: name 'undefined_name' is not defined"),
    ],
)
def test_top_level_errors_in_the_kernel_file_are_words_and_exit_2(
    tmp_path: Path, capsys, top: str, words: str
) -> None:
    path = tmp_path / "k.py"
    path.write_text("from numba import cuda\n" + top + KERNEL)
    code, err = cli(capsys, TRACE[0], str(path), *TRACE[1:])
    assert code == 2
    assert words in err and "top-level code" in err


def test_a_20000_term_line_is_refused_in_words(tmp_path: Path, capsys) -> None:
    path = tmp_path / "k.py"
    path.write_text("from numba import cuda\nX = " + "+".join(["1"] * 20_000) + "\n" + KERNEL)
    code, err = cli(capsys, TRACE[0], str(path), *TRACE[1:])
    assert code == 2 and "line 2" in err and "too deeply nested" in err


def test_a_null_byte_in_the_kernel_file_is_refused_in_words(tmp_path: Path, capsys) -> None:
    path = tmp_path / "k.py"
    path.write_text("from numba import cuda\nX = 1\x00\n" + KERNEL)
    code, err = cli(capsys, TRACE[0], str(path), *TRACE[1:])
    assert code == 2 and "null byte" in err


def test_trace_out_dev_null_writes_through(tmp_path: Path, capsys) -> None:
    path = tmp_path / "k.py"
    path.write_text("from numba import cuda\n" + KERNEL)
    code, err = cli(capsys, TRACE[0], str(path), *TRACE[1:], "--out", "/dev/null")
    assert code == 0, err


def test_trace_out_into_a_missing_folder_is_refused_before_the_run(tmp_path: Path, capsys) -> None:
    path = tmp_path / "k.py"
    path.write_text("from numba import cuda\nX = 1 / 0\n" + KERNEL)  # would fail if it ran
    code, err = cli(capsys, TRACE[0], str(path), *TRACE[1:], "--out", str(tmp_path / "no" / "t.npz"))
    assert code == 2 and "does not exist" in err and "ZeroDivisionError" not in err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--block", "0"], "--block: 0 is too small: it must be at least 1"),
        (["--block", "1025"], "1,025 threads per block; compute capability 9.0 allows at most 1,024"),
        (
            ["--regs", "256", "--block", "32"],
            "256 registers per thread; compute capability 9.0 allows at most 255",
        ),
        (["--regs", "0", "--block", "32"], "--regs: 0 is too small"),
        (["--smem", "232449", "--block", "32"], "232,449 bytes of shared memory per block"),
    ],
)
def test_occupancy_outside_the_device_limits_is_exit_2_naming_the_limit(capsys, argv, words) -> None:
    code, err = cli(capsys, "occupancy", "--device", "9.0", *argv)
    assert code == 2 and words in err


def test_occupancy_above_48_kb_explains_the_opt_in(capsys) -> None:
    code = run(["occupancy", "--device", "9.0", "--block", "128", "--smem", "65536"])
    out = capsys.readouterr().out
    assert code == 0
    assert "48 KB" in out and "opt in" in out


def test_trace_budget_0_is_refused_not_taken_as_the_default(tmp_path: Path, capsys) -> None:
    path = tmp_path / "k.py"
    path.write_text("from numba import cuda\n" + KERNEL)
    code, err = cli(capsys, TRACE[0], str(path), *TRACE[1:], "--budget", "0")
    assert code == 2 and "--budget: 0 is too small: it must be at least 1" in err


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_work_us_nan_is_not_a_number(capsys, value: str) -> None:
    code, err = cli(capsys, "schedule", "--grid", "1", "--block", "32", f"--work-us={value}")
    assert code == 2
    assert f"'{value}' is not a number" in err or f"{value} is not a finite number" in err
    assert "negative" not in err or value == "-inf"


def test_non_ascii_parameter_names_are_accepted(tmp_path: Path, capsys) -> None:
    import json

    path = tmp_path / "k.py"
    path.write_text(
        "from numba import cuda\n\n\n@cuda.jit\ndef k(données):\n    i = cuda.grid(1)\n"
        "    if i < données.shape[0]:\n        données[i] = 1.0\n"
    )
    code = run(["trace", str(path), "--grid", "1", "--block", "32", "--arg", "données=float32[32]", "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    # 32 threads, one store each
    assert json.loads(out.out.splitlines()[-1])["accesses"] == 32
