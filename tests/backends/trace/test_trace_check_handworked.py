"""What the trace experiment refuses before any process starts, at each limit exactly, and the
order of its checks (hand-worked; no child process, no simulator)."""

from __future__ import annotations

import math

import pytest

from simtviz.backends.base import BackendInfo, BackendKind
from simtviz.backends.trace import PRECHECK_MAX_CHARS, TraceExperiment
from simtviz.core.errors import LaunchTooLarge
from simtviz.core.files import KERNEL_FILE_LIMIT
from simtviz.core.limits import DeviceLimits
from simtviz.core.trace.args import ArgSpecError
from simtviz.core.trace.model import TraceRequest
from simtviz.core.trace.source import TraceUnsupported

KERNEL = """from numba import cuda


@cuda.jit
def double(A):
    i = cuda.grid(1)
    if i < A.size:
        A[i] = 2 * A[i]
"""
SIM = BackendInfo(BackendKind.SIM, "sim", "sim", DeviceLimits())
GPU = BackendInfo(BackendKind.GPU, "gpu:Test", "Test GPU", DeviceLimits(name="Test"))


def request(**changes: object) -> TraceRequest:
    fields: dict[str, object] = {
        "source": KERNEL,
        "grid": (1, 1, 1),
        "block": (32, 1, 1),
        "args": {"A": "float32[32]"},
    }
    fields.update(changes)
    return TraceRequest(**fields)  # type: ignore[arg-type]


def check(req: TraceRequest, info: BackendInfo = SIM) -> None:
    TraceExperiment().check(req, info, ask_gpu=False)


def test_a_plain_request_passes() -> None:
    check(request())
    check(request(budget=1, time_limit_s=0.001))  # the smallest budget and time limit allowed


@pytest.mark.parametrize("budget", [0, -5])
def test_a_budget_under_one_access_is_refused(budget: int) -> None:
    with pytest.raises(ArgSpecError, match=rf"the budget must be at least 1 access \(got {budget}\)"):
        check(request(budget=budget))


@pytest.mark.parametrize("limit", [0.0, -1.0, math.nan])
def test_a_time_limit_that_is_not_positive_is_refused(limit: float) -> None:
    with pytest.raises(ArgSpecError, match="the time limit must be more than 0 s"):
        check(request(time_limit_s=limit))


def test_the_file_size_limit_is_inclusive_and_checked_before_parsing() -> None:
    # Exactly KERNEL_FILE_LIMIT bytes (the kernel, then a comment): accepted, and — being over
    # PRECHECK_MAX_CHARS — not parsed here (only its arguments are read). One byte more: refused
    # in sizes, before anything reads the text.
    padding = KERNEL_FILE_LIMIT - len(KERNEL) - 2
    exact = KERNEL + "#" + "x" * padding + "\n"
    assert len(exact.encode()) == KERNEL_FILE_LIMIT > PRECHECK_MAX_CHARS
    check(request(source=exact))
    with pytest.raises(ArgSpecError, match=r"the kernel's file is .*; simtviz traces files of up to"):
        check(request(source=exact + "#"))


def test_texts_up_to_the_precheck_size_are_parsed_before_the_run() -> None:
    # A construct the tracer cannot follow, padded to exactly PRECHECK_MAX_CHARS characters: read
    # here (refused with its line); one character more: left to the run's child.
    bad = KERNEL.replace("A[i] = 2 * A[i]", "A[i] = 2 * A[i]\n    print(A)")
    # 64,000 characters parse in a few ms on the GUI thread (1 MB took 6 s).
    pad = "#" + "x" * (64_000 - len(bad) - 2) + "\n"
    assert len(bad + pad) == 64_000
    with pytest.raises(TraceUnsupported):
        check(request(source=bad + pad))
    check(request(source=bad + pad + "#"))


def test_the_simulator_speaks_for_the_driver_and_asks_before_a_long_run() -> None:
    with pytest.raises(Exception, match="CUDA_ERROR_INVALID_VALUE") as refused:  # 1,025 threads a block
        check(request(block=(1025, 1, 1)))
    assert refused.value.launch_line == "kernel[(1, 1, 1), (1025, 1, 1)](...)"  # type: ignore[attr-defined]
    with pytest.raises(Exception, match="CUDA_ERROR_INVALID_VALUE") as named:
        check(request(block=(1025, 1, 1), kernel="double"))
    assert named.value.launch_line == "double[(1, 1, 1), (1025, 1, 1)](...)"  # type: ignore[attr-defined]
    big = SIM.max_threads_unasked + 1
    with pytest.raises(LaunchTooLarge):
        check(request(grid=(big, 1, 1), block=(1, 1, 1)))
    check(request(grid=(big, 1, 1), block=(1, 1, 1), force=True))  # asked and answered
    check(request(grid=(SIM.max_threads_unasked, 1, 1), block=(1, 1, 1)))  # exactly at the line


def test_a_gpu_leaves_the_launch_to_its_driver() -> None:
    # No estimate and no refusal from simtviz: the driver's own error is the lesson.
    check(request(block=(2048, 1, 1)), GPU)
    assert TraceExperiment().estimate_s(request(), GPU) is None
    assert TraceExperiment().estimate_s(request(), SIM) == SIM.estimate_seconds(32, "trace")


