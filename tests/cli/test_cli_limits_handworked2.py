"""The command line at its edges (docs/CONTRACT.md: exit 0 success, 2 bad usage, 6 stopped at the
time limit): number texts of 64 characters taken and 65 refused in words, the smallest count 1
taken, the line that says where a recording ran, and a stop at the time limit said in words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import simtviz.backends
from simtviz import cli
from simtviz.core.errors import TimeLimitReached


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.run(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# 64 characters: 62 zeros then "64" reads as 64; one zero more is 65 characters, refused unread.
SIXTY_FOUR = "0" * 62 + "64"
SIXTY_FIVE = "0" + SIXTY_FOUR


def test_a_count_of_64_characters_is_read_and_65_is_refused_in_words(capsys) -> None:
    assert len(SIXTY_FOUR) == 64 and len(SIXTY_FIVE) == 65
    code, out, _ = run(capsys, "occupancy", "--device", "9.0", "--block", SIXTY_FOUR, "--smem", SIXTY_FOUR)
    assert code == 0
    assert "block of 64 threads, 32 registers/thread, 64 B shared memory/block" in out
    code, _, err = run(capsys, "occupancy", "--device", "9.0", "--block", "32", "--smem", SIXTY_FIVE)
    assert code == 2
    assert "argument --smem: '000000000000…' (65 characters) is far too long" in err


def test_a_block_of_1_thread_is_the_smallest_taken(capsys) -> None:
    code, out, _ = run(capsys, "occupancy", "--device", "9.0", "--block", "1")
    assert code == 0 and "block of 1 threads" in out
    code, _, err = run(capsys, "occupancy", "--device", "9.0", "--block", "0")
    assert code == 2 and "argument --block: 0 is too small: it must be at least 1" in err


def test_a_grid_of_64_characters_is_read_and_65_is_refused_in_words(tmp_path: Path, capsys) -> None:
    two = "0" * 63 + "2"  # 64 characters: grid 2
    out_file = tmp_path / "r.npz"
    code, out, err = run(
        capsys, "record", "--grid", two, "--block", "4", "--out", str(out_file), "--backend", "sim"
    )
    assert code == 0, err
    # 2 blocks of 4 threads: 8 threads, on the simulator this process runs (it names itself)
    assert (
        out.splitlines()[0] == "record_threads[2, 4](...) on CUDA simulator on the CPU — no NVIDIA GPU in use"
    )
    assert "8 of 8 threads match" in out and out_file.exists()
    code, _, err = run(capsys, "record", "--grid", "0" + two, "--block", "4", "--out", str(out_file))
    assert code == 2 and "argument --grid: '000000000000…' (65 characters) is far too long" in err


class StoppedGrader:
    """Stands in for ``child_backend``: its run stops at a 2 s time limit while the kernel runs."""

    def __call__(self, flag: str | None = None) -> StoppedGrader:
        return self

    def run(self, experiment: Any, request: Any) -> None:
        raise TimeLimitReached(2.0, "the kernel 'add'", "kernel")


def test_an_exercise_stopped_at_the_time_limit_is_said_in_words_and_exit_6(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(simtviz.backends, "child_backend", StoppedGrader())
    path = tmp_path / "add.py"
    path.write_text(
        "from numba import cuda\n\n\n@cuda.jit\ndef add(a, b, c):\n    while True:\n        pass\n"
    )
    code, _, err = run(capsys, "exercise", "check", "vecadd-guard", str(path), "--timeout", "2")
    assert code == 6
    lines = err.splitlines()
    assert lines[0] == (
        "simtviz: stopped at the time limit: the kernel 'add' was still running after 2 s and its "
        "process was ended; the app keeps running"
    )
    assert "raise the time limit" in lines[1]  # what to do: the second line
