"""The lesson's value types: a step, its Try-its, its errata cards, its question and its claims.

Qt-free, frozen data: the steps themselves are in ``lesson_steps_*``; ``simtviz.core.lesson``
assembles them in the chapter's order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

# What a Try-it can ask the app to do.
ACTIONS = ("probe", "index_map", "vecadd", "open_view")

# The backend kinds a claim can be checked on (BackendInfo.kind).
KINDS = ("sim", "gpu")


def _frozen(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class Erratum:
    """One error in the chapter: what it says, what is true, and the probe that shows it live."""

    id: str
    chapter_says: str  # the English gist of the chapter's words
    truth: str
    probe: str  # a name in simtviz.backends.lesson.PROBES
    evidence: str  # the key of that probe's result that proves it


@dataclass(frozen=True)
class TryIt:
    """A demonstration: ``action`` (one of ACTIONS) with its parameters."""

    action: str
    label: str
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ValueError(f"unknown Try-it action {self.action!r}")
        object.__setattr__(self, "params", _frozen(self.params))


@dataclass(frozen=True)
class Question:
    """Asked before the step's Try it: the student predicts, then the run measures.

    ``answer`` is what a GPU does (measured on the H200; tests/gpu/test_lesson_gpu.py checks it);
    the run reads the measured value from ``probe``'s result at ``key``. ``sim_value`` is what the
    CPU simulator reports there (None: the simulator cannot measure it, and the result says why).
    ``choices`` empty: the answer is a whole number typed by the student.
    """

    prompt: str
    answer: str
    probe: str
    key: str
    why: str  # one or two sentences: why that is the answer
    choices: tuple[str, ...] = ()
    sim_value: str | None = None

    def __post_init__(self) -> None:
        if self.choices and self.answer not in self.choices:
            raise ValueError(f"the answer {self.answer!r} is not one of the choices")
        if not self.choices and not self.answer.lstrip("-").isdigit():
            raise ValueError(f"a typed answer must be a whole number, not {self.answer!r}")


@dataclass(frozen=True)
class Claim:
    """A sentence of the step that a run can check: ``probe``'s ``key`` equals ``expect[kind]``
    on backend ``kind`` (a kind missing from ``expect``: not checkable there)."""

    text: str
    probe: str
    key: str
    expect: Mapping[str, Any]

    def __post_init__(self) -> None:
        if not set(self.expect) <= set(KINDS):
            raise ValueError(f"unknown backend kinds in {sorted(self.expect)}")
        object.__setattr__(self, "expect", _frozen(self.expect))


@dataclass(frozen=True)
class Step:
    section: str  # "2.2.4"; "2.2.2.3+" for a step the lesson adds after that section; "B1"...
    title: str
    explanation: tuple[str, ...]  # short sentences, one per line on the slide
    code: str  # a complete program that runs as shown ("" for a step with no code)
    try_its: tuple[TryIt, ...]
    sim_shows: str
    sim_cannot: str
    errata: tuple[Erratum, ...] = ()
    beyond: bool = False
    question: Question | None = None
    claims: tuple[Claim, ...] = ()
    diagram: str = ""  # a small monospace picture shown under the explanation
    # Explanation lines that give the question's answer away: shown once the student answered
    # or ran the Try it (the handout prints them all).
    after_answer: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.after_answer and self.question is None:
            raise ValueError(f"{self.section}: lines after the answer need a question")

    @property
    def heading(self) -> str:
        """What ``lessonStepTitle`` shows: the section number first."""
        return f"{self.section} {self.title}"

    @property
    def needs_cupy(self) -> bool:
        """True when the code imports CuPy: it runs only where there is a GPU."""
        return "import cupy" in self.code


def probe_try(name: str, label: str, **params: Any) -> TryIt:
    return TryIt("probe", label, {"probe": name, **params})