@pytest.mark.parametrize(("half", "backend"), [("run_sim", "sim"), ("run_emu", "emu")])
def test_the_experiment_s_halves_trace_in_the_calling_process(half: str, backend: str) -> None:
    # 32 threads double A[0..31]: one load and one store each, 64 rows in the log.
    result = getattr(TraceExperiment(), half)(request(), None, None)
    assert result.backend == backend
    assert result.log.shape[1] == 64


def test_a_budget_of_one_access_logs_one_row_and_says_what_it_left_out() -> None:
    import time

    from simtviz.backends.trace.sim import run_trace_sim

    started = time.perf_counter()
    result = run_trace_sim(request(budget=1))
    wall = time.perf_counter() - started
    assert result.log.shape[1] == 1  # the first of the 64 accesses
    assert result.notes and "64" in result.notes[0]
    # Each phase's time is its own share of this call: never negative, never more than all of it.
    assert result.compile_s is not None and 0 <= result.compile_s <= wall
    assert result.analysis_s is not None and 0 <= result.analysis_s <= wall
    # What the kernel did: every element doubled from the seeded inputs.
    assert (result.outputs["A"] == 2 * result.inputs["A"]).all()


def test_the_simulator_asks_before_a_launch_past_its_limit() -> None:
    from simtviz.backends.trace.sim import run_trace_sim
    from simtviz.core.estimates import SIM_MAX_THREADS_UNASKED

    with pytest.raises(LaunchTooLarge) as refused:
        run_trace_sim(request(grid=(SIM_MAX_THREADS_UNASKED + 1, 1, 1), block=(1, 1, 1)))
    assert refused.value.threads == SIM_MAX_THREADS_UNASKED + 1
    assert "simulator" in str(refused.value)


def test_the_file_s_top_level_code_raising_names_its_line() -> None:
    # Line 2's import runs when the module is made, before the kernel exists: its error is the
    # student's, on line 2, with the words that say it is not the kernel's.
    from simtviz.backends.trace.sim import run_trace_sim
    from simtviz.core.trace.model import TopLevelError

    source = "from numba import cuda\nimport no_such_module_here\n" + KERNEL.split("\n", 1)[1]
    with pytest.raises(TopLevelError) as raised:
        run_trace_sim(request(source=source))
    assert raised.value.line == 2
    assert str(raised.value).startswith(
        "line 2: ModuleNotFoundError: No module named 'no_such_module_here' (in the file's top-level code"
    )


def test_the_emulator_logs_one_row_for_a_budget_of_one_and_reports_its_progress_in_order() -> None:
    import time

    from simtviz.backends.trace.emu import run_trace_emu

    shares: list[float] = []
    started = time.perf_counter()
    result = run_trace_emu(request(budget=1), shares.append)
    wall = time.perf_counter() - started
    assert result.log.shape[1] == 1 and (result.outputs["A"] == 2 * result.inputs["A"]).all()
    assert result.compile_s is not None and 0 <= result.compile_s <= wall
    assert result.analysis_s is not None and 0 <= result.analysis_s <= wall
    # 0.05 before the launch, the launch's own share up to 0.35, 0.4 after it, 1.0 at the end.
    assert shares[0] == 0.05 and 0.4 in shares and shares[-1] == 1.0
    assert shares == sorted(shares) and all(0.05 <= s <= 1.0 for s in shares)
    launch = [s for s in shares if 0.05 < s < 0.4]
    assert launch and max(launch) <= 0.35


def test_a_batch_runs_every_case_and_keeps_each_failure_with_its_case() -> None:
    # The exercises' grader sends one batch per kernel: a case that fails on the device (an
    # integer division by zero) is that case's result; the next case still runs.
    from simtviz.backends.trace.batch import TraceBatch, TraceBatchResult, run_emu
    from simtviz.core.errors import KernelFailed
    from simtviz.core.trace.model import TraceResult

    dividing = KERNEL.replace("A[i] = 2 * A[i]", "A[i] = A[i] // (i - i)")
    cases = (
        request(time_limit_s=5.0, kernel="double", filename="first.py"),
        request(source=dividing, args={"A": "int32[32]"}, time_limit_s=9.0, filename="second.py"),
        request(args={"A": "float32[8]"}, block=(8, 1, 1), time_limit_s=2.0),
    )
    batch = TraceBatch(cases)
    assert (batch.time_limit_s, batch.kernel, batch.filename) == (9.0, "double", "first.py")
    out = run_emu(batch)
    assert isinstance(out, TraceBatchResult) and len(out.results) == 3
    first, second, third = out.results
    assert isinstance(first, TraceResult) and isinstance(third, TraceResult)
    assert (
        isinstance(second, KernelFailed)
        and str(second) == "line 8: ZeroDivisionError: integer division or modulo by zero"
    )
    assert third.log.shape[1] == 16  # 8 threads: one load and one store each
    assert isinstance(run_emu(cases[0]), TraceResult)  # one request: its result, not a batch's
    from simtviz.backends.trace.batch import run_sim

    assert run_sim(cases[0]).backend == "sim"
