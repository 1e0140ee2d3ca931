"""``simtviz trace FILE.py``: run the student's kernel traced and report every memory access.

Exit status (docs/CONTRACT.md): 0 the kernel ran (out-of-bounds accesses are findings, not
failures); 1 it failed on the device; 2 bad usage, a bad SPEC or a construct the tracer does not
follow (the message names the line of FILE.py); 3 launch rejected; 4 too large without
``--force``; 6 stopped at the time limit. The kernel runs in a child process of its own
(``backend.run`` of the isolated ``trace`` experiment); this process never imports numba.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from simtviz.cli.interrupts import raise_if_pressed
from simtviz.cli.parser import at_least_one, dim
from simtviz.core.errors import EXIT_OK, EXIT_USAGE, KernelFailed, TimeLimitReached, describe
from simtviz.core.trace.model import (
    DEFAULT_BUDGET,
    DEFAULT_TIME_LIMIT_S,
    BlockWindow,
    KernelCompileError,
    TraceRequest,
)
from simtviz.core.trace.source import TraceUnsupported

NAME = "trace"
HELP = "run your own @cuda.jit kernel and see every memory access it makes"


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} is not more than 0 seconds")
    return value


def block_window(text: str) -> BlockWindow:
    try:
        return BlockWindow.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, metavar="FILE.py", help="a Python file with a @cuda.jit kernel")
    parser.add_argument("--grid", type=dim, required=True, help="X[,Y[,Z]] blocks")
    parser.add_argument("--block", type=dim, required=True, help="X[,Y[,Z]] threads per block")
    parser.add_argument(
        "--arg",
        action="append",
        default=[],
        metavar="NAME=SPEC",
        help="one per kernel parameter: DTYPE[D0[,D1[,D2]]][:zeros|ones|arange|random|NUMBER] or DTYPE:VALUE",
    )
    parser.add_argument("--kernel", default=None, help="the kernel's name, when the file has several")
    parser.add_argument(
        "--budget", type=at_least_one, default=None, help=f"most accesses to log (default {DEFAULT_BUDGET:,})"
    )
    parser.add_argument(
        "--window",
        type=block_window,
        default=None,
        metavar="FIRST:COUNT",
        help="log only the threads of COUNT blocks from block FIRST (blocks in linear order: x, then y, "
        "then z); every thread still runs (default: the whole launch)",
    )
    parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_TIME_LIMIT_S,
        metavar="S",
        help=f"stop the kernel after S seconds (default {DEFAULT_TIME_LIMIT_S:g})",
    )
    parser.add_argument("--out", type=Path, default=None, help="save the log and the summary as .npz")
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON line")
    parser.add_argument("--force", action="store_true", help="run even if the launch would take long here")


def _args_dict(items: list[str]) -> dict[str, str]:
    from simtviz.core.trace.args import ArgSpecError, parse_args

    parse_args(items)  # every SPEC checked (and a name given twice refused) before anything runs
    out: dict[str, str] = {}
    for item in items:
        name, _, spec = item.partition("=")
        if name.strip() in out:
            raise ArgSpecError(f"{name.strip()} is given twice")
        out[name.strip()] = spec.strip()
    return out


def run(args: argparse.Namespace) -> int:
    from simtviz.backends import child_backend
    from simtviz.core.files import read_user_text
    from simtviz.core.trace.report import findings, save_npz

    try:  # a pipe, a device or a file over 1 MB is refused before a byte is read
        source = read_user_text(args.file)
    except OSError as exc:
        print(f"simtviz: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.out is not None:
        from simtviz.core.files import check_writable

        check_writable(args.out)  # a missing folder is said now, not after the run
    # Starts nothing here: no CUDA context, no numba (a GPU is described without opening one).
    backend = child_backend(args.backend)
    request = TraceRequest(
        source=source,
        grid=args.grid.as_tuple(),
        block=args.block.as_tuple(),
        args=_args_dict(args.arg),
        kernel=args.kernel,
        filename=args.file.name,
        budget=args.budget or DEFAULT_BUDGET,
        force=bool(args.force),
        time_limit_s=args.timeout,
        window=args.window,
    )
    try:
        result = backend.run("trace", request)  # a notice (emu → sim) goes to stderr
    except (TraceUnsupported, KernelCompileError) as exc:
        print(f"simtviz: {args.file}, {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (KernelFailed, TimeLimitReached) as exc:  # the file's name first, as for the others
        from simtviz.cli.errors import message_lines

        lines = message_lines(exc)
        lines[0] = lines[0].replace("simtviz: ", f"simtviz: {args.file}, ", 1)
        print("\n".join(lines), file=sys.stderr)
        return describe(exc).exit_code
    raise_if_pressed()  # a Ctrl+C lost during the run still saves nothing
    if args.out is not None:
        path = save_npz(result, args.out)
        if not args.json:
            print(f"saved {path}")
    if args.json:
        print(json.dumps(result.summary()), flush=True)
    else:
        print("\n".join(findings(result)), flush=True)
    return EXIT_OK
