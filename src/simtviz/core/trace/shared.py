"""The kernel's shared-memory arrays, read from its text: name, shape and dtype of each
``s = cuda.shared.array(shape, dtype)``, known before anything runs.

numba itself needs the shape as compile-time constants: an integer, a module constant
(``TILE = 32`` at the top of the file, whatever expression of numbers computes it) or a tuple of
those; ``cuda.shared.array(TPB + 2, ...)`` inside the kernel fails to type on a GPU, although the
simulator accepts it. The tracer asks the same, so that a kernel it accepts runs on both, and
it needs the shape and the element size for the bank analysis. Anything else is refused with
its line (``TraceUnsupported``). Size 0 (numba's dynamic shared memory) is refused too: the
traced launch gives no dynamic shared memory.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from dataclasses import dataclass

from simtviz.core.trace.source import TraceUnsupported

MAX_DIMS = 3
# Element types numba accepts for a shared array, by any of their usual spellings (numba.float32,
# np.float32, types.float32, "float32", ...) → NumPy's name, whose itemsize the bank analysis uses.
DTYPE_NAMES = {
    **{n: n for n in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                      "float16", "float32", "float64", "complex64", "complex128")},
    "boolean": "bool", "bool_": "bool", "b1": "bool",
    "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
    "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
    "f2": "float16", "f4": "float32", "f8": "float64", "c8": "complex64", "c16": "complex128",
    "intp": "int64", "uintp": "uint64", "double": "float64", "single": "float32",
}  # fmt: skip

_BINARY: dict[type, Callable[[int, int], int]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class SharedArray:
    """One ``cuda.shared.array`` of the kernel (one copy per block at run time)."""

    name: str
    shape: tuple[int, ...]
    dtype: str  # NumPy's name, e.g. "float32"
    line: int


def is_shared_array_call(node: ast.AST) -> bool:
    """``cuda.shared.array(...)`` (any alias of cuda) or ``shared.array(...)``."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "array"):
        return False
    owner = func.value
    return (isinstance(owner, ast.Attribute) and owner.attr == "shared") or (
        isinstance(owner, ast.Name) and owner.id == "shared"
    )


