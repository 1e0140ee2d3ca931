"""Command line: ``simtviz [record|vecadd|devices|snapshot]`` (shared/CONTRACT.md).

Exit status: 0 success; 1 the check failed; 2 bad usage; 3 the launch was rejected; 4 a valid
launch refused as too large or too slow here without ``--force``. No traceback unless ``--debug``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from simtviz.backends.selection import BACKEND_CHOICES, BackendChoiceError, requested_backend
from simtviz.core.errors import (
    BackendUnavailable,
    Cancelled,
    KernelFailed,
    LaunchRejected,
    LaunchTooLarge,
    SimtvizError,
)
from simtviz.core.files import ExportError
from simtviz.core.launch import Dim3, DimParseError, LaunchConfig

EXIT_OK, EXIT_CHECK_FAILED, EXIT_USAGE, EXIT_REJECTED, EXIT_TOO_LARGE = 0, 1, 2, 3, 4


class UsageError(Exception):
    """Bad command-line input; reported in one line with exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One line, no usage dump: a student should see what was wrong, not a wall of text.
        raise UsageError(f"{self.prog}: {message} (see {self.prog.split()[0]} --help)")


def _dim(text: str) -> Dim3:
    try:
        return Dim3.parse(text)
    except DimParseError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _positive_int(text: str) -> int:
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


def _backend(text: str) -> str:
    value = text.strip().lower()
    if value not in BACKEND_CHOICES:
        raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(BACKEND_CHOICES)}")
    return value


def build_parser() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    common.add_argument(
        "--backend", type=_backend, default=None, help="auto (default), gpu or sim; env SIMTVIZ_BACKEND"
    )
    common.add_argument("--debug", action="store_true", help="show Python tracebacks")

    parser = _Parser(
        prog="simtviz",
        description="See CUDA's SIMT thread indexing. Without a command, opens the desktop app.",
        parents=[common],
    )
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    rec = sub.add_parser(
        "record", parents=[common], help="launch the instrumented kernel once and save what every thread saw"
    )
    rec.add_argument("--grid", type=_dim, required=True, help="X[,Y[,Z]] blocks")
    rec.add_argument("--block", type=_dim, required=True, help="X[,Y[,Z]] threads per block")
    rec.add_argument("--out", type=Path, required=True, help="output .npz file")
    rec.add_argument("--force", action="store_true", help="run even if the launch would take long here")
    rec.add_argument(
        "--budget", type=_positive_int, default=None, help="most threads to record (default 16,777,216)"
    )

    vec = sub.add_parser("vecadd", parents=[common], help="the chapter's vector add, verified and timed")
    vec.add_argument(
        "--n",
        type=_positive_int,
        default=None,
        help="vector length (default 2^24+11 on a GPU, 2^12+11 in the simulator)",
    )
    vec.add_argument("--block", type=_positive_int, default=256, help="threads per block (default 256)")
    vec.add_argument(
        "--repeat",
        type=_positive_int,
        default=None,
        help="timed launches (default 50 on a GPU, 1 in the simulator)",
    )
    vec.add_argument(
        "--unguarded", action="store_true", help="the kernel as printed in the guide, without 'if i < C.size'"
    )
    vec.add_argument("--json", action="store_true", help="print the result as one JSON line")
    vec.add_argument("--force", action="store_true", help="run even if it would take long here")
    vec.add_argument(
        "--sweep",
        action="store_true",
        help="also time block sizes 32 ... 1024 (bandwidth, grid, idle threads)",
    )

    dev = sub.add_parser("devices", parents=[common], help="list the backends and their launch limits")
    dev.add_argument("--json", action="store_true")

    snap = sub.add_parser("snapshot", parents=[common], help="render the index map to a PNG without a window")
    snap.add_argument("--grid", type=_dim, required=True)
    snap.add_argument("--block", type=_dim, required=True)
    snap.add_argument(
        "--color", default="global linear index", help="colour field, e.g. blockIdx.x, warp, lane"
    )
    snap.add_argument("--out", type=Path, required=True, help="output .png file")
    snap.add_argument("--z", type=_positive_int, default=0, help="z-plane of a 3-D launch")
    snap.add_argument("--force", action="store_true")
    return parser


def _err(*lines: str) -> None:
    for line in lines:
        print(line, file=sys.stderr)


