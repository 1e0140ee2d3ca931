"""``simtviz vecadd``: the guide's vector add, verified and timed (shared/CONTRACT.md).

Exit status: 0 verified; 1 the check failed or the kernel raised (the unguarded kernel in the
simulator); 3 and 4 come from ``cli.run`` (LaunchRejected, LaunchTooLarge).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from simtviz.core.vecadd import GPU_WOULD_NOT_RAISE, VecaddRequest, VecaddResult, default_n, report_text


def request_from_args(args: argparse.Namespace, kind: str) -> VecaddRequest:
    return VecaddRequest(
        n=args.n if args.n is not None else default_n(kind),
        block=args.block,
        repeat=args.repeat or None,
        guarded=not args.unguarded,
        force=bool(args.force),
        sweep=bool(getattr(args, "sweep", False)),
    )


def print_result(result: VecaddResult, as_json: bool) -> None:
    if as_json:
        for row in result.sweep:
            print(json.dumps({"sweep": asdict(row)}))
        # The contract: one JSON object, on one line, last on stdout.
        print(json.dumps(result.to_json_dict()), flush=True)
    else:
        print(report_text(result), flush=True)


def run_vecadd_command(args: argparse.Namespace) -> int:
    from simtviz.backends import create_backend
    from simtviz.backends.vecadd import run_vecadd

    backend = create_backend(args.backend)
    result = run_vecadd(backend, request_from_args(args, backend.kind))
    print_result(result, args.json)
    if result.kernel_error is not None:
        lines = [f"simtviz: the kernel raised {result.kernel_error}"]
        if result.simulated:
            lines.append(GPU_WOULD_NOT_RAISE)
        print("\n".join(lines), file=sys.stderr)
        return 1
    if not result.verified:
        print(f"simtviz: the check failed\n{result.assertion_text or ''}".rstrip(), file=sys.stderr)
        return 1
    return 0
