"""The trace child's own steps, hand-worked with stand-ins (no GPU, no compile checker): the
warm-up's launch shape, which file descriptors it silences and gives back (in the child fd 1 is
a copy of fd 2, see isolated_child), what ``prepare`` does for each backend, and which case of an
exercise's batch is checked for the GPU."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from simtviz.backends.trace import child, gpu_compile
from simtviz.backends.trace.batch import TraceBatch, TraceBatchResult
from simtviz.core.trace.model import TraceRequest

SRC = Path(child.__file__).resolve().parents[3]  # the simtviz under test (src/)


def _recorded_warm_up(**kwargs: int) -> TraceRequest:
    seen: list[TraceRequest] = []
    child.warm_up(lambda request, progress: seen.append(request), **kwargs)
    assert len(seen) == 1
    return seen[0]


def test_the_default_warm_up_is_a_vecadd_of_65_536_threads() -> None:
    request = _recorded_warm_up()  # 1 << 16 = 65,536 threads
    # 65,536 / 256 = 256 blocks of 256 threads, exactly
    assert (request.grid, request.block) == ((256, 1, 1), (256, 1, 1))
    assert request.args == {"A": "float32[65536]:random", "B": "float32[65536]:random", "C": "float32[65536]"}


def test_a_warm_up_one_thread_past_a_block_takes_a_second_block() -> None:
    request = _recorded_warm_up(threads=257)
    # ceil(257 / 256) = 2 blocks of min(257, 256) = 256 threads (512 ≥ 257; the guard skips 255)
    assert (request.grid, request.block) == ((2, 1, 1), (256, 1, 1))
    assert request.args["C"] == "float32[257]"


def test_a_warm_up_smaller_than_a_block_is_one_block_of_exactly_that_many() -> None:
    request = _recorded_warm_up(threads=100)
    # ceil(100 / 256) = 1 block of min(100, 256) = 100 threads
    assert (request.grid, request.block) == ((1, 1, 1), (100, 1, 1))


def test_the_warm_up_silences_fd_1_and_2_and_gives_both_back(tmp_path: Path) -> None:
    """As in the child: fd 1 and fd 2 both write to the parent's stderr pipe (here a file, on a
    descriptor far from 3 so no other descriptor stands for it)."""
    log = tmp_path / "child-stderr"
    low = os.open(log, os.O_WRONLY | os.O_CREAT)
    target = fcntl.fcntl(low, fcntl.F_DUPFD, 50)
    os.close(low)

    def runner(_request: Any, _progress: Any) -> None:
        os.write(1, b"numba's warning on fd 1\n")
        os.write(2, b"C code on fd 2\n")
        print("a print", flush=True)

    saved = (os.dup(1), os.dup(2))
    try:
        os.dup2(target, 2)
        os.dup2(target, 1)
        child.warm_up(runner, threads=32)
        os.write(1, b"after on 1\n")
        os.write(2, b"after on 2\n")
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, target):
            os.close(fd)
    # nothing of the warm-up's; both descriptors back on the child's stderr
    assert log.read_bytes() == b"after on 1\nafter on 2\n"


@pytest.fixture
def no_checker(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """No GPU-compile checker process; ``verify`` and the warm-up recorded instead."""
    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(gpu_compile, "start_checker", lambda kind: None)
    monkeypatch.setattr(
        gpu_compile, "verify", lambda request, kind, checker, tick: calls.append(("verify", request))
    )
    monkeypatch.setattr(child, "warm_up", lambda runner: calls.append(("warm_up", runner)))
    return calls


def test_only_a_gpu_child_warms_up(no_checker: list[tuple[Any, ...]]) -> None:
    for kind in ("sim", "emu"):
        child.TraceSession(kind).prepare()
    assert no_checker == []


def _request(kernel: str) -> TraceRequest:
    return TraceRequest("", (1, 1, 1), (1, 1, 1), {}, kernel=kernel)


def test_a_batch_is_checked_on_its_first_case_and_every_case_runs(no_checker: list[tuple[Any, ...]]) -> None:
    first, second = _request("first"), _request("second")
    session = child.TraceSession("emu")
    ran: list[Any] = []
    session.runner = lambda request, progress: ran.append(request) or TraceBatchResult([])
    result = session.run(TraceBatch((first, second)), lambda f: None, lambda step: None)
    assert no_checker == [("verify", first)]
    assert ran == [TraceBatch((first, second))] and result.notes == []


def test_a_one_case_batch_is_checked_on_that_case(no_checker: list[tuple[Any, ...]]) -> None:
    only = _request("only")
    session = child.TraceSession("emu")
    session.runner = lambda request, progress: TraceBatchResult([])
    session.run(TraceBatch((only,)), lambda f: None, lambda step: None)
    assert no_checker == [("verify", only)]


def test_the_check_s_note_is_added_to_the_result(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gpu_compile, "start_checker", lambda kind: None)
    monkeypatch.setattr(gpu_compile, "verify", lambda request, kind, checker, tick: "not checked here")
    session = child.TraceSession("emu")
    result = TraceBatchResult([])
    session.runner = lambda request, progress: result
    assert session.run(_request("k"), lambda f: None, lambda step: None).notes == ["not checked here"]


def test_the_emulator_s_child_never_imports_numba() -> None:
    """Its prepare loads no numba (nor the tracer's numba helpers): the emulator needs neither."""
    code = (
        "import sys\n"
        "from simtviz.backends.trace import child, gpu_compile\n"
        "gpu_compile.start_checker = lambda kind: None\n"
        "child.TraceSession('emu').prepare()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'numba' or m.endswith('trace_helpers')))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert (out.returncode, out.stdout) == (0, "[]\n"), out.stderr
