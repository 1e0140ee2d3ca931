"""A traced run of the student's kernel: what is asked (TraceRequest) and what came back (TraceResult)."""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from simtviz.core.trace.analysis import Analysis, ArrayInfo
from simtviz.core.trace.args import DEFAULT_SEED, ArgSpecError
from simtviz.core.trace.rewrite import Site

if TYPE_CHECKING:
    from simtviz.core.trace.plan import TracePlan

# Accesses logged at most (64 bytes each): 2^21 ≈ 134 MB, fits a laptop GPU beside the arrays.
DEFAULT_BUDGET = 1 << 21
# The simulator logs into host memory; its launches are small anyway.
SIM_BUDGET = 1 << 20
# Seconds a traced kernel may run (its child process is killed then): an endless loop ends here.
DEFAULT_TIME_LIMIT_S = 10.0
_PLAN = "_plan"  # where a request keeps its TracePlan


class KernelCompileError(ValueError):
    """numba could not compile the student's kernel; ``line`` is the student's line (0: unknown)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line

    def __reduce__(self) -> tuple[type, tuple[int, str]]:  # crosses from the child process
        return (KernelCompileError, (self.line, str(self)))


class TopLevelError(KernelCompileError):
    """The file's top-level code (an import, a default value, a decorator) raised before the
    kernel could be compiled; ``line`` is the student's line (0: unknown)."""

    def __reduce__(self) -> tuple[type, tuple[int, str]]:
        return (TopLevelError, (self.line, str(self)))


@dataclass(frozen=True)
class BlockWindow:
    """The blocks whose threads are logged: ``count`` blocks from ``first``, in linear block order
    (blockIdx.x + blockIdx.y·gridDim.x + blockIdx.z·gridDim.x·gridDim.y). Whole blocks, so that
    whole warps are logged and sectors per request stay true. Every thread still runs."""

    first: int
    count: int

    @property
    def last(self) -> int:
        return self.first + self.count - 1

    @classmethod
    def parse(cls, text: str) -> BlockWindow:
        """``FIRST:COUNT`` (the CLI's ``--window``); raises ValueError with words."""
        first, sep, count = text.partition(":")
        try:
            if not sep:
                raise ValueError
            window = cls(int(first), int(count))
        except ValueError:
            raise ValueError(f"{text!r}: write FIRST:COUNT in blocks, e.g. 16:16") from None
        if window.first < 0 or window.count < 1:
            raise ValueError(f"{text!r}: the first block is 0 or more and the count at least 1")
        return window


