"""Which tests run each line of one file: how `mutation.py` picks the tests a mutant meets first.

A mutant on line L can only change a test that runs line L (in this process). So the runner runs
those tests first; most mutants die there in a fraction of the whole mapping's time. A mutant
they do not kill is then run against every mapped test file, as before, so the verdict is the
same as without the map (a line may also run in a child process, from a cache filled by another
test, or in a fixture another test set up: the second run covers all of those).

Lines that run outside any test (imports during collection, module and class bodies, default
arguments) map to every test. Only ``sys.settrace`` is used, so it works on Python 3.11 and 3.12
without coverage.py.
"""

from __future__ import annotations

import ast
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

import pytest

EVERYONE = "*"  # a line that runs outside tests (module body, collection): every test may need it


def function_body_lines(source: str) -> set[int]:
    """Lines inside function bodies (not the ``def`` lines, whose defaults run at import)."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            body = node.body if isinstance(node.body, list) else [node.body]
            first = body[0].lineno
            last = max(getattr(n, "end_lineno", None) or n.lineno for n in body)
            lines.update(range(first, last + 1))
    return lines


class LineTracer:
    """pytest plugin recording, for some files, the node ids of the tests that ran each line."""

    def __init__(self, filenames: list[str]) -> None:
        self.current = EVERYONE
        self.lines: dict[str, dict[int, list[str]]] = {name: {} for name in filenames}

    def _note(self, lines: dict[int, list[str]], line: int) -> None:
        seen = lines.setdefault(line, [])
        if not seen or seen[-1] != self.current:
            seen.append(self.current)

    def _global(self, frame: FrameType, event: str, arg: Any) -> Any:
        lines = self.lines.get(frame.f_code.co_filename)
        if lines is None:
            return None
        self._note(lines, frame.f_lineno)

        def local(frame: FrameType, event: str, arg: Any) -> Any:
            if event == "line":
                self._note(lines, frame.f_lineno)
            return local

        return local

    def start(self) -> None:
        threading.settrace(self._global)
        sys.settrace(self._global)

    def stop(self) -> None:
        sys.settrace(None)
        threading.settrace(None)  # type: ignore[arg-type]

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
        self.current = item.nodeid
        yield
        self.current = EVERYONE


def tests_by_line(lines: dict[int, list[str]], source: str) -> dict[int, list[str]]:
    """Each function-body line's tests, in run order; lines that also ran outside tests, or outside
    any function, are left out (their mutants run every mapped test)."""
    body = function_body_lines(source)
    out: dict[int, list[str]] = {}
    for line, ids in lines.items():
        if line in body and EVERYONE not in ids:
            out[line] = list(dict.fromkeys(ids))
    return out
