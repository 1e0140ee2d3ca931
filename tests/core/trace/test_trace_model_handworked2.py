"""The traced run's model at two more edges, worked by hand: an error in the file's top-level code
that crosses from the traced kernel's child process (no process is started: the child's message
is made as the child makes it), and the window's words for one block and for two blocks of a
2-D grid."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from simtviz.backends.isolated import IsolatedChild
from simtviz.backends.isolated_child import _error_message
from simtviz.core.errors import describe
from simtviz.core.trace.model import BlockWindow, TopLevelError, window_words


def _parent() -> Any:
    made = IsolatedChild.__new__(IsolatedChild)
    made.proc = SimpleNamespace(returncode=0)
    made.kind, made.experiment = "sim", "trace"
    made.kill = lambda: None  # type: ignore[method-assign]
    made.stderr_text = lambda: ""  # type: ignore[method-assign]
    return made


def test_a_top_level_error_reaches_the_parent_as_itself_with_its_line_title_and_exit_2() -> None:
    # The child sends ("error", the exception pickled, ...); the parent gives back that exception,
    # so `simtviz trace` says the line and exits 2 (usage), not "the kernel failed" with exit 1.
    words = "line 3: ZeroDivisionError: division by zero (in the file's top-level code)"
    failure = _parent()._failure(_error_message(TopLevelError(3, words)))
    assert type(failure) is TopLevelError
    assert (failure.line, str(failure)) == (3, words)
    report = describe(failure)
    assert (report.exit_code, report.title) == (2, "The file's top-level code failed")


def test_window_words_name_one_blockidx_for_one_block_and_both_ends_for_two() -> None:
    # grid (3, 2): linear 4 = 1 + 1·3 → blockIdx (1, 1, 0); block (4, 2) is 8 threads.
    assert window_words(BlockWindow(4, 1), (3, 2, 1), (4, 2, 1)) == (
        "block 4 of 6 (8 threads), blockIdx (1, 1, 0)"
    )
    # blocks 2–3: linear 2 → (2, 0, 0), linear 3 = 0 + 1·3 → (0, 1, 0); 2 × 8 = 16 threads.
    assert window_words(BlockWindow(2, 2), (3, 2, 1), (4, 2, 1)) == (
        "blocks 2–3 of 6 (16 threads), blockIdx (2, 0, 0) to (0, 1, 0)"
    )
