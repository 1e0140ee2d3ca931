"""``simtviz exercise`` read back line by line: the text a student sees, its exit codes, and what
reaches the grader (a stand-in backend records the request, so no child process or numba here).

Every expected line is written out by hand from the catalog's grid-stride entry and the report
built in each test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import simtviz.backends
from simtviz.cli import run
from simtviz.core.exercise.model import CheckResult, Report
from simtviz.core.trace.source import TraceUnsupported


class Grader:
    """Stands in for ``child_backend``: records the flag and the request, answers ``answer``."""

    def __init__(self, answer: Report | Exception) -> None:
        self.answer = answer
        self.flags: list[str | None] = []
        self.requests: list[Any] = []

    def __call__(self, flag: str | None = None) -> Grader:
        self.flags.append(flag)
        return self

    def run(self, experiment: Any, request: Any) -> Report:
        # the CLI names the experiment or passes the registered object itself
        assert getattr(experiment, "name", experiment) == "exercise"
        self.requests.append(request)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def _report(*passed: bool, explanations: tuple[str, ...] = ()) -> Report:
    names = ("output", "in_bounds", "written_once", "coalesced")
    checks = [CheckResult(n, p, f"{n} detail") for n, p in zip(names, passed, strict=False)]
    return Report("grid-stride", "sim", checks, list(explanations))


@pytest.fixture
def kernel_file(tmp_path: Path) -> Path:
    path = tmp_path / "scale.py"
    path.write_text("from numba import cuda\n")
    return path


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = run(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def grade(monkeypatch: pytest.MonkeyPatch, answer: Report | Exception) -> Grader:
    grader = Grader(answer)
    monkeypatch.setattr(simtviz.backends, "child_backend", grader)
    return grader


# --- show ---------------------------------------------------------------------------------------


def test_show_with_one_hint_says_how_many_there_are(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = call(capsys, "exercise", "show", "grid-stride", "--hints", "1")
    lines = out.split("\n")
    assert code == 0
    assert lines[:2] == ["grid-stride — Grid-stride loop", "Write: scale(a, out, factor)"]
    # the catalog's two launches: n = 1000 and 333, 2 blocks of 32 (the arrays' types, no values)
    i = lines.index("The grader launches:")
    assert lines[i + 1 : i + 3] == [
        "  grid 2, block 32, a=float32[1000], out=float32[1000], factor=float32",
        "  grid 2, block 32, a=float32[333], out=float32[333], factor=float32",
    ]
    # 3 hints in the catalog, 1 shown: the count line follows it; then the starter line, and the
    # text ends with exactly one newline (print's).
    assert lines[i + 3 :] == [
        "",
        "Checks: output (Output), in_bounds (In bounds), written_once (Written once), coalesced (Coalesced)",
        "Hint 1: One element per thread is not enough: loop.",
        "(3 hints: --hints K shows the first K)",
        "",
        "Start from: simtviz exercise show grid-stride --starter > scale.py",
        "",
    ]


@pytest.mark.parametrize("k", ["3", "99"])
def test_show_with_every_hint_has_no_count_line(capsys: pytest.CaptureFixture[str], k: str) -> None:
    # 3 of 3 shown (or more asked for): nothing is left to unlock, so no "(3 hints: …)" line.
    code, out, _ = call(capsys, "exercise", "show", "grid-stride", "--hints", k)
    assert code == 0
    assert "Hint 3: cuda.gridsize(1) is blockDim.x * gridDim.x: use it as the step, not blockDim.x." in out
    assert "Hint 4" not in out and "hints: --hints K" not in out


def test_show_with_no_hints_has_the_count_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = call(capsys, "exercise", "show", "grid-stride")
    assert code == 0 and "Hint 1" not in out and "(3 hints: --hints K shows the first K)" in out


def test_starter_is_printed_byte_for_byte(capsys: pytest.CaptureFixture[str]) -> None:
    # `show --starter > scale.py` must save the catalog's starter exactly: no newline added.
    code, out, _ = call(capsys, "exercise", "show", "grid-stride", "--starter")
    assert code == 0
    assert out == (
        "from numba import cuda\n\n\n@cuda.jit\ndef scale(a, out, factor):\n"
        "    start = cuda.grid(1)\n    # out[i] = a[i] * factor for every i, with only a few threads\n"
    )


def test_list_text_is_one_exercise_a_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = call(capsys, "exercise", "list")
    row = next(line for line in out.splitlines() if line.startswith("grid-stride "))
    # id (11 characters) padded to 22, a space, signature (21) padded to 30, a space, the title:
    # 11 + 1 = 12 spaces, then 9 + 1 = 10
    assert code == 0
    assert row == "grid-stride" + " " * 12 + "scale(a, out, factor)" + " " * 10 + "Grid-stride loop"


def test_exercise_without_an_action_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "exercise")
    assert code == 2 and out == ""
    assert "required" in err and "action" in err and "Traceback" not in err


# --- check: text, exit codes, what reaches the grader ----------------------------------------------


def test_check_text_one_line_per_check_and_the_count(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, kernel_file: Path
) -> None:
    grade(monkeypatch, _report(True, False, True, explanations=("thread 40 reads a[1000]",)))
    code, out, _ = call(capsys, "exercise", "check", "grid-stride", str(kernel_file), "--backend", "sim")
    # 2 of the 3 checks pass (True, False, True): exit 1, the failed check's word FAIL
    assert code == 1
    assert out == (
        "grid-stride — Grid-stride loop (sim)\n"
        "PASS output: output detail\n"
        "FAIL in_bounds: in_bounds detail\n"
        "PASS written_once: written_once detail\n"
        "Explain my bug:\n"
        "  thread 40 reads a[1000]\n"
        "2 of 3 checks passed.\n"
    )


def test_check_all_passing_exits_0_without_explanations(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, kernel_file: Path
) -> None:
    grade(monkeypatch, _report(True, True, True, True))
    code, out, _ = call(capsys, "exercise", "check", "grid-stride", str(kernel_file), "--backend", "sim")
    assert code == 0
    assert out.splitlines()[-1] == "4 of 4 checks passed." and "Explain my bug" not in out


def test_check_json_is_the_report(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, kernel_file: Path
) -> None:
    grade(monkeypatch, _report(False, explanations=("why",)))
    code, out, _ = call(capsys, "exercise", "check", "grid-stride", str(kernel_file), "--json")
    assert code == 1
    assert json.loads(out) == {
        "exercise": "grid-stride",
        "backend": "sim",
        "passed": False,
        "checks": [{"name": "output", "passed": False, "detail": "output detail"}],
        "explanations": ["why"],
    }


@pytest.mark.parametrize(
    "argv",
    [
        # the backend named before the command or after the action reaches the grader
        ["--backend", "sim", "exercise", "check", "grid-stride", "FILE"],
        ["exercise", "check", "grid-stride", "FILE", "--backend", "sim"],
    ],
)
def test_the_backend_flag_reaches_the_grader(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, kernel_file: Path, argv: list[str]
) -> None:
    grader = grade(monkeypatch, _report(True))
    code, _, _ = call(capsys, *[str(kernel_file) if a == "FILE" else a for a in argv])
    assert code == 0 and grader.flags == ["sim"]


def test_the_request_carries_the_file_and_time_limit(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, kernel_file: Path
) -> None:
    grader = grade(monkeypatch, _report(True))
    # 0.5 s is more than 0: accepted, and passed on as given
    code, _, _ = call(capsys, "exercise", "check", "grid-stride", str(kernel_file), "--timeout", "0.5")
    assert code == 0
    (request,) = grader.requests
    assert (request.exercise, request.filename, request.time_limit_s) == ("grid-stride", "scale.py", 0.5)
    assert request.source == "from numba import cuda\n"


@pytest.mark.parametrize("timeout", ["0", "-1", "nan"])
def test_a_time_limit_not_above_zero_is_refused_before_grading(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, kernel_file: Path, timeout: str
) -> None:
    grader = grade(monkeypatch, _report(True))
    code, out, err = call(capsys, "exercise", "check", "grid-stride", str(kernel_file), "--timeout", timeout)
    assert code == 2 and out == "" and grader.requests == []
    assert f"simtviz: --timeout must be more than 0 seconds (got {float(timeout)})" in err


def test_a_refused_kernel_names_the_file_and_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, kernel_file: Path
) -> None:
    grade(monkeypatch, TraceUnsupported(7, "slices are not traced"))
    code, out, err = call(capsys, "exercise", "check", "grid-stride", str(kernel_file))
    assert code == 2 and out == ""
    assert f"simtviz: {kernel_file}, line 7: slices are not traced" in err