def block_index(linear: int, grid: tuple[int, int, int]) -> tuple[int, int, int]:
    """blockIdx (x, y, z) of the block with linear id ``linear``."""
    gx, gy, _ = grid
    return linear % gx, (linear // gx) % gy, linear // (gx * gy)


def window_for(grid: tuple[int, int, int], first: int, count: int | None) -> BlockWindow | None:
    """The window of ``count`` blocks from ``first`` (``count`` None or 0: through the last
    block); None when that is the whole launch. Not checked: see ``window_problem``."""
    if not count:
        count = math.prod(grid) - first
    if first == 0 and count == math.prod(grid):
        return None
    return BlockWindow(first, count)


def window_problem(window: BlockWindow | None, grid: tuple[int, int, int]) -> str | None:
    """Why ``window`` does not fit a launch of ``grid`` blocks, in words; None when it does."""
    if window is None:
        return None
    blocks = math.prod(grid)
    launch = (
        f"the launch has {blocks:,} block{'s' if blocks != 1 else ''} (0–{blocks - 1:,})"
        if blocks
        else "the launch has no blocks"
    )
    if window.first < 0:
        return f"the window's first block is {window.first}: blocks are numbered from 0"
    if window.first >= blocks:
        return f"the window starts at block {window.first:,}, but {launch}"
    if window.count < 1:
        return f"the window has {window.count} blocks: it needs at least 1"
    if window.last >= blocks:
        return f"the window takes blocks {window.first:,}–{window.last:,}, but {launch}"
    return None


def window_words(window: BlockWindow, grid: tuple[int, int, int], block: tuple[int, int, int]) -> str:
    """E.g. ``blocks 16–31 of 4,096 (4,096 threads)``, with the blockIdx of both ends when the
    grid has more than one dimension (linear order is then not obvious)."""
    blocks = math.prod(grid)
    span = f"block {window.first:,}" if window.count == 1 else f"blocks {window.first:,}–{window.last:,}"
    text = f"{span} of {blocks:,} ({window.count * math.prod(block):,} threads)"
    if grid[1] > 1 or grid[2] > 1:
        ends = [block_index(window.first, grid), block_index(window.last, grid)]
        idx = " to ".join(f"({x}, {y}, {z})" for x, y, z in ends[: 1 if window.count == 1 else 2])
        text += f", blockIdx {idx}"
    return text


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
    window: BlockWindow | None = None  # blocks whose threads are logged; None: the whole launch

    @property
    def threads(self) -> int:
        return math.prod(self.grid) * math.prod(self.block)

    def plan(self) -> TracePlan:
        """This request's plan (``core.trace.plan``): made on first use, then kept with it."""
        plan = self.__dict__.get(_PLAN)
        if plan is None:
            from simtviz.core.trace.plan import TracePlan

            plan = TracePlan(self.source, self.filename, self.kernel, self.args)
            self.__dict__[_PLAN] = plan  # a frozen dataclass: kept beside its fields, not one of them
        return plan

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its plan: the child process plans again, from the text."""
        return {k: v for k, v in self.__dict__.items() if k != _PLAN}

    def logged_blocks(self) -> BlockWindow:
        """The window as the kernel gets it: the whole launch when none was asked."""
        return self.window or BlockWindow(0, math.prod(self.grid))

    def check_window(self) -> None:
        """ArgSpecError, in words, when the window does not fit the launch."""
        problem = window_problem(self.window, self.grid)
        if problem:
            raise ArgSpecError(problem)

    def cut_window(self) -> BlockWindow | None:
        """The window when it leaves blocks out, else None (a window of the whole launch is none)."""
        w = self.window
        return None if w is None or (w.first == 0 and w.count == math.prod(self.grid)) else w


@dataclass(frozen=True)
class CheckOutcome:
    """The student's check over the final arrays: ``passed``; ``error`` when it could not be
    evaluated (then not passed); ``failing``, the elements that differ, only when the check gave
    an array of truth values (None for one truth value, e.g. ``np.allclose(...)``)."""

    expression: str
    passed: bool
    error: str | None = None
    failing: int | None = None

    def as_json(self) -> dict[str, Any]:
        """The ``check`` object of ``trace --json`` (docs/CONTRACT.md): ``failing`` only when known."""
        out: dict[str, Any] = {"expression": self.expression, "passed": self.passed, "error": self.error}
        if self.failing is not None:
            out["failing"] = self.failing
        return out


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
    check: CheckOutcome | None = None
    notes: list[str] = field(default_factory=list)
    window: BlockWindow | None = None  # set only when the window leaves blocks out
    window_accesses: int | None = None  # accesses the window's threads made (logged or not)

    @property
    def threads(self) -> int:
        return math.prod(self.grid) * math.prod(self.block)

    def summary(self) -> dict[str, Any]:
        """The ``simtviz trace --json`` object (docs/CONTRACT.md)."""
        out: dict[str, Any] = {
            "backend": self.backend,
            "kernel": self.kernel,
            "grid": list(self.grid),
            "block": list(self.block),
            "threads": self.threads,
        }
        out.update(self.analysis.summary())
        if self.window is not None:  # only then: without a window the keys are CONTRACT's, exactly
            out["window"] = {
                "first_block": self.window.first,
                "blocks": self.window.count,
                "threads": self.window.count * math.prod(self.block),
                "accesses": self.window_accesses,
            }
        out["kernel_ms"] = self.kernel_ms
        out["instrumented_ms"] = self.instrumented_ms
        if self.check is not None:
            out["check"] = self.check.as_json()
        return out

    def window_words(self) -> str | None:
        """E.g. ``blocks 16–31 of 4,096 (4,096 threads)``; None without a window."""
        return None if self.window is None else window_words(self.window, self.grid, self.block)

    def budget_note(self) -> str | None:
        """What the log leaves out, when it leaves anything out: the window, the budget, or both."""
        a = self.analysis
        if a.logged >= a.accesses:
            return None
        head = f"logged {a.logged:,} of {a.accesses:,} accesses"
        if self.window is None:
            return f"{head}: the first ones in the order the threads made them; raise the budget to see all"
        made = self.window_accesses if self.window_accesses is not None else a.logged
        text = f"{head}: threads in window: {self.window_words()}; they made {made:,} of them"
        if a.logged < made:
            text += (
                f"; the budget kept the first {a.logged:,} in the order the threads made them "
                "(raise it to see all of the window's)"
            )
        return text + (
            "; the counts, untouched elements, multiple writers and out-of-bounds accesses speak of "
            "the logged accesses only (untouched: elements these threads did not touch)"
        )


_SAFE_NODES = (
    ast.Expression, ast.Compare, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Name, ast.Load, ast.Constant,
    ast.Call, ast.Attribute, ast.Subscript, ast.Slice, ast.Tuple, ast.List, ast.keyword,
    ast.operator, ast.cmpop, ast.unaryop, ast.boolop,
)  # fmt: skip


def evaluate_check(expression: str, arrays: dict[str, Any]) -> CheckOutcome:
    """Evaluate the student's check (e.g. ``C == A + B``) over the final arrays, with ``np``.

    Only expressions: names, operators, indexing and calls such as ``np.allclose(C, A + B)``;
    no private attributes. Runs where the kernel ran (the child process), never on open.
    """
    try:
        tree = ast.parse(expression.strip(), mode="eval")
        for node in ast.walk(tree):
            if not isinstance(node, _SAFE_NODES):
                raise ValueError(f"{type(node).__name__} is not allowed in a check")
            if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
                raise ValueError(f"attribute {node.attr} is not allowed in a check")
        value = eval(compile(tree, "<check>", "eval"), {"__builtins__": {}, "np": np}, dict(arrays))
        passed = bool(np.all(value))
        failing = None
        if isinstance(value, np.ndarray) and value.dtype == bool and value.size:
            failing = int(value.size - np.count_nonzero(value))
    except Exception as exc:  # the student's expression: report it, never crash the run
        return CheckOutcome(expression, False, f"{type(exc).__name__}: {exc}")
    return CheckOutcome(expression, passed, None, failing)
