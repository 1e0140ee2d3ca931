"""What a refused launch and a failed kernel say to the user (core/errors.py), worked out by hand:
the explanation under the driver's text names each broken limit with its numbers, says so when
the driver named none, both cross from the traced kernel's child process whole, and a kernel
failure that knows no line points at no line."""

from __future__ import annotations

import pickle

from simtviz.core.errors import RESTART_ADVICE, KernelFailed, LaunchRejected, describe
from simtviz.core.launch import LaunchConfig
from simtviz.core.limits import LimitViolation

DRIVER = "[1] Call to cuLaunchKernel results in CUDA_ERROR_INVALID_VALUE"


def test_a_rejected_block_of_2048_threads_is_explained_under_the_drivers_words() -> None:
    # blockDim (2048, 1, 1): 2,048 threads where 1,024 are allowed per block, and blockDim.x
    # 2,048 > 1,024 on its own: both limits, in that order, after "Limit exceeded: "
    config = LaunchConfig.of(1, 2048)
    broken = [
        LimitViolation(
            "threads per block",
            2048,
            1024,
            "blockDim (2048, 1, 1) has 2,048 threads; this device allows at most 1,024 per block "
            "(2,048 > 1,024)",
        ),
        LimitViolation(
            "blockDim.x", 2048, 1024, "blockDim.x is 2,048; this device allows at most 1,024 (2,048 > 1,024)"
        ),
    ]
    rejected = LaunchRejected(DRIVER, config, broken, "CudaAPIError")
    words = (
        "Limit exceeded: blockDim (2048, 1, 1) has 2,048 threads; this device allows at most 1,024 "
        "per block (2,048 > 1,024); blockDim.x is 2,048; this device allows at most 1,024 "
        "(2,048 > 1,024)"
    )
    assert rejected.explanation == words
    report = describe(rejected)
    assert (report.exit_code, report.title) == (3, "Launch rejected")
    assert report.what == f"{DRIVER}\n{words}"
    # refused in the traced kernel's child process, it reaches the app with every field, in words
    back = pickle.loads(
        pickle.dumps(
            LaunchRejected(DRIVER, config, broken, "CudaAPIError", "k[1, 2048]()", "tb", "the sim backend")
        )
    )
    assert (back.driver_text, back.config, back.violations, back.exception_type) == (
        DRIVER,
        config,
        broken,
        "CudaAPIError",
    )
    assert (back.launch_line, back.traceback_text, back.source) == ("k[1, 2048]()", "tb", "the sim backend")
    assert (back.explanation, str(back)) == (words, DRIVER)


def test_a_rejection_that_names_no_limit_says_so() -> None:
    # the driver refused, but no limit of ours is broken (e.g. a limit simtviz does not model)
    rejected = LaunchRejected(DRIVER, LaunchConfig.of(1, 32), [], "CudaAPIError")
    assert rejected.explanation == "The driver did not say which limit; see the details."
    assert describe(rejected).what == f"{DRIVER}\nThe driver did not say which limit; see the details."


def test_a_kernel_failure_without_a_line_points_at_none_and_needs_no_restart() -> None:
    # the GPU reports an error after the launch: no line of the student's file is known (0: the
    # editor marks nothing), and nothing says to restart; this survives the trip from the traced
    # kernel's child process
    failed = KernelFailed("the GPU reported an error after the launch: unspecified launch failure")
    back = pickle.loads(pickle.dumps(failed))
    for exc in (failed, back):
        assert (exc.line, exc.needs_restart) == (0, False)
        report = describe(exc)
        assert (report.exit_code, report.title, report.todo) == (1, "The kernel failed", "")
        assert report.what == "the GPU reported an error after the launch: unspecified launch failure"
    # a sticky error says to restart; a known line is kept
    sticky = KernelFailed("illegal address", needs_restart=True, line=7)
    assert (sticky.line, describe(sticky).todo) == (7, RESTART_ADVICE)
