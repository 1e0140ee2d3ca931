"""Command line: ``simtviz [record|vecadd|devices|snapshot|schedule|occupancy]`` (docs/CONTRACT.md).

Each command is a module with ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args)``;
``COMMANDS`` lists them. Exit status: 0 success; 1 the check failed; 2 bad usage; 3 the launch
was rejected; 4 a valid launch refused as too large or too slow here without ``--force``; 5 not
available on this backend (a schedule on the simulator)
(``cli.errors`` maps every error, from ``core.errors.describe``). No traceback unless ``--debug``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
import warnings
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any

from simtviz.backends.selection import requested_backend
from simtviz.cli.errors import report_error, report_usage
from simtviz.cli.interrupts import ctrl_c_remembered, raise_if_pressed
from simtviz.cli.parser import Parser, UsageError, common_options
from simtviz.core.errors import (
    EXIT_CHECK_FAILED,
    EXIT_OK,
    EXIT_REJECTED,
    EXIT_TOO_LARGE,
    EXIT_USAGE,
    BackendChoiceError,
)

# The commands, in the order --help lists them (modules of this package).
COMMANDS: tuple[str, ...] = (
    "record", "vecadd", "trace", "devices", "snapshot", "schedule", "occupancy", "exercise",
)  # fmt: skip

__all__ = [
    "EXIT_CHECK_FAILED",
    "EXIT_OK",
    "EXIT_REJECTED",
    "EXIT_TOO_LARGE",
    "EXIT_USAGE",
    "build_parser",
    "main",
    "run",
]


def command_module(name: str) -> ModuleType:
    return importlib.import_module(f"simtviz.cli.{name}")


def build_parser() -> argparse.ArgumentParser:
    common, per_command = common_options(), common_options(command=True)
    parser = Parser(
        prog="simtviz",
        description="See CUDA's SIMT thread indexing. Without a command, opens the desktop app.",
        parents=[common],
    )
    sub = parser.add_subparsers(dest="command", parser_class=Parser)
    for name in COMMANDS:
        module = command_module(name)
        module.add_arguments(sub.add_parser(module.NAME, parents=[per_command], help=module.HELP))
    return parser


# numba's advice to kernel authors ("Grid size 1 will likely result in GPU under-utilization"):
# simtviz launches small grids on purpose, and a student can do nothing about it.
QUIET_WARNINGS: tuple[str, ...] = ("NumbaPerformanceWarning",)


@contextlib.contextmanager
def quiet_warnings() -> Iterator[None]:
    """Drop the warnings named in QUIET_WARNINGS while a command runs, restoring the previous
    handling after (tests that run commands in-process keep theirs). Matched by class name, so
    that numba is not imported here, before the backend is chosen."""
    with warnings.catch_warnings():
        shown = warnings.showwarning

        def show(message: Warning | str, category: type[Warning], *rest: Any, **kw: Any) -> None:
            if category.__name__ not in QUIET_WARNINGS:
                shown(message, category, *rest, **kw)

        warnings.showwarning = show
        yield


def run(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    with quiet_warnings():
        return _run(argv)


def _run(argv: Sequence[str] | None) -> int:
    try:
        args = build_parser().parse_args(argv)
        requested_backend(args.backend)  # rejects a bad $SIMTVIZ_BACKEND with exit 2
    except UsageError as exc:
        return report_usage(str(exc))
    except BackendChoiceError as exc:
        return report_usage(f"simtviz: {exc}")
    if args.command is None:
        from simtviz.qt.app import run_app

        return run_app(args.backend)
    module = command_module(args.command)
    try:
        with ctrl_c_remembered():
            code: int = module.run(args)
            raise_if_pressed()
        return code
    except KeyboardInterrupt as exc:
        return report_error(exc)
    except Exception as exc:
        if args.debug:
            raise
        # How this command asks for less, in its own options (vecadd has --n, not --budget).
        return report_error(exc, getattr(module, "SMALLER", ""))


def main(argv: Sequence[str] | None = None) -> Any:
    sys.exit(run(argv))
