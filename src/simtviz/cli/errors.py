"""The one place the command line turns an error into words on stderr and an exit status.

Exit codes, titles and advice come from ``simtviz.core.errors.describe``; this module adds the
command line's own verbs (``--force``, ``--budget``, ``--n``).
"""

from __future__ import annotations

import sys

from simtviz.core.errors import (
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    BackendUnavailable,
    KernelFailed,
    LaunchRejected,
    LaunchTooLarge,
    NotAvailableHere,
    OutOfDeviceMemory,
    TimeLimitReached,
    describe,
)


def err(*lines: str) -> None:
    for line in lines:
        print(line, file=sys.stderr)


def message_lines(exc: BaseException, smaller: str = "") -> list[str]:
    """What the command line prints for ``exc`` (docs/CONTRACT.md: the driver's text comes first).

    ``smaller``: how the command that failed asks for less (``a lower --budget``, ``a smaller
    --n``); a command is never told to use an option it does not have.
    """
    report = describe(exc)
    if isinstance(exc, LaunchRejected):
        return [exc.driver_text, exc.explanation]
    if isinstance(exc, LaunchTooLarge):
        more = f", or {exc.smaller}" if exc.smaller else ""
        return [f"simtviz: {exc}; use --force to run it anyway{more}"]
    if isinstance(exc, OutOfDeviceMemory):
        if exc.forcible:
            more = f", or {exc.smaller}" if exc.smaller else ""
            return [f"simtviz: {exc}; use --force to try anyway{more}"]
        return [f"simtviz: {exc}; try {exc.smaller}" if exc.smaller else f"simtviz: {exc}"]
    if isinstance(exc, (BackendUnavailable, NotAvailableHere)) and report.todo:
        return [f"simtviz: {exc}", report.todo]
    if isinstance(exc, KernelFailed) and exc.needs_restart:
        return [f"simtviz: {exc}. {report.todo}"]
    if isinstance(exc, TimeLimitReached):
        return [f"simtviz: stopped at the time limit: {exc}", report.todo]
    if isinstance(exc, MemoryError):
        return [f"simtviz: not enough memory for this run; try {smaller or 'fewer threads'}"]
    return [f"simtviz: {exc}"]


def report_error(exc: BaseException, smaller: str = "") -> int:
    """Print ``exc`` for a person and return the exit status; raise it again if unexpected."""
    if isinstance(exc, KeyboardInterrupt):
        err("simtviz: interrupted")
        return EXIT_INTERRUPTED
    try:
        code = describe(exc).exit_code
    except KeyError:
        raise exc from None
    err(*message_lines(exc, smaller))
    return code


def report_usage(message: str) -> int:
    err(message)
    return EXIT_USAGE
