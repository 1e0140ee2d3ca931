"""What the emulator can run, decided from the text before anything runs.

``check_kernel`` walks the kernel and every device function it reaches and raises
``EmulatorUnsupported(construct, line)`` for the first construct the interpreter does not
implement, so a backend can run numba's simulator instead and say why, before any array changed.
"""

from __future__ import annotations

import ast
from typing import Any

from simtviz.core.errors import EmulatorUnsupported
from simtviz.emu.interp import BUILTINS
from simtviz.emu.modules import Function, Jit, Module, Namespace, Native, Special, Unavailable, _member
from simtviz.emu.values import DType

UNSUPPORTED: dict[type, str] = {
    ast.Try: "try/except", ast.With: "with", ast.Raise: "raise", ast.Assert: "assert",
    ast.Global: "global", ast.Nonlocal: "nonlocal", ast.Delete: "del", ast.ClassDef: "class",
    ast.FunctionDef: "a function defined inside a kernel", ast.Lambda: "lambda",
    ast.ListComp: "a list comprehension", ast.SetComp: "a set comprehension",
    ast.DictComp: "a dict comprehension", ast.GeneratorExp: "a generator expression",
    ast.Dict: "a dict", ast.Set: "a set", ast.JoinedStr: "an f-string", ast.Starred: "*args",
    ast.NamedExpr: "the walrus operator :=", ast.Yield: "yield", ast.YieldFrom: "yield from",
    ast.Await: "await", ast.Slice: "a slice", ast.MatMult: "the @ operator", ast.Is: "is",
    ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in", ast.AsyncFor: "async for",
    ast.Match: "match",
}  # fmt: skip


def _locals(fn: ast.FunctionDef) -> set[str]:
    names = {a.arg for a in fn.args.posonlyargs + fn.args.args}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def _static(node: ast.expr, module: Module, local: set[str]) -> Any:
    """The value of a global name or attribute chain; None when it depends on a local."""
    if isinstance(node, ast.Name):
        if node.id in local:
            return None
        if node.id in module.globals:
            return module.globals[node.id]
        if node.id in BUILTINS:
            return BUILTINS[node.id]
        return Unavailable(f"the name {node.id}")
    if isinstance(node, ast.Attribute):
        base = _static(node.value, module, local)
        if base is None:
            return None
        if isinstance(base, Namespace):
            return base.attrs.get(node.attr, Unavailable(f"{base.name}.{node.attr}"))
        if isinstance(base, Special | DType):
            return base  # threadIdx.x; float32's attributes are not used by kernels
        if isinstance(base, Module) or hasattr(base, "__name__"):
            return _member(base, node.attr)
        return Unavailable(ast.unparse(node))
    return None


def check_kernel(fn: Function) -> None:
    """Raise EmulatorUnsupported for the first construct ``fn`` (or what it calls) uses that the
    emulator cannot run."""
    seen: set[int] = set()
    _check(fn, seen)


def _check(fn: Function, seen: set[int]) -> None:
    if id(fn.node) in seen:
        return
    seen.add(id(fn.node))
    local = _locals(fn.node)
    module = fn.module
    for node in ast.walk(fn.node):
        if node is fn.node:
            continue
        what = UNSUPPORTED.get(type(node))
        if what is not None:
            raise EmulatorUnsupported(what, getattr(node, "lineno", None))
        if isinstance(node, ast.For):
            it = node.iter
            if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"):
                raise EmulatorUnsupported(f"for ... in {ast.unparse(it)} (only range(...))", node.lineno)
        elif isinstance(node, ast.Call):
            target = _static(node.func, module, local)
            if target is None:
                raise EmulatorUnsupported(f"calling {ast.unparse(node.func)}()", node.lineno)
            if isinstance(target, Unavailable):
                raise EmulatorUnsupported(target.why, node.lineno)
            if isinstance(target, Function):
                if target.kind != "device":
                    kind = "a kernel" if target.kind == "kernel" else "not a @cuda.jit(device=True) function"
                    raise EmulatorUnsupported(f"{target.name}() ({kind})", node.lineno)
                _check(target, seen)
            elif not isinstance(target, Native | DType | Jit):
                raise EmulatorUnsupported(f"{ast.unparse(node.func)}()", node.lineno)
            elif isinstance(target, Native) and target.name == "range":
                parent_ok = any(isinstance(p, ast.For) and p.iter is node for p in ast.walk(fn.node))
                if not parent_ok:
                    raise EmulatorUnsupported("range() outside a for loop", node.lineno)
        elif isinstance(node, ast.Attribute | ast.Name) and isinstance(node.ctx, ast.Load):
            value = _static(node, module, local)
            if isinstance(value, Unavailable):
                raise EmulatorUnsupported(value.why, getattr(node, "lineno", None))
