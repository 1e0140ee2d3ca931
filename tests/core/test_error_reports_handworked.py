"""What each error says and which exit code it gives, on the command line and in the app."""

from __future__ import annotations

import pytest

from simtviz.cli.errors import message_lines, report_error
from simtviz.core.errors import (
    RESTART_ADVICE,
    BackendChoiceError,
    BackendUnavailable,
    Cancelled,
    KernelFailed,
    LaunchRejected,
    LaunchTooLarge,
    OutOfDeviceMemory,
    SimtvizError,
    describe,
)
from simtviz.core.files import ExportError
from simtviz.core.launch import LaunchConfig
from simtviz.core.limits import DRIVER_INVALID_VALUE, DeviceLimits, validate

TOO_LONG = LaunchTooLarge(132_096, 33.024, 131_072, "the CUDA simulator")


def _rejected() -> LaunchRejected:
    config = LaunchConfig.of(1, (1, 1, 65))
    return LaunchRejected(DRIVER_INVALID_VALUE, config, validate(config), "CUDAError")


@pytest.mark.parametrize(
    ("exc", "code", "title"),
    [
        (_rejected(), 3, "Launch rejected"),
        (TOO_LONG, 4, "A long run"),
        (OutOfDeviceMemory(2 * 10**9, 10**9, "record 1 thread"), 4, "Not enough GPU memory"),
        (BackendUnavailable("no GPU"), 3, "No GPU"),
        (KernelFailed("IndexError"), 1, "The kernel failed"),
        (Cancelled("run cancelled"), 1, "Cancelled"),
        (BackendChoiceError("quantum"), 2, "Backend"),
        (ExportError("cannot write x"), 2, "Could not save"),
        (MemoryError(), 4, "Not enough memory"),
        (SimtvizError("something"), 2, "simtviz"),
    ],
)
def test_exit_code_and_title_of_each_error(exc, code, title) -> None:
    report = describe(exc)
    assert (report.exit_code, report.title) == (code, title)


def test_an_unexpected_error_has_no_report() -> None:
    with pytest.raises(KeyError):
        describe(RuntimeError("a bug"))


def test_the_words_of_each_error() -> None:
    assert str(TOO_LONG) == (
        "132,096 threads would take about 33 s on the CUDA simulator (it runs up to 131,072 without asking)"
    )
    vec = LaunchTooLarge(
        10**6, 400.0, 131_072, "the CUDA simulator", subject="vecadd", smaller="a smaller --n"
    )
    assert str(vec).startswith(
        "vecadd would run 1,000,000 simulated threads, about 7 min on the CUDA simulator"
    )
    assert message_lines(vec) == [
        f"simtviz: {vec}; use --force to run it anyway, or a smaller --n",
    ]
    assert message_lines(TOO_LONG) == [f"simtviz: {TOO_LONG}; use --force to run it anyway"]
    assert (
        str(LaunchTooLarge(5, None, 4, "x"))
        == "5 threads would take about a long time on x (it runs up to 4 without asking)"
    )
    rejected = _rejected()
    assert message_lines(rejected) == [
        DRIVER_INVALID_VALUE,
        "Limit exceeded: blockDim.z is 65; this device allows at most 64 (65 > 64)",
    ]
    assert describe(rejected).what == f"{DRIVER_INVALID_VALUE}\n{rejected.explanation}"
    assert (
        rejected.source == "the CUDA driver"
        and rejected.launch_line == "record_threads[(1, 1, 1), (1, 1, 65)](...)"
    )


def test_out_of_memory_words() -> None:
    # 2.5 GB needed, 1.25 GB free: one decimal each.
    oom = OutOfDeviceMemory(2_500_000_000, 1_250_000_000, "record 16,777,216 threads")
    assert str(oom) == "record 16,777,216 threads needs 2.5 GB of GPU memory and 1.2 GB are free"
    assert message_lines(oom) == [f"simtviz: {oom}"]
    # Free memory unknown: GiB (2^30), and CuPy's words after a dash.
    unknown = OutOfDeviceMemory(
        3 * 2**30, None, "record 8 threads", detail="out of memory", smaller="--budget 8"
    )
    assert (
        str(unknown)
        == "the GPU has too little free memory to record 8 threads (3.0 GiB) — CuPy said: out of memory"
    )
    assert message_lines(unknown) == [f"simtviz: {unknown}; try --budget 8"]
    forcible = OutOfDeviceMemory(10, 9, "run vecadd", forcible=True, smaller="a smaller --n")
    assert message_lines(forcible) == [f"simtviz: {forcible}; use --force to try anyway, or a smaller --n"]
    assert message_lines(OutOfDeviceMemory(10, 9, "run", forcible=True)) == [
        f"simtviz: {OutOfDeviceMemory(10, 9, 'run')}; use --force to try anyway"
    ]


def test_sticky_errors_say_restart_and_others_do_not() -> None:
    sticky = KernelFailed("CUDA_ERROR_ILLEGAL_ADDRESS", needs_restart=True)
    assert describe(sticky).todo == RESTART_ADVICE
    assert message_lines(sticky) == [f"simtviz: CUDA_ERROR_ILLEGAL_ADDRESS. {RESTART_ADVICE}"]
    plain = KernelFailed("IndexError")
    assert describe(plain).todo == "" and message_lines(plain) == ["simtviz: IndexError"]
    assert message_lines(BackendUnavailable("no GPU")) == [
        "simtviz: no GPU",
        "Run with --backend sim to use the CUDA simulator on the CPU.",
    ]
    # Host memory: every command runs out of it the same way, so the advice names no option.
    assert message_lines(MemoryError()) == ["simtviz: not enough memory for this run; try fewer threads"]
    assert describe(MemoryError()).what == "not enough memory for this run"


def test_report_error_prints_and_returns_the_code(capsys) -> None:
    assert report_error(TOO_LONG) == 4
    assert capsys.readouterr().err == f"simtviz: {TOO_LONG}; use --force to run it anyway\n"
    assert report_error(KeyboardInterrupt()) == 130
    with pytest.raises(RuntimeError):
        report_error(RuntimeError("a bug"))


def test_limits_as_a_table() -> None:
    assert DeviceLimits().as_dict() == {
        "name": "any CUDA GPU (compute capability 5.0 or newer)",
        "max_threads_per_block": 1024,
        "max_block": [1024, 1024, 64],
        "max_grid": [2**31 - 1, 65535, 65535],
        "warp_size": 32,
        "multiprocessors": None,
        "compute_capability": None,
    }
    assert DeviceLimits(compute_capability=(9, 0), multiprocessors=132).as_dict()["compute_capability"] == [
        9,
        0,
    ]
