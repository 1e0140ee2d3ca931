"""``simtviz occupancy``: theoretical occupancy of a launch on the current GPU or a public profile.

``--device current`` (the default) reads the GPU's attributes; without a GPU that is exit status 5
with a line naming the built-in compute capabilities, which work anywhere (computed, not measured).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from simtviz.cli.parser import at_least_one, positive_int
from simtviz.core.errors import EXIT_OK
from simtviz.core.schedule.occupancy import PROFILES

NAME = "occupancy"
HELP = "theoretical occupancy: blocks per SM, warps, limiting factor (a GPU or a profile)"


def device_choice(text: str) -> str:
    value = text.strip().lower()
    if value == "current" or value in PROFILES:
        return value
    raise argparse.ArgumentTypeError(
        f"{text!r} is neither 'current' nor a built-in compute capability ({', '.join(PROFILES)})"
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--block", type=at_least_one, required=True, help="threads per block")
    parser.add_argument(
        "--regs",
        type=at_least_one,
        default=None,
        help="registers per thread (default: the schedule kernel's on a GPU, 32 on a profile)",
    )
    parser.add_argument(
        "--smem", type=positive_int, default=0, help="shared memory per block, bytes (static + dynamic)"
    )
    parser.add_argument(
        "--device",
        type=device_choice,
        default="current",
        help=f"'current' (the GPU; default) or a compute capability: {', '.join(PROFILES)}",
    )
    parser.add_argument("--json", action="store_true", help="print the result as one JSON line")


def summary_text(s: dict[str, Any]) -> str:
    """The summary for a person: the result, then what each resource allows."""
    limits = s["limits"]

    def allowed(key: str) -> str:
        value = limits[key]
        return "no limit" if value is None else f"{value} blocks"

    lines = [
        f"{s['device']}, compute capability {s['cc']}",
        f"block of {s['block']:,} threads, {s['regs_per_thread']} registers/thread, "
        f"{s['smem_per_block']:,} B shared memory/block",
        f"active blocks per SM: {s['blocks_per_sm']}  ({s['warps_per_sm']} warps, "
        f"occupancy {s['occupancy']:.0%}), limited by {s['limiter']}",
        "each resource allows: "
        + ", ".join(
            f"{word} {allowed(key)}"
            for word, key in (
                ("threads", "threads"),
                ("blocks", "blocks"),
                ("registers", "registers"),
                ("shared memory", "shared_memory"),
            )
        ),
    ]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from simtviz.backends.schedule.occupancy import no_gpu_for_current, occupancy_summary

    if args.device == "current":
        from simtviz.backends.selection import gpu_probe, resolve_backend

        if resolve_backend(args.backend) != "gpu":
            found, why = gpu_probe()
            raise no_gpu_for_current("the CUDA simulator is in use" if found else why)
    summary = occupancy_summary(args.block, args.regs, args.smem, args.device)
    note = summary.pop("opt_in_note", None)  # words only: the JSON keys are docs/CONTRACT.md's
    if args.json:
        print(json.dumps(summary), flush=True)
    else:
        print(summary_text(summary) + (f"\n{note}" if note else ""), flush=True)
    return EXIT_OK
