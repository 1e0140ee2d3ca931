"""Progress of a long run on stderr, so that a 40-second simulator run is not 40 silent seconds.

On a terminal one line is rewritten in place; in a log (not a terminal) a line is added at most
every ``LOG_EVERY_S`` seconds. stdout stays clean for the result (and ``--json``).
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from simtviz.core.estimates import format_duration

# Runs estimated shorter than this print no progress: they end before anyone wonders.
SHOW_AFTER_S = 3.0
TTY_EVERY_S = 0.2
LOG_EVERY_S = 5.0


class StderrProgress:
    """A ``Progress`` callable: ``progress(share)`` with share in 0..1; ``finish()`` at the end."""

    def __init__(self, what: str, estimate_s: float | None, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.start = time.monotonic()  # the checks before the run take milliseconds
        self.last = -1e9
        self.shown = False
        eta = f", about {format_duration(estimate_s)}" if estimate_s is not None else ""
        self.header = f"{what}{eta}"  # printed at the first report: a refused run prints nothing

    def _write(self, text: str, end: str) -> None:
        self.stream.write(text + end)
        self.stream.flush()

    def __call__(self, share: float) -> None:
        if not self.shown:
            self.shown = True
            self._write(self.header, end="\n")
        now = time.monotonic()
        if now - self.last < (TTY_EVERY_S if self.tty else LOG_EVERY_S) and share < 1.0:
            return
        self.last = now
        elapsed = now - self.start
        left = ""
        if 0.02 < share < 1.0:
            left = f", about {format_duration(elapsed * (1 - share) / share)} left"
        text = f"  {share:4.0%} after {format_duration(elapsed)}{left}"
        if self.tty:
            self._write("\r" + text.ljust(60), end="")
        else:
            self._write(text, end="\n")

    def finish(self) -> None:
        if self.tty and self.shown:
            self._write("", end="\n")


def progress_for(what: str, estimate_s: float | None) -> StderrProgress | None:
    """A progress printer when the run is estimated to take long enough to need one."""
    if estimate_s is None or estimate_s < SHOW_AFTER_S:
        return None
    return StderrProgress(what, estimate_s)
