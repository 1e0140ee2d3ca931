"""What both runners do before the launch: specs, rewrite, host values, the kernel's module.

The student's file is written to a temporary folder as they wrote it, and the rewritten tree
(compiled with the student's line numbers, against that file's name) runs as a module: numba
and tracebacks then quote the student's own lines. Only the runners call this, in the child
process, when the student pressed Run.
"""

from __future__ import annotations

import hashlib
import shutil
import sys
import tempfile
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simtviz.core.trace.analysis import C_OUTSIDE, C_SLOTS, COUNTERS, LOG_FIELDS, ArrayInfo
from simtviz.core.trace.args import build_host_args
from simtviz.core.trace.hazards import loop_carried
from simtviz.core.trace.model import (
    KernelCompileError,
    TopLevelError,
    TraceRequest,
    TraceResult,
    evaluate_check,
)
from simtviz.core.trace.rewrite import Rewrite
from simtviz.core.trace.source import describe_numba_error, numba_error_line

# Set by the child process: tells the parent what the run is doing (``phase``), so that a stop at
# the time limit names it: "arrays" (building the arguments), "module" (the file's top-level
# code), "kernel" (compiling and running the kernel).
PHASE_HOOK: Callable[[str], None] | None = None


def phase(name: str) -> None:
    if PHASE_HOOK is not None:
        PHASE_HOOK(name)


@dataclass
class Prepared:
    request: TraceRequest
    rewrite: Rewrite
    specs: list[Any]
    host: list[Any]  # values in the kernel's parameter order
    arrays: tuple[ArrayInfo, ...]
    folder: Path
    path: Path
    modules: dict[bool, types.ModuleType] = field(default_factory=dict)

    def kernel(self, traced: bool) -> Any:
        """The dispatcher of the traced (or the plain) kernel; its module is made on first use."""
        if traced not in self.modules:
            digest = hashlib.sha1(self.request.source.encode()).hexdigest()[:12]
            name = f"simtviz_trace_{'t' if traced else 'p'}_{digest}_{id(self):x}"
            module = types.ModuleType(name)
            module.__file__ = str(self.path)
            sys.modules[name] = module
            phase("module")
            try:
                exec(self.rewrite.compile(str(self.path), traced), module.__dict__)
            except (Exception, SystemExit) as exc:  # the file's own imports, defaults, decorators
                raise self.top_level_error(exc) from exc
            self.modules[traced] = module
            phase("kernel")
        return getattr(self.modules[traced], self.rewrite.kernel)

    def check_compiles(self) -> None:
        """Refuse, on its line, a file only compiling finds wrong (``break`` outside a loop): the
        emulator, which never compiles the file, says it as the simulator and the GPU do."""
        try:
            self.rewrite.compile(str(self.path), True)
        except SyntaxError as exc:
            raise self.top_level_error(exc) from exc

    def top_level_error(self, exc: BaseException) -> TopLevelError:
        line = self.failure_line(exc)
        where = f"line {line}: " if line else ""
        return TopLevelError(
            line or 0,
            f"{where}{type(exc).__name__}: {exc} (in the file's top-level code, which runs "
            "before the kernel)",
        )

    def inputs(self) -> dict[str, Any]:
        return {spec.name: value for spec, value in zip(self.specs, self.host, strict=True)}

    def result(
        self,
        request: TraceRequest,
        backend: str,
        analysis: Any,
        log: np.ndarray,
        outputs: dict[str, np.ndarray],
        compile_s: float,
        analysis_s: float,
        window_accesses: int,
    ) -> TraceResult:
        """The run's result, the same for both backends (the GPU adds its kernel times after)."""
        window = request.cut_window()
        analysis.hazards = loop_carried(analysis.hazards, self.rewrite.barrier_lines)
        return TraceResult(
            backend=backend,
            kernel=self.rewrite.kernel,
            grid=tuple(request.grid),  # type: ignore[arg-type]
            block=tuple(request.block),  # type: ignore[arg-type]
            sites=self.rewrite.sites,
            arrays=self.arrays,
            analysis=analysis,
            log=log,
            inputs=self.inputs(),
            outputs=outputs,
            compile_s=compile_s,
            analysis_s=analysis_s,
            window=window,
            window_accesses=window_accesses if window is not None else None,
        )

    def conclude(self, request: TraceRequest, result: TraceResult) -> None:
        """The student's check over the final arrays and the note on what the log left out
        (the window, the budget), if anything."""
        if request.check:
            result.check = evaluate_check(request.check, {**self.inputs(), **result.outputs})
        note = result.budget_note()
        if note:
            result.notes.append(note)

    def cleanup(self) -> None:
        for module in self.modules.values():
            sys.modules.pop(module.__name__, None)
        shutil.rmtree(self.folder, ignore_errors=True)

    def compile_error(self, exc: BaseException) -> KernelCompileError:
        """numba's error, on the student's line."""
        text = str(exc)
        line = numba_error_line(text, str(self.path)) or 0
        return KernelCompileError(line, describe_numba_error(text, str(self.path), self.request.filename))

    def failure_line(self, exc: BaseException) -> int | None:
        """The student's line where a Python exception (the simulator) was raised, if any; for a
        SyntaxError only compiling finds (``break`` outside a loop in a helper), the line it names."""
        if isinstance(exc, SyntaxError) and exc.filename == str(self.path):
            return exc.lineno
        tb = exc.__traceback__
        line = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == str(self.path):
                line = tb.tb_lineno
            tb = tb.tb_next
        return line


def new_log(capacity: int) -> np.ndarray:
    return np.zeros((LOG_FIELDS, capacity), dtype=np.int64)


def new_counters() -> np.ndarray:
    return np.zeros(COUNTERS, dtype=np.int64)


def window_args(request: TraceRequest) -> tuple[int, int]:
    """The traced kernel's last two arguments: the window's first block and its block count."""
    window = request.logged_blocks()
    return window.first, window.count


def read_counts(counters: Any) -> tuple[int, int]:
    """(accesses the launch made, accesses the window's threads made) from the counters' values."""
    outside, inside = int(counters[C_OUTSIDE]), int(counters[C_SLOTS])
    return outside + inside, inside


def prepare(request: TraceRequest) -> Prepared:
    """Check everything that can be checked without running the student's code (the request's
    plan: the text parsed once, in this process), then build the arguments."""
    request.check_window()
    plan = request.plan()
    rewrite = plan.rewrite
    specs = plan.specs
    phase("arrays")
    host = build_host_args(specs, request.seed)
    arrays = plan.arrays()  # in log-id order: the array parameters, then the kernel's shared arrays
    folder = Path(tempfile.mkdtemp(prefix="simtviz-trace-"))
    stem = "".join(c if c.isalnum() else "_" for c in Path(request.filename).stem) or "kernel"
    path = folder / f"{stem}.py"
    path.write_text(request.source, encoding="utf-8")
    return Prepared(request, rewrite, specs, host, arrays, folder, path)