def _module_names(tree: ast.Module) -> tuple[dict[str, ast.expr], dict[str, str]]:
    """Top-level ``NAME = value`` (the last one wins, as at import) and ``import ... as`` aliases."""
    values: dict[str, ast.expr] = {}
    aliases: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    values[target.id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
            values[node.target.id] = node.value
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
    return values, aliases


class _Resolver:
    def __init__(self, tree: ast.Module) -> None:
        self.values, self.aliases = _module_names(tree)

    def integer(self, node: ast.expr, depth: int = 0) -> int | None:
        """The value of a module-level integer expression, or None when it is not one."""
        if depth > 20:
            return None
        if isinstance(node, ast.Constant):
            value = node.value
            return value if isinstance(value, int) and not isinstance(value, bool) else None
        if isinstance(node, ast.Name) and node.id in self.values:
            return self.integer(self.values[node.id], depth + 1)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            inner = self.integer(node.operand, depth + 1)
            if inner is None:
                return None
            return -inner if isinstance(node.op, ast.USub) else inner
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            left, right = self.integer(node.left, depth + 1), self.integer(node.right, depth + 1)
            if left is None or right is None:
                return None
            if isinstance(node.op, ast.Pow) and not 0 <= right <= 64:
                return None
            try:
                return _BINARY[type(node.op)](left, right)
            except (ZeroDivisionError, ValueError):
                return None
        return None

    def shape_entry(self, node: ast.expr) -> int | None:
        """One dimension as numba takes it: a number or a module constant (not an expression
        written in the kernel: numba needs a compile-time constant there)."""
        if isinstance(node, ast.Constant):
            return self.integer(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return self.integer(node)  # -1: refused below with its value
        if isinstance(node, ast.Name) and node.id in self.values:
            return self.integer(node)
        return None

    def dtype(self, node: ast.expr, depth: int = 0) -> str | None:
        if depth > 5:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return DTYPE_NAMES.get(node.value)
        if isinstance(node, ast.Attribute):
            return DTYPE_NAMES.get(node.attr)
        if isinstance(node, ast.Name):
            if node.id in self.aliases:
                return DTYPE_NAMES.get(self.aliases[node.id])
            if node.id in DTYPE_NAMES:
                return DTYPE_NAMES[node.id]
            if node.id in self.values:
                return self.dtype(self.values[node.id], depth + 1)
        return None


def _arguments(call: ast.Call, name: str) -> tuple[ast.expr, ast.expr]:
    args = list(call.args)
    keywords = {kw.arg: kw.value for kw in call.keywords}
    if len(args) + len(keywords) != 2 or any(k not in ("shape", "dtype") for k in keywords):
        raise TraceUnsupported(call.lineno, f"cuda.shared.array for {name} takes (shape, dtype)")
    shape = args[0] if args else keywords.get("shape")
    dtype = args[1] if len(args) > 1 else keywords.get("dtype")
    if shape is None or dtype is None:
        raise TraceUnsupported(call.lineno, f"cuda.shared.array for {name} takes (shape, dtype)")
    return shape, dtype


def _shape(resolver: _Resolver, node: ast.expr, name: str, line: int) -> tuple[int, ...]:
    entries = list(node.elts) if isinstance(node, ast.Tuple) else [node]
    values = [resolver.shape_entry(e) for e in entries]
    if any(v is None for v in values) or not entries:
        raise TraceUnsupported(
            line,
            f"the shape of the shared array {name}, {ast.unparse(node)}, must be known before the "
            "kernel runs: write a number, a module constant (TILE = 32 at the top of the file) or a "
            "tuple of them, as numba needs on a GPU",
        )
    shape = tuple(int(v) for v in values if v is not None)
    if len(shape) > MAX_DIMS:
        raise TraceUnsupported(
            line, f"the shared array {name} has {len(shape)} dimensions: the tracer follows 1 to 3"
        )
    if 0 in shape and len(shape) == 1:
        raise TraceUnsupported(
            line,
            f"the shared array {name} has size 0 (numba's dynamic shared memory): the traced launch "
            "gives no dynamic shared memory; give it a constant size",
        )
    if any(v <= 0 for v in shape):
        raise TraceUnsupported(
            line, f"the shared array {name} has shape {shape}: every size must be at least 1"
        )
    return shape


def find_shared_arrays(tree: ast.Module, kernel: ast.FunctionDef) -> tuple[list[SharedArray], set[int]]:
    """The kernel's shared arrays in source order, and the ids of the statements that create them.

    Each must be created once, as ``NAME = cuda.shared.array(shape, dtype)`` on its own."""
    resolver = _Resolver(tree)
    found: list[SharedArray] = []
    defining: set[int] = set()
    definitions: set[int] = set()  # the calls accepted as definitions
    for node in ast.walk(kernel):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and is_shared_array_call(node.value)
        ):
            call = node.value
            assert isinstance(call, ast.Call)
            name = node.targets[0].id
            shape_node, dtype_node = _arguments(call, name)
            dtype = resolver.dtype(dtype_node)
            if dtype is None:
                raise TraceUnsupported(
                    node.lineno,
                    f"the element type of the shared array {name}, {ast.unparse(dtype_node)}, is not one "
                    "the tracer knows: write e.g. float32 (from numba), numba.float64 or np.int32",
                )
            found.append(
                SharedArray(name, _shape(resolver, shape_node, name, node.lineno), dtype, node.lineno)
            )
            defining.add(id(node))
            definitions.add(id(call))
    for node in ast.walk(kernel):
        if is_shared_array_call(node) and id(node) not in definitions:
            raise TraceUnsupported(
                node.lineno,  # type: ignore[attr-defined]
                "cuda.shared.array(...) must be assigned to a name on a line of its own "
                "(tile = cuda.shared.array(32, float32)) for the tracer to follow it",
            )
    found.sort(key=lambda s: s.line)
    seen: dict[str, int] = {}
    for s in found:
        if s.name in seen:
            raise TraceUnsupported(
                s.line,
                f"the shared array {s.name} is created twice (line {seen[s.name]}): give each its own name",
            )
        seen[s.name] = s.line
    return found, defining