def cmd_record(args: argparse.Namespace) -> int:
    from simtviz.backends import create_backend
    from simtviz.core.window import DEFAULT_BUDGET_THREADS, choose_window

    config = LaunchConfig(args.grid, args.block)
    backend = create_backend(args.backend)
    window = choose_window(config, args.budget or DEFAULT_BUDGET_THREADS)
    recording = backend.record(config, window, force=args.force)
    to_host = getattr(backend, "to_host", None)
    if to_host is not None:
        recording = to_host(recording)
    path = recording.save_npz(args.out)
    verification = recording.verification
    assert verification is not None
    print(f"{config.launch_line()} on {backend.info().label}")
    print(window.describe(config))
    print(verification.summary())
    print(describe_timings(recording.timings_ms))
    print(f"saved {path}")
    return EXIT_OK if verification.ok else EXIT_CHECK_FAILED


def describe_timings(timings: dict[str, float | None]) -> str:
    """E.g. ``kernel 0.534 ms (CUDA events), launch 1.5 ms, verify 1.6 ms``; unknowns say so."""
    kernel = timings.get("kernel_ms")
    parts = [
        f"kernel {kernel:.3f} ms (CUDA events)" if kernel is not None else "kernel time unknown (simulator)"
    ]
    for key, label in (("wall_ms", "run (host clock)"), ("verify_ms", "verify"), ("copy_ms", "copy to host")):
        value = timings.get(key)
        if value is not None:
            parts.append(f"{label} {value:.1f} ms")
    return ", ".join(parts)


def cmd_devices(args: argparse.Namespace) -> int:
    from simtviz.devices import list_devices

    entries = list_devices(args.backend)
    if args.json:
        print(json.dumps(entries))
        return EXIT_OK
    for entry in entries:
        mark = "*" if entry["selected"] else " "
        print(f"{mark} {entry['backend']}: {entry['label']}")
        limits = entry.get("limits")
        if limits:
            block = " × ".join(f"{v:,}" for v in limits["max_block"])
            grid = " × ".join(f"{v:,}" for v in limits["max_grid"])
            print(
                f"    threads per block ≤ {limits['max_threads_per_block']:,}; block ≤ {block}; "
                f"grid ≤ {grid}; warp {limits['warp_size']}"
            )
    print("(* = the backend 'simtviz' uses here)")
    return EXIT_OK


def cmd_vecadd(args: argparse.Namespace) -> int:
    from simtviz.vecadd_cli import run_vecadd_command

    return run_vecadd_command(args)


def cmd_snapshot(args: argparse.Namespace) -> int:
    from simtviz.qt.snapshot import run_snapshot_command

    return run_snapshot_command(args)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "record": cmd_record,
    "devices": cmd_devices,
    "vecadd": cmd_vecadd,
    "snapshot": cmd_snapshot,
}


def run(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
        requested_backend(args.backend)  # rejects a bad $SIMTVIZ_BACKEND with exit 2
    except UsageError as exc:
        _err(str(exc))
        return EXIT_USAGE
    except BackendChoiceError as exc:
        _err(f"simtviz: {exc}")
        return EXIT_USAGE
    if args.command is None:
        from simtviz.app import run_app

        return run_app(args.backend)
    try:
        return COMMANDS[args.command](args)
    except LaunchRejected as exc:
        if args.debug:
            raise
        _err(exc.driver_text, exc.explanation)
        return EXIT_REJECTED
    except LaunchTooLarge as exc:
        if args.debug:
            raise
        _err(f"simtviz: {exc}")
        return EXIT_TOO_LARGE
    except BackendUnavailable as exc:
        if args.debug:
            raise
        _err(f"simtviz: {exc}", "Run with --backend sim to use the CUDA simulator on the CPU.")
        return EXIT_REJECTED
    except (KernelFailed, Cancelled) as exc:
        if args.debug:
            raise
        _err(f"simtviz: {exc}")
        return EXIT_CHECK_FAILED
    except (ExportError, BackendChoiceError, SimtvizError) as exc:
        if args.debug:
            raise
        _err(f"simtviz: {exc}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        _err("simtviz: interrupted")
        return 130
    except MemoryError:
        if args.debug:
            raise
        _err("simtviz: not enough memory for this launch's record; lower --budget")
        return EXIT_TOO_LARGE


def main(argv: Sequence[str] | None = None) -> Any:
    sys.exit(run(argv))
