"""``simtviz snapshot``: the index map rendered offscreen to a PNG, for slides and handouts.

Uses the in-process backend (no window, no worker thread): the simulator or the GPU records the
launch, and ``simtviz.qt.snapshot.render_snapshot`` draws it the way the app does.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from simtviz.cli.interrupts import raise_if_pressed
from simtviz.cli.parser import dim, positive_int
from simtviz.core.color_names import resolve_color_field
from simtviz.core.errors import EXIT_CHECK_FAILED, EXIT_OK
from simtviz.core.files import check_writable
from simtviz.core.launch import LaunchConfig
from simtviz.core.recording import Recording

NAME = "snapshot"
HELP = "render the index map to a PNG without a window"
SMALLER = "fewer threads"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--grid", type=dim, required=True)
    parser.add_argument("--block", type=dim, required=True)
    parser.add_argument(
        "--color",
        default="global linear index",
        help="colour field, any case, e.g. blockIdx.x, warp, lane, sm, block, thread, global, start",
    )
    parser.add_argument("--out", type=Path, required=True, help="output .png file")
    parser.add_argument("--z", type=positive_int, default=0, help="z-plane of a 3-D launch")
    parser.add_argument("--force", action="store_true")


def record_for_snapshot(config: LaunchConfig, backend_flag: str | None, force: bool) -> Recording:
    from simtviz.backends import create_backend
    from simtviz.core.window import choose_window
    from simtviz.qt.settings import APP_BUDGET_THREADS

    backend = create_backend(backend_flag, in_process=True)
    window = choose_window(config, APP_BUDGET_THREADS)
    # A GPU record stays on the device: only the plane drawn crosses (render_snapshot).
    return backend.record(config, window, force=force)


def run(args: argparse.Namespace) -> int:
    """``simtviz snapshot --grid ... --block ... --color FIELD --out FILE.png [--z Z] [--force]``."""
    from simtviz.qt.messages import install_quiet_handler
    from simtviz.qt.snapshot import render_snapshot

    color = resolve_color_field(args.color)  # before the launch: a typo costs nothing
    install_quiet_handler()
    config = LaunchConfig(args.grid, args.block)
    check_writable(args.out)  # before the launch, which may take minutes
    recording = record_for_snapshot(config, args.backend, args.force)
    raise_if_pressed()  # a Ctrl+C lost during the run still saves nothing
    path = render_snapshot(recording, color, args.out, args.z)
    verification = recording.verification
    print(f"{config.launch_line()}: {recording.window.describe(config)}")
    if verification is not None:
        print(verification.summary())
    print(f"saved {path}")
    return EXIT_OK if verification is None or verification.ok else EXIT_CHECK_FAILED


# Kept under its old name for callers of simtviz.qt.snapshot.run_snapshot_command.
run_snapshot_command = run
