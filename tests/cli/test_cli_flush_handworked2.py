"""Each command's last line is on the pipe when the command returns, not waiting in a buffer.

A script reading ``simtviz ... --json`` through a pipe gets stdout block-buffered; if the process
then ends without Python's teardown (a CUDA context that crashes on exit, a kill after the
result), unflushed text is lost. Here stdout is such a pipe: a text stream over bytes that only
reach ``received`` when it is flushed. Backends are stand-ins (no child process, no numba) except
``vecadd``, which runs 1,011 elements on the simulator."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simtviz.backends
import simtviz.backends.schedule
from simtviz.cli import run
from simtviz.core.exercise.model import CheckResult, Report
from simtviz.core.trace.analysis import LOG_FIELDS, ArrayInfo, analyse
from simtviz.core.trace.model import TraceResult
from simtviz.core.trace.rewrite import Site


def piped(argv: list[str]) -> tuple[int, str]:
    """The command's exit status, and what a reader of its stdout pipe has when it returns."""
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="utf-8")  # block-buffered: no line buffering
    with contextlib.redirect_stdout(stream):
        code = run(argv)
    return code, raw.getvalue().decode("utf-8")


class Answers:
    """Stands in for ``child_backend`` / ``create_backend``: answers every run with ``result``."""

    def __init__(self, result: Any) -> None:
        self.result = result

    def __call__(self, flag: str | None = None) -> Answers:
        return self

    def run(self, experiment: Any, request: Any) -> Any:
        return self.result


# --- exercise -----------------------------------------------------------------------------------


def test_exercise_list_json_is_whole_on_the_pipe() -> None:
    code, out = piped(["exercise", "list", "--json"])
    assert code == 0
    ids = [e["id"] for e in json.loads(out)]
    assert "grid-stride" in ids


def _report() -> Report:
    # two checks: output passed, in_bounds failed → "1 of 2 checks passed."
    checks = [
        CheckResult("output", True, "output detail"),
        CheckResult("in_bounds", False, "in_bounds detail"),
    ]
    return Report("grid-stride", "sim", checks, [])


@pytest.fixture
def kernel_file(tmp_path: Path) -> Path:
    path = tmp_path / "scale.py"
    path.write_text("from numba import cuda\n")
    return path


def test_exercise_check_json_is_whole_on_the_pipe(monkeypatch: pytest.MonkeyPatch, kernel_file: Path) -> None:
    monkeypatch.setattr(simtviz.backends, "child_backend", Answers(_report()))
    code, out = piped(["exercise", "check", "grid-stride", str(kernel_file), "--json"])
    assert code == 1  # a check failed
    report = json.loads(out)
    assert [(c["name"], c["passed"]) for c in report["checks"]] == [("output", True), ("in_bounds", False)]


def test_exercise_check_text_is_whole_on_the_pipe(monkeypatch: pytest.MonkeyPatch, kernel_file: Path) -> None:
    monkeypatch.setattr(simtviz.backends, "child_backend", Answers(_report()))
    code, out = piped(["exercise", "check", "grid-stride", str(kernel_file)])
    assert code == 1
    assert out.splitlines()[-1] == "1 of 2 checks passed."


# --- occupancy ----------------------------------------------------------------------------------

# cc 9.0, block 256, 64 registers: 64 × 32 = 2,048 per warp, 16,384 // 2,048 = 8 warps per quarter
# × 4 = 32 warps // 8 per block = 4 blocks per SM (threads allow 8): limited by registers.
OCCUPANCY = ["occupancy", "--block", "256", "--regs", "64", "--device", "9.0"]


def test_occupancy_json_is_whole_on_the_pipe() -> None:
    code, out = piped([*OCCUPANCY, "--json"])
    assert code == 0
    s = json.loads(out)
    assert (s["blocks_per_sm"], s["warps_per_sm"], s["limiter"]) == (4, 32, "registers")


