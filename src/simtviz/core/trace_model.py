"""A traced run of the student's kernel: what is asked (TraceRequest) and what came back (TraceResult)."""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simtviz.core.trace_analysis import Analysis, ArrayInfo
from simtviz.core.trace_args import DEFAULT_SEED
from simtviz.core.trace_rewrite import Site

# Accesses logged at most (56 bytes each): 2^21 ≈ 117 MB, fits a laptop GPU beside the arrays.
DEFAULT_BUDGET = 1 << 21
# The simulator logs into host memory; its launches are small anyway.
SIM_BUDGET = 1 << 20
# Seconds a traced kernel may run (its child process is killed then): an endless loop ends here.
DEFAULT_TIME_LIMIT_S = 10.0


class KernelCompileError(ValueError):
    """numba could not compile the student's kernel; ``line`` is the student's line (0: unknown)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line

    def __reduce__(self) -> tuple[type, tuple[int, str]]:  # crosses from the child process
        return (KernelCompileError, (self.line, str(self)))


@dataclass(frozen=True)
class TraceRequest:
    source: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: dict[str, str]  # NAME → SPEC, CLI syntax
    kernel: str | None = None
    filename: str = "kernel.py"  # the name shown in messages
    budget: int = DEFAULT_BUDGET
    check: str | None = None  # NumPy expression over the final arrays, e.g. "C == A + B"
    seed: int = DEFAULT_SEED
    force: bool = False
    time_kernel: bool = True  # GPU: also time the kernel as written and the traced one
    time_limit_s: float = DEFAULT_TIME_LIMIT_S  # the child process is killed after this

    @property
    def threads(self) -> int:
        return math.prod(self.grid) * math.prod(self.block)


@dataclass
class TraceResult:
    backend: str  # "sim" or "gpu:<device name>"
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    sites: tuple[Site, ...]
    arrays: tuple[ArrayInfo, ...]
    analysis: Analysis
    log: np.ndarray  # (LOG_FIELDS, logged) int64, host
    inputs: dict[str, Any]  # initial values (arrays and scalars)
    outputs: dict[str, np.ndarray]  # arrays after the traced run
    kernel_ms: float | None = None
    instrumented_ms: float | None = None
    compile_s: float | None = None
    analysis_s: float | None = None
    check: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def threads(self) -> int:
        return math.prod(self.grid) * math.prod(self.block)

    def summary(self) -> dict[str, Any]:
        """The ``simtviz trace --json`` object (shared/CONTRACT.md)."""
        out: dict[str, Any] = {
            "backend": self.backend,
            "kernel": self.kernel,
            "grid": list(self.grid),
            "block": list(self.block),
            "threads": self.threads,
        }
        out.update(self.analysis.summary())
        out["kernel_ms"] = self.kernel_ms
        out["instrumented_ms"] = self.instrumented_ms
        if self.check is not None:
            out["check"] = self.check
        return out

    def budget_note(self) -> str | None:
        a = self.analysis
        if a.logged >= a.accesses:
            return None
        return (
            f"logged {a.logged:,} of {a.accesses:,} accesses: the first ones in the order the "
            "threads made them; raise the budget to see all"
        )


_SAFE_NODES = (
    ast.Expression, ast.Compare, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Name, ast.Load, ast.Constant,
    ast.Call, ast.Attribute, ast.Subscript, ast.Slice, ast.Tuple, ast.List, ast.keyword,
    ast.operator, ast.cmpop, ast.unaryop, ast.boolop,
)  # fmt: skip


def evaluate_check(expression: str, arrays: dict[str, Any]) -> dict[str, Any]:
    """Evaluate the student's check (e.g. ``C == A + B``) over the final arrays, with ``np``.

    Only expressions: names, operators, indexing and calls such as ``np.allclose(C, A + B)``;
    no private attributes. Runs where the kernel ran (the child process), never on open.
    """
    verdict: dict[str, Any] = {"expression": expression, "passed": False, "error": None}
    try:
        tree = ast.parse(expression.strip(), mode="eval")
        for node in ast.walk(tree):
            if not isinstance(node, _SAFE_NODES):
                raise ValueError(f"{type(node).__name__} is not allowed in a check")
            if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
                raise ValueError(f"attribute {node.attr} is not allowed in a check")
        value = eval(compile(tree, "<check>", "eval"), {"__builtins__": {}, "np": np}, dict(arrays))
        verdict["passed"] = bool(np.all(value))
        if isinstance(value, np.ndarray) and value.dtype == bool and value.size:
            verdict["failing"] = int(value.size - np.count_nonzero(value))
    except Exception as exc:  # the student's expression: report it, never crash the run
        verdict["error"] = f"{type(exc).__name__}: {exc}"
    return verdict
