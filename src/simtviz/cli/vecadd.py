"""``simtviz vecadd``: the guide's vector add, verified and timed (docs/CONTRACT.md).

Exit status: 0 verified; 1 the check failed or the kernel raised (the unguarded kernel in the
simulator); 3 and 4 come from ``cli.errors`` (LaunchRejected, LaunchTooLarge).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from simtviz.cli.parser import positive_int
from simtviz.cli.progress import progress_for
from simtviz.core.errors import EXIT_CHECK_FAILED, EXIT_OK
from simtviz.core.vecadd import GPU_WOULD_NOT_RAISE, VecaddRequest, VecaddResult, default_n, report_text

NAME = "vecadd"
HELP = "the chapter's vector add, verified and timed"
SMALLER = "a smaller --n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--n",
        type=positive_int,
        default=None,
        help="vector length (default 2^24+11 on a GPU, 2^12+11 in the simulator)",
    )
    parser.add_argument("--block", type=positive_int, default=256, help="threads per block (default 256)")
    parser.add_argument(
        "--repeat",
        type=positive_int,
        default=None,
        help="timed launches (default 50 on a GPU, 1 in the simulator)",
    )
    parser.add_argument(
        "--unguarded", action="store_true", help="the kernel as printed in the guide, without 'if i < C.size'"
    )
    parser.add_argument("--json", action="store_true", help="print the result as one JSON line")
    parser.add_argument("--force", action="store_true", help="run even if it would take long here")
    parser.add_argument(
        "--sweep",
        action="store_true",
        help="also time block sizes 32 ... 1024 (bandwidth, grid, idle threads)",
    )


def request_from_args(args: argparse.Namespace, kind: str) -> VecaddRequest:
    return VecaddRequest(
        n=args.n if args.n is not None else default_n(kind),
        block=args.block,
        repeat=args.repeat or None,
        guarded=not args.unguarded,
        force=bool(args.force),
        sweep=bool(args.sweep),
    )


def print_result(result: VecaddResult, as_json: bool) -> None:
    if as_json:
        for row in result.sweep:
            print(json.dumps({"sweep": asdict(row)}))
        # The contract: one JSON object, on one line, last on stdout.
        print(json.dumps(result.to_json_dict()), flush=True)
    else:
        print(report_text(result), flush=True)


def run(args: argparse.Namespace) -> int:
    from simtviz.backends import create_backend
    from simtviz.backends.vecadd import VECADD, run_vecadd

    backend = create_backend(args.backend)
    request = request_from_args(args, backend.kind)
    info = backend.info()
    progress = progress_for(
        f"vecadd: {request.config.total_threads:,} threads on {info.device_words}",
        VECADD.estimate_s(request, info),
    )
    try:
        result = run_vecadd(backend, request, progress)
    finally:
        if progress is not None:
            progress.finish()
    print_result(result, args.json)
    if result.kernel_error is not None:
        lines = [f"simtviz: the kernel raised {result.kernel_error}"]
        # Said once: the text report on stdout already carries the explanation.
        if result.simulated and args.json:
            lines.append(GPU_WOULD_NOT_RAISE)
        print("\n".join(lines), file=sys.stderr)
        return EXIT_CHECK_FAILED
    if not result.verified:
        print(f"simtviz: the check failed\n{result.assertion_text or ''}".rstrip(), file=sys.stderr)
        return EXIT_CHECK_FAILED
    return EXIT_OK
