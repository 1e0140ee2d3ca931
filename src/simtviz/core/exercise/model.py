"""What an exercise is, and what grading it gives."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

CHECKS = ("output", "in_bounds", "written_once", "coalesced", "conflict_free", "race_free")
CHECK_TITLES = {
    "output": "Output",
    "in_bounds": "In bounds",
    "written_once": "Written once",
    "coalesced": "Coalesced",
    "conflict_free": "No bank conflicts",
    "race_free": "No races",
}


@dataclass(frozen=True)
class Case:
    """One launch the grader makes: arguments in ``simtviz trace``'s SPEC syntax."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: dict[str, str]

    @property
    def threads(self) -> int:
        return math.prod(self.grid) * math.prod(self.block)

    def words(self) -> str:
        arrays = ", ".join(f"{k}={v.split(':')[0]}" for k, v in self.args.items())
        return f"grid {_dims(self.grid)}, block {_dims(self.block)}, {arrays}"


def _dims(d: tuple[int, ...]) -> str:
    while len(d) > 1 and d[-1] == 1:
        d = d[:-1]
    return d[0].__str__() if len(d) == 1 else "(" + ", ".join(map(str, d)) + ")"


@dataclass(frozen=True)
class Exercise:
    id: str
    title: str
    kernel: str
    params: tuple[str, ...]
    statement: str  # plain words; blank lines separate paragraphs
    picture: str  # a small ASCII drawing, shown in a fixed-width font
    starter: str  # the file the student starts from
    hints: tuple[str, ...]  # unlocked one by one
    checks: tuple[str, ...]  # names from CHECKS, in the order shown
    outputs: tuple[str, ...]  # the arrays the kernel writes
    cases: tuple[Case, ...]
    expect: Callable[[dict[str, Any]], dict[str, Any]]  # inputs → expected outputs (NumPy)
    topic: str = ""  # the chapter idea it practises
    coalesced_slack: float = 1.0  # sectors per request allowed beyond the ideal (misaligned halos)

    @property
    def signature(self) -> str:
        return f"{self.kernel}({', '.join(self.params)})"


@dataclass
class CheckResult:
    name: str
    passed: bool
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "passed": self.passed, "detail": self.detail}


@dataclass
class Report:
    exercise: str
    backend: str
    checks: list[CheckResult]
    explanations: list[str] = field(default_factory=list)  # "explain my bug", from the trace

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)

    def check(self, name: str) -> CheckResult:
        return next(c for c in self.checks if c.name == name)

    def to_json(self) -> dict[str, Any]:
        return {
            "exercise": self.exercise,
            "backend": self.backend,
            "passed": self.passed,
            "checks": [c.to_json() for c in self.checks],
            "explanations": self.explanations,
        }
