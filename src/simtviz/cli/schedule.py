"""``simtviz schedule``: where and when each block ran on a GPU, beside the theoretical occupancy.

GPU only: the CUDA simulator has no SMs and no GPU clock, so there is nothing to measure there
(exit status 5, said before anything starts). ``--out`` saves one row per block (.npz) that the
desktop app's schedule view opens anywhere.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from simtviz.cli.interrupts import raise_if_pressed
from simtviz.cli.parser import dim, positive_int
from simtviz.core.errors import EXIT_OK
from simtviz.core.files import check_writable
from simtviz.core.schedule import disagreements

NAME = "schedule"
HELP = "where and when each block ran on the GPU: residency and waves beside the theory (GPU only)"


def non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if math.isnan(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number")
    if math.isinf(value):
        raise argparse.ArgumentTypeError(f"{text} is not a finite number")
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--grid", type=dim, required=True, help="X[,Y[,Z]] blocks")
    parser.add_argument("--block", type=dim, required=True, help="X[,Y[,Z]] threads per block")
    parser.add_argument(
        "--work-us",
        type=non_negative_float,
        default=0.0,
        help="busy work per thread, µs (spins on the GPU clock; about 20 makes residency visible)",
    )
    parser.add_argument("--smem", type=positive_int, default=0, help="dynamic shared memory per block, bytes")
    parser.add_argument(
        "--heavy", action="store_true", help="the register-heavy kernel (registers limit residency)"
    )
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON line")
    parser.add_argument("--out", type=Path, default=None, help="save one row per block (.npz)")


def summary_text(s: dict[str, Any]) -> str:
    """Theory and measurement side by side, and whether they agree."""
    t, m = s["theoretical"], s["measured"]
    grid = "×".join(str(v) for v in s["grid"])
    block = "×".join(str(v) for v in s["block"])
    driver = s["driver_blocks_per_sm"]
    lines = [
        f"{s['backend']}: grid {grid} = {s['blocks']:,} blocks of {block} threads, "
        f"{s['work_us']:g} µs of work per thread",
        f"kernel: {s['regs_per_thread']} registers/thread, {s['smem_per_block']:,} B shared memory/block; "
        f"{s['sms']} SMs",
        f"{'':28}{'theory':>10}{'driver':>10}{'measured':>10}",
        f"{'resident blocks per SM':28}{t['blocks_per_sm']:>10}{_cell(driver):>10}"
        f"{_cell(m['max_resident_blocks_per_sm']):>10}   (limited by {t['limiter']})",
        f"{'waves':28}{_cell(t['waves']):>10}{'':>10}{_cell(m['waves']):>10}",
        f"{'SMs used':28}{s['sms']:>10}{'':>10}{_cell(m['sms_used']):>10}",
    ]
    if m["span_us"] is not None:
        lines.append(f"first start to last end: {m['span_us']:.1f} µs")
    lines.extend(disagreements(s) or ["theory, driver and measurement agree"])
    return "\n".join(lines)


def _cell(value: Any) -> str:
    return "—" if value is None else str(value)


def run(args: argparse.Namespace) -> int:
    from simtviz.backends import create_backend
    from simtviz.backends.schedule import SCHEDULE, check_can_measure
    from simtviz.backends.selection import resolve_backend
    from simtviz.core.launch import LaunchConfig
    from simtviz.core.schedule import ScheduleRequest, save_npz

    check_can_measure(resolve_backend(args.backend))  # before any backend starts
    if args.out is not None:
        check_writable(args.out)  # before the launch
    config = LaunchConfig(args.grid, args.block)
    grid, block = config.grid.as_tuple(), config.block.as_tuple()
    request = ScheduleRequest(grid, block, work_us=args.work_us, smem=args.smem, heavy=args.heavy)
    backend = create_backend(args.backend)
    result = backend.run(SCHEDULE, request)
    summary = result.summary()
    raise_if_pressed()  # a Ctrl+C lost during the run still saves nothing
    if args.out is not None:
        path = save_npz(result, args.out)
        if not args.json:
            print(f"saved {path}")
    if args.json:
        print(json.dumps(summary), flush=True)
    else:
        print(summary_text(summary), flush=True)
    return EXIT_OK
