"""The CLI's progress line on a stream that cannot say whether it is a terminal (a bare writer
with no ``isatty``): it is treated as a log, one line per report and no carriage returns."""

from __future__ import annotations

import pytest

from simtviz.cli import progress as progress_module
from simtviz.cli.progress import StderrProgress


class BareWriter:
    """Only write and flush: what a wrapper or a redirect may hand over as stderr."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass


def test_a_stream_without_isatty_gets_log_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: now[0])
    out = BareWriter()
    p = StderrProgress("trace", 20.0, out)  # type: ignore[arg-type]
    now[0] = 110.0
    p(0.5)  # 10 s for half: 10 × 0.5 / 0.5 = 10 s left
    now[0] = 110.5
    p(0.6)  # 0.5 s later: a terminal (every 0.2 s) would show it; a log (every 5 s) skips it
    now[0] = 111.0
    p(1.0)  # the end: always shown
    p.finish()  # a log's last line already ended
    assert out.text == "trace, about 20 s\n   50% after 10 s, about 10 s left\n  100% after 11 s\n"
