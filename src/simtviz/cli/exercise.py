"""``simtviz exercise list|show|check``: exercises graded by what the kernel does to memory.

``check ID FILE.py`` traces the student's kernel on each of the exercise's launches (all in one
child process; this process never imports numba) and prints one verdict per check. Exit status
(docs/CONTRACT.md): 0 every check passes, 1 a check fails, 2 bad usage (an unknown exercise, an
unreadable file) or a kernel the tracer refuses or numba cannot compile; the trace's own codes
otherwise (3 launch rejected, 6 stopped at the time limit).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from simtviz.cli.parser import common_options
from simtviz.core.errors import EXIT_CHECK_FAILED, EXIT_OK, EXIT_USAGE
from simtviz.core.exercise.catalog import exercise, exercises
from simtviz.core.exercise.model import CHECK_TITLES, Exercise, Report
from simtviz.core.trace.model import DEFAULT_TIME_LIMIT_S, KernelCompileError
from simtviz.core.trace.source import TraceUnsupported

NAME = "exercise"
HELP = "exercises graded by what your kernel does to memory: list, show, check"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True, parser_class=type(parser))
    # `--backend` and `--debug` after the action too: the command's own copy, with no defaults
    # (cli.parser.common_options), so one given before the command is kept.
    common = [common_options(command=True)]
    listing = sub.add_parser("list", parents=common, help="every exercise, one a line")
    listing.add_argument("--json", action="store_true", help="print the list as one JSON line")
    show = sub.add_parser(
        "show", parents=common, help="an exercise's statement, picture, signature and launches"
    )
    show.add_argument("id", metavar="ID")
    show.add_argument("--hints", type=int, default=0, metavar="K", help="also show the first K hints")
    show.add_argument("--starter", action="store_true", help="print only the starter file (to save it)")
    check = sub.add_parser("check", parents=common, help="grade FILE.py on the exercise's launches")
    check.add_argument("id", metavar="ID")
    check.add_argument("file", type=Path, metavar="FILE.py")
    check.add_argument("--json", action="store_true", help="print the verdicts as one JSON line")
    check.add_argument(
        "--timeout", type=float, default=DEFAULT_TIME_LIMIT_S, metavar="S", help="time limit per launch"
    )


def summary(e: Exercise) -> dict[str, Any]:
    return {
        "id": e.id,
        "title": e.title,
        "signature": e.signature,
        "topic": e.topic,
        "checks": list(e.checks),
        "launches": [{"grid": list(c.grid), "block": list(c.block), "args": dict(c.args)} for c in e.cases],
    }


def show_text(e: Exercise, hints: int) -> str:
    lines = [f"{e.id} — {e.title}", f"Write: {e.signature}", ""]
    lines += [e.statement, "", e.picture, "", "The grader launches:"]
    lines += [f"  {c.words()}" for c in e.cases]
    lines += ["", "Checks: " + ", ".join(f"{n} ({CHECK_TITLES[n]})" for n in e.checks)]
    shown = e.hints[: max(0, hints)]
    lines += [f"Hint {k}: {h}" for k, h in enumerate(shown, 1)]
    if len(shown) < len(e.hints):
        lines.append(f"({len(e.hints)} hints: --hints K shows the first K)")
    lines += ["", f"Start from: simtviz exercise show {e.id} --starter > {e.kernel}.py"]
    return "\n".join(lines)


def report_text(report: Report, title: str) -> str:
    lines = [f"{report.exercise} — {title} ({report.backend})"]
    lines += [f"{'PASS' if c.passed else 'FAIL'} {c.name}: {c.detail}" for c in report.checks]
    if report.explanations:
        lines.append("Explain my bug:")
        lines += [f"  {s}" for s in report.explanations]
    passed = sum(c.passed for c in report.checks)
    lines.append(f"{passed} of {len(report.checks)} checks passed.")
    return "\n".join(lines)


def _exercise(exercise_id: str) -> Exercise | None:
    try:
        return exercise(exercise_id)
    except KeyError as exc:
        print(f"simtviz: {exc.args[0]}", file=sys.stderr)
        return None


def run(args: argparse.Namespace) -> int:
    if args.action == "list":
        if args.json:
            print(json.dumps([summary(e) for e in exercises()]), flush=True)
        else:
            for each in exercises():
                print(f"{each.id:22s} {each.signature:30s} {each.title}")
        return EXIT_OK
    e = _exercise(args.id)
    if e is None:
        return EXIT_USAGE
    if args.action == "show":
        print(e.starter if args.starter else show_text(e, args.hints), end="\n" if not args.starter else "")
        return EXIT_OK
    return _check(e, args)


def _check(e: Exercise, args: argparse.Namespace) -> int:
    from simtviz.backends import child_backend
    from simtviz.backends.exercise import EXERCISE, ExerciseRequest

    try:
        source = args.file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"simtviz: cannot read {args.file}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not args.timeout > 0:
        print(f"simtviz: --timeout must be more than 0 seconds (got {args.timeout})", file=sys.stderr)
        return EXIT_USAGE
    backend = child_backend(args.backend)  # each Check grades in a child process of its own
    request = ExerciseRequest(e.id, source, args.file.name, args.timeout)
    try:
        report = backend.run(EXERCISE, request)
    except (TraceUnsupported, KernelCompileError) as exc:
        print(f"simtviz: {args.file}, {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps(report.to_json()), flush=True)
    else:
        print(report_text(report, e.title), flush=True)
    return EXIT_OK if report.passed else EXIT_CHECK_FAILED
