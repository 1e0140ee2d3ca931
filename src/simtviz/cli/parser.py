"""Argument parsing shared by every command: one-line usage errors and the argument types."""

from __future__ import annotations

import argparse
from typing import NoReturn

from simtviz.backends.selection import BACKEND_CHOICES
from simtviz.core.launch import Dim3, DimParseError


class UsageError(Exception):
    """Bad command-line input; reported in one line with exit status 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One line, no usage dump: a student should see what was wrong, not a wall of text.
        raise UsageError(f"{self.prog}: {message} (see {self.prog.split()[0]} --help)")


# No dimension or count has more digits than this; longer text is not echoed back whole.
MAX_NUMBER_TEXT = 64


def _too_long(text: str) -> argparse.ArgumentTypeError:
    return argparse.ArgumentTypeError(
        f"'{text[:12]}…' ({len(text):,} characters) is far too long for a number of threads or blocks"
    )


def dim(text: str) -> Dim3:
    if len(text) > MAX_NUMBER_TEXT:
        raise _too_long(text)
    try:
        return Dim3.parse(text)
    except (DimParseError, ValueError) as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def at_least_one(text: str) -> int:
    """A count that must be 1 or more (``--budget 0`` would record nothing)."""
    value = positive_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is too small: it must be at least 1")
    return value


def positive_int(text: str) -> int:
    if len(text) > MAX_NUMBER_TEXT:
        raise _too_long(text)
    try:
        value = (
            int(text.replace("_", ""), 0)
            if text.strip().lower().startswith("0x")
            else int(text.replace("_", ""))
        )
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value


def backend(text: str) -> str:
    value = text.strip().lower()
    if value not in BACKEND_CHOICES:
        raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(BACKEND_CHOICES)}")
    return value


def common_options(command: bool = False) -> Parser:
    """``--backend`` and ``--debug``, accepted before or after the command. A command's copy
    (``command=True``) has no defaults, so it never overwrites what was given before it."""
    common = Parser(add_help=False)
    common.add_argument(
        "--backend",
        type=backend,
        default=argparse.SUPPRESS if command else None,
        help="auto (default: gpu where there is one, else emu), gpu, emu (CPU emulator) or sim "
        "(numba's CUDA simulator); env SIMTVIZ_BACKEND",
    )
    common.add_argument(
        "--debug",
        action="store_true",
        default=argparse.SUPPRESS if command else False,
        help="show Python tracebacks",
    )
    return common
