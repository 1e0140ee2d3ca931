"""The CLI's progress line on stderr (cli/progress.py), read back character by character.

A fake clock stands in for time.monotonic; every expected line is written out here. A log (not a
terminal) gets a line at most every 5 s and always the 100 % line; a terminal gets one line
rewritten in place every 0.2 s and a newline at the end.
"""

from __future__ import annotations

import io

import pytest

from simtviz.cli import progress as progress_module
from simtviz.cli.progress import StderrProgress, progress_for


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock(100.0)
    monkeypatch.setattr(progress_module.time, "monotonic", c)
    return c


def test_only_runs_estimated_at_3_s_or_more_get_a_progress_line() -> None:
    assert progress_for("vecadd", None) is None  # no estimate: nothing to promise
    assert progress_for("vecadd", 2.9) is None
    printer = progress_for("vecadd", 3.0)  # exactly the threshold shows
    assert printer is not None and printer.header == "vecadd, about 3 s"


def test_a_log_gets_a_line_at_most_every_5_s_and_always_the_last(clock: Clock) -> None:
    log = io.StringIO()
    p = StderrProgress("record 2^20 threads", 20.0, log)
    assert log.getvalue() == ""  # nothing before the first report (a refused run prints nothing)
    clock.now = 110.0
    p(0.5)  # 10 s for half: 10 × 0.5 / 0.5 = 10 s left
    clock.now = 112.0
    p(0.6)  # 2 s after the last line: skipped
    clock.now = 115.0
    p(0.75)  # exactly 5 s after the last line: shown; 15 × 0.25 / 0.75 = 5 s left
    clock.now = 115.1
    p(1.0)  # the end is always shown, with no time left
    p.finish()  # a log ends with its own newline already
    assert log.getvalue() == (
        "record 2^20 threads, about 20 s\n"
        "   50% after 10 s, about 10 s left\n"
        "   75% after 15 s, about 5 s left\n"
        "  100% after 15 s\n"
    )


def test_no_estimate_means_no_promise_in_the_header(clock: Clock) -> None:
    log = io.StringIO()
    p = StderrProgress("trace", None, log)
    clock.now = 100.5
    p(1.0)
    assert log.getvalue() == "trace\n  100% after 500 ms\n"


def test_time_left_only_between_2_and_100_percent(clock: Clock) -> None:
    log = io.StringIO()
    p = StderrProgress("x", None, log)
    clock.now = 160.0
    p(0.02)  # 2 %: too early to say (60 s × 0.98 / 0.02 would promise 49 min)
    clock.now = 166.0
    p(0.03)  # 66 s for 3 %: 66 × 0.97 / 0.03 = 2,134 s = 36 min left
    assert log.getvalue().splitlines()[1:] == ["    2% after 60 s", "    3% after 66 s, about 36 min left"]


def test_a_terminal_rewrites_one_line_every_0_2_s_and_ends_it(clock: Clock) -> None:
    tty = Terminal()
    p = StderrProgress("vecadd", 4.0, tty)
    clock.now = 101.0
    p(0.25)  # 1 s for a quarter: 1 × 0.75 / 0.25 = 3 s left
    clock.now = 101.1
    p(0.3)  # 0.1 s later: skipped
    clock.now = 101.3
    p(0.5)  # 0.3 s after the last: shown; 1.3 × 0.5 / 0.5 = 1.3 s → "1 s"
    p.finish()
    line1 = "   25% after 1 s, about 3 s left"  # two spaces, then the share 4 wide
    line2 = "   50% after 1 s, about 1 s left"
    assert tty.getvalue() == ("vecadd, about 4 s\n" + "\r" + line1.ljust(60) + "\r" + line2.ljust(60) + "\n")


def test_finish_without_a_report_writes_nothing() -> None:
    tty = Terminal()
    StderrProgress("vecadd", 4.0, tty).finish()
    assert tty.getvalue() == ""
