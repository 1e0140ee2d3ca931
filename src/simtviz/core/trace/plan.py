"""One traced run, planned once: the student's text parsed once, its kernel chosen, the arguments
matched to its parameters and the kernel rewritten, each step done at most once per request.

A ``TracePlan`` belongs to one ``TraceRequest`` (``TraceRequest.plan()`` makes it on first use
and keeps it): the app's check before Run and ``Backend.run``'s check share one, and so do the
child's GPU-compile check (``gpu_compile.signature``) and its runner (``trace.prepare``). It never
crosses to the child process: the request is pickled without it, and the child plans again from
the text, once (a parse is a few ms; a pickled tree would cost as much). Each step's outcome is
kept, a refusal included, so a file that does not parse is parsed once too.

The steps, in the order their errors are said: the arguments (``ArgSpecError``), the text and
its kernel (``TraceUnsupported``), the arguments against the parameters, the rewrite.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from simtviz.core.trace.analysis import ArrayInfo
from simtviz.core.trace.args import ArgSpec, ArraySpec, match_parameters, parse_args
from simtviz.core.trace.rewrite import Rewrite, plain_module_of, rewrite_parsed
from simtviz.core.trace.source import choose_kernel, parse
from simtviz.core.trace.stats import SHARED

T = TypeVar("T")


class TracePlan:
    """The text, kernel and arguments of one request, read once (nothing here runs them)."""

    def __init__(self, source: str, filename: str, kernel: str | None, args: Mapping[str, str]) -> None:
        self.source = source
        self.filename = filename
        self.asked_kernel = kernel
        self.args = dict(args)
        self._done: dict[str, tuple[bool, Any]] = {}

    def _once(self, step: str, make: Callable[[], T]) -> T:
        """``make()``'s value, or its error, made the first time only."""
        if step not in self._done:
            try:
                self._done[step] = (True, make())
            except Exception as exc:
                self._done[step] = (False, exc)
        ok, value = self._done[step]
        if not ok:
            raise value
        return value

    # --- the steps ---------------------------------------------------------------------------

    @property
    def specs_by_name(self) -> dict[str, ArgSpec]:
        """The ``--arg`` specs, each checked (ArgSpecError)."""
        return self._once("args", lambda: parse_args(self.args))

    @property
    def tree(self) -> ast.Module:
        """The student's file, parsed (TraceUnsupported for a syntax error). Never changed:
        the rewrite and the plain module are built from copies."""
        return self._once("tree", lambda: parse(self.source, self.filename))

    @property
    def kernel(self) -> ast.FunctionDef:
        """The chosen ``@cuda.jit`` kernel of ``tree`` (TraceUnsupported: none, or which one)."""
        return self._once("kernel", lambda: choose_kernel(self.tree, self.asked_kernel))

    @property
    def params(self) -> tuple[str, ...]:
        fn = self.kernel
        return tuple(a.arg for a in fn.args.posonlyargs + fn.args.args)

    @property
    def specs(self) -> list[ArgSpec]:
        """One spec per parameter, in the kernel's order (ArgSpecError when they do not match)."""
        return self._once("specs", lambda: match_parameters(self.params, self.specs_by_name))

    @property
    def rewrite(self) -> Rewrite:
        """The traced (and plain) module, checked in the order the errors are said."""

        def make() -> Rewrite:
            self.specs_by_name  # noqa: B018  (a bad SPEC is said before the file's problems)
            dims = {s.name: s.ndim for s in self.specs if isinstance(s, ArraySpec)}
            return rewrite_parsed(self.tree, self.kernel, dims)

        return self._once("rewrite", make)

    def arrays(self) -> tuple[ArrayInfo, ...]:
        """Every traced array in log-id order: the array parameters, then the shared arrays."""
        params = tuple(ArrayInfo(s.name, s.shape, s.dtype) for s in self.specs if isinstance(s, ArraySpec))
        return params + tuple(ArrayInfo(s.name, s.shape, s.dtype, SHARED) for s in self.rewrite.shared)

    def plain_module(self) -> tuple[ast.Module, str]:
        """The module a GPU would compile (``rewrite.plain_module``), from the one parse; it
        does not need the rewrite, so a kernel the tracer refuses still gets one."""
        return plain_module_of(self.tree, self.kernel), self.kernel.name
