"""``simtviz record``: launch the instrumented kernel once and save what every thread saw."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from simtviz.cli.interrupts import raise_if_pressed
from simtviz.cli.parser import at_least_one, dim
from simtviz.core.errors import EXIT_CHECK_FAILED, EXIT_OK
from simtviz.core.files import check_writable
from simtviz.core.formulas import backend_words
from simtviz.core.launch import LaunchConfig
from simtviz.core.run_timings import kernel_time_words

NAME = "record"
HELP = "launch the instrumented kernel once and save what every thread saw"
SMALLER = "a lower --budget, or fewer threads"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from simtviz.core.window import DEFAULT_BUDGET_THREADS

    parser.add_argument("--grid", type=dim, required=True, help="X[,Y[,Z]] blocks")
    parser.add_argument("--block", type=dim, required=True, help="X[,Y[,Z]] threads per block")
    parser.add_argument("--out", type=Path, required=True, help="output .npz file")
    parser.add_argument("--force", action="store_true", help="run even if the launch would take long here")
    parser.add_argument(
        "--budget",
        type=at_least_one,
        default=None,
        help=f"most threads to record (default {DEFAULT_BUDGET_THREADS:,})",
    )


def run(args: argparse.Namespace) -> int:
    from simtviz.backends import create_backend
    from simtviz.core.window import DEFAULT_BUDGET_THREADS, choose_window

    config = LaunchConfig(args.grid, args.block)
    check_writable(args.out)  # before the launch, which may take minutes
    backend = create_backend(args.backend)
    window = choose_window(config, args.budget or DEFAULT_BUDGET_THREADS)
    recording = backend.to_host(backend.record(config, window, force=args.force))
    raise_if_pressed()  # a Ctrl+C lost during the run still saves nothing
    path = recording.save_npz(args.out)
    verification = recording.verification
    assert verification is not None
    info = backend.info()
    # The emulator may have handed the run to the simulator (it said so on stderr): name what ran.
    where = f"on {info.label}" if recording.backend == info.backend_id else backend_words(recording.backend)
    print(f"{config.launch_line()} {where}")
    print(window.describe(config))
    print(verification.summary())
    print(describe_timings(recording.timings_ms, recording.backend))
    print(f"saved {path}")
    return EXIT_OK if verification.ok else EXIT_CHECK_FAILED


def describe_timings(timings: dict[str, Any], backend: str = "sim") -> str:
    """E.g. ``kernel 0.534 ms (GPU time: CUDA events, GPU kept busy), threads started within
    0.52 ms (threads' %globaltimer), host launch call 0.1 ms, verify 1.6 ms``; unknowns say so."""
    parts = [kernel_time_words(timings, backend)]
    for key, label in (
        ("launch_host_ms", "host launch call (not kernel time)"),
        ("wall_ms", "run (host clock)"),
        ("verify_ms", "verify"),
        ("copy_ms", "copy to host"),
    ):
        value = timings.get(key)
        if value is not None:
            parts.append(f"{label} {value:.1f} ms")
    return ", ".join(parts)