def test_occupancy_text_is_whole_on_the_pipe() -> None:
    code, out = piped(OCCUPANCY)
    assert code == 0
    assert "active blocks per SM: 4  (32 warps, occupancy 50%), limited by registers" in out


# --- schedule (a GPU's summary, written by hand) --------------------------------------------------

SUMMARY = {
    "backend": "gpu:NVIDIA H200",
    "grid": [2464, 1, 1],
    "block": [256, 1, 1],
    "blocks": 2464,
    "work_us": 20.0,
    "regs_per_thread": 30,
    "smem_per_block": 0,
    "sms": 132,
    "driver_blocks_per_sm": 8,
    "theoretical": {"blocks_per_sm": 8, "waves": 3, "limiter": "threads"},
    "measured": {"max_resident_blocks_per_sm": 8, "waves": 3, "sms_used": 132, "span_us": 61.4},
}


class Schedule:
    def summary(self) -> dict[str, Any]:
        return SUMMARY


@pytest.fixture
def on_a_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(simtviz.backends.schedule, "check_can_measure", lambda kind: None)
    monkeypatch.setattr(simtviz.backends, "create_backend", Answers(Schedule()))


SCHEDULE = ["schedule", "--grid", "2464", "--block", "256"]


def test_schedule_json_is_whole_on_the_pipe(on_a_gpu: None) -> None:
    code, out = piped([*SCHEDULE, "--json"])
    assert code == 0
    assert json.loads(out) == SUMMARY


def test_schedule_text_is_whole_on_the_pipe(on_a_gpu: None) -> None:
    code, out = piped(SCHEDULE)
    assert code == 0
    # theory 8 = driver 8 = measured 8, 3 waves both, 132 SMs both
    assert out.splitlines()[-1] == "theory, driver and measurement agree"


# --- trace (a hand-made log) ----------------------------------------------------------------------


def _traced() -> TraceResult:
    # One block of 32 threads, thread t loads A[t] (float32): 1 request, 128 bytes, 4 sectors.
    log = np.zeros((LOG_FIELDS, 32), dtype=np.int64)
    log[0] = np.arange(32)
    log[3] = 4 * np.arange(32)
    log[4] = np.arange(32)
    sites = (Site(0, 6, 8, "A", "load", 1),)
    arrays = (ArrayInfo("A", (32,), "float32"),)
    analysis = analyse(log, 32, sites, arrays, (32, 1, 1))
    return TraceResult("sim", "k", (1, 1, 1), (32, 1, 1), sites, arrays, analysis, log, {}, {})


@pytest.fixture
def traced(monkeypatch: pytest.MonkeyPatch, kernel_file: Path) -> list[str]:
    monkeypatch.setattr(simtviz.backends, "child_backend", Answers(_traced()))
    return ["trace", str(kernel_file), "--grid", "1", "--block", "32", "--arg", "A=float32[32]"]


def test_trace_json_is_whole_on_the_pipe(traced: list[str]) -> None:
    code, out = piped([*traced, "--json"])
    assert code == 0
    s = json.loads(out)
    assert (s["kernel"], s["threads"]) == ("k", 32)


def test_trace_text_is_whole_on_the_pipe(traced: list[str]) -> None:
    code, out = piped(traced)
    assert code == 0
    text = out
    assert text.splitlines()[0] == "k[(1, 1, 1), (32, 1, 1)] — 32 threads on the CUDA simulator"
    assert "line 6 load A: 4 sectors per request (ideal: 4 for 4-byte elements)" in text


# --- vecadd (on the simulator) ------------------------------------------------------------------


def test_vecadd_json_is_whole_on_the_pipe() -> None:
    code, out = piped(["vecadd", "--backend", "sim", "--n", "1011", "--json"])
    assert code == 0
    # ceil(1,011 / 256) = 4 blocks
    assert json.loads(out.splitlines()[-1])["grid"] == 4


def test_vecadd_text_is_whole_on_the_pipe() -> None:
    code, out = piped(["vecadd", "--backend", "sim", "--n", "1011"])
    assert code == 0
    assert out.rstrip().endswith("Test succeeded")
