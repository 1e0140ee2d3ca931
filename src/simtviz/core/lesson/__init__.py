"""The chapter (CUDA Programming Guide §2.2, "Intro to CUDA Python") as a lesson: frozen data.

Each ``Step`` is one section or lead-in in the chapter's order (and a few the lesson adds, marked
``beyond``): a short explanation for students, a complete program that runs as shown (the
chapter's code, every change marked ``# corrected:``), the "Try it" demonstrations, a question to
answer before Try it, the claims a run checks, what the simulator can and cannot show, and the
errata cards for the errors the chapter makes at that point. A card names the live probe
(``simtviz.backends.lesson``) and the key in its result that is the evidence.

Qt-free and import-light: the lesson panel, the CLI and the handout all read this.
"""

from __future__ import annotations

from typing import Any

from simtviz.core.lesson.errata_cards import (
    BOUNDS_CHECKED,
    CP_RAND,
    CP_SYNCHRONIZE,
    CUDA_LANG,
    EXCEPT_EXCEPTION,
    GPU_ARRAY_ERROR,
    HOST_ARRAY_ERROR,
    IMPLICIT_COPIES,
    UNDEFINED_A,
    UNIFORM_FLOAT32,
    ZEROS_FLOAT32,
)
from simtviz.core.lesson.model import ACTIONS, KINDS, Claim, Erratum, Question, Step, TryIt
from simtviz.core.lesson.steps_beyond import STEPS as _BEYOND_STEPS
from simtviz.core.lesson.steps_intro import STEPS as _INTRO_STEPS
from simtviz.core.lesson.steps_kernels import STEPS as _KERNEL_STEPS
from simtviz.core.lesson.steps_memory import STEPS as _MEMORY_STEPS

__all__ = [
    "ACTIONS",
    "BOUNDS_CHECKED",
    "CP_RAND",
    "CP_SYNCHRONIZE",
    "CUDA_LANG",
    "EXCEPT_EXCEPTION",
    "GPU_ARRAY_ERROR",
    "HOST_ARRAY_ERROR",
    "IMPLICIT_COPIES",
    "KINDS",
    "STEPS",
    "UNDEFINED_A",
    "UNIFORM_FLOAT32",
    "ZEROS_FLOAT32",
    "Claim",
    "Erratum",
    "Question",
    "Step",
    "TryIt",
    "errata",
    "probe_params",
    "probes_of",
    "questions",
    "sections_of",
    "step",
    "step_count",
]

STEPS: tuple[Step, ...] = (*_INTRO_STEPS, *_KERNEL_STEPS, *_MEMORY_STEPS, *_BEYOND_STEPS)


def step_count() -> int:
    return len(STEPS)


def step(section: str) -> Step:
    """The step for ``section`` (e.g. "2.2.4"); KeyError if there is none."""
    for s in STEPS:
        if s.section == section:
            return s
    raise KeyError(section)


def errata() -> tuple[Erratum, ...]:
    """Every erratum once, in the order the lesson first shows it."""
    seen: dict[str, Erratum] = {}
    for s in STEPS:
        for e in s.errata:
            seen.setdefault(e.id, e)
    return tuple(seen.values())


def sections_of(erratum_id: str) -> tuple[str, ...]:
    """The sections whose step carries the card for ``erratum_id``."""
    return tuple(s.section for s in STEPS if any(e.id == erratum_id for e in s.errata))


def probes_of(s: Step) -> tuple[str, ...]:
    """Every probe a step needs: its Try-its', its errata cards' and its claims' evidence."""
    names = [t.params["probe"] for t in s.try_its if t.action == "probe"]
    names += [e.probe for e in s.errata]
    names += [c.probe for c in s.claims]
    return tuple(dict.fromkeys(names))


def probe_params(s: Step, probe: str) -> dict[str, Any]:
    """The parameters ``s`` runs ``probe`` with: its first Try-it of that probe's ({} if none)."""
    for t in s.try_its:
        if t.action == "probe" and t.params["probe"] == probe:
            return {k: v for k, v in t.params.items() if k != "probe"}
    return {}


def questions() -> tuple[tuple[Step, Question], ...]:
    """Every step that asks a question before its Try it, with the question."""
    return tuple((s, s.question) for s in STEPS if s.question is not None)
