"""Sensible arguments for a kernel's parameters, read from its text (never run): what "Read
parameters from the code" fills the Your kernel tab's table with.

- a parameter the kernel indexes (or updates atomically) is an array with as many dimensions as
  its first index has; the others are scalars;
- an array whose elements are used as an index (``bins[data[i] % 8]``, or through a variable
  ``b = data[i]; bins[b]``) holds integers: int32, random (0..99, good for bins and indices);
- an array counted into (``bins[b] += 1``, ``cuda.atomic.add(bins, b, 1)``) holds integers too;
- a scalar compared with a thread index or another integer (``if i < n``), used as an index or
  in ``range(...)`` is a size: int32, valued as the first 1-D array's length; any other scalar is
  float32 1.0;
- every other array is float32, 1000 elements (32×32 for 2-D, 8×8×8 for 3-D): random when the
  kernel only reads it, else zeros.
"""

from __future__ import annotations

import ast
import re

from simtviz.core.trace.source import HEADERS_ONLY_CHARS, TraceUnsupported, choose_kernel, find_kernels, parse

SHAPES = {1: "1000", 2: "32,32", 3: "8,8,8"}
DEFAULT_ARRAY = "float32[1000]:zeros"  # what the table shows for a parameter it knows nothing of
_INT_SOURCES = {"grid", "threadIdx", "blockIdx", "blockDim", "gridDim", "gridsize", "range", "len"}


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _loaded_arrays(node: ast.AST, arrays: set[str]) -> set[str]:
    """The arrays whose elements ``node`` reads."""
    return {
        n.value.id
        for n in ast.walk(node)
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in arrays
    }


def _is_atomic(call: ast.Call) -> bool:
    f = call.func
    return isinstance(f, ast.Attribute) and isinstance(f.value, ast.Attribute) and f.value.attr == "atomic"


def _array_dims(fn: ast.FunctionDef, params: tuple[str, ...]) -> dict[str, int]:
    dims: dict[str, int] = {}
    nodes = [n for n in ast.walk(fn) if isinstance(n, ast.Subscript | ast.Call)]
    for node in sorted(nodes, key=lambda n: (n.lineno, n.col_offset)):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in params:
            index = node.slice
            dims.setdefault(node.value.id, len(index.elts) if isinstance(index, ast.Tuple) else 1)
        if isinstance(node, ast.Call) and _is_atomic(node) and node.args:
            first = node.args[0]
            if isinstance(first, ast.Name) and first.id in params:
                where = node.args[1] if len(node.args) > 1 else None
                dims.setdefault(first.id, len(where.elts) if isinstance(where, ast.Tuple) else 1)
    return dims


def _indices(fn: ast.FunctionDef) -> list[ast.expr]:
    """Every expression used as an index: subscripts' and atomics' (second argument)."""
    out: list[ast.expr] = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Subscript):
            out.append(node.slice)
        elif isinstance(node, ast.Call) and _is_atomic(node) and len(node.args) > 1:
            out.append(node.args[1])
    return out


def _tainted(fn: ast.FunctionDef, arrays: set[str]) -> dict[str, set[str]]:
    """Local name → the arrays its value was read from (followed through assignments)."""
    taint: dict[str, set[str]] = {}
    grew = True
    while grew:  # until a pass adds nothing: a chain of any length, its links in any order
        grew = False
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                sources = _loaded_arrays(node.value, arrays)
                for name in _names(node.value):
                    sources |= taint.get(name, set())
                for t in targets:
                    if isinstance(t, ast.Name) and not sources <= taint.get(t.id, set()):
                        taint.setdefault(t.id, set()).update(sources)
                        grew = True
    return taint


def index_arrays(fn: ast.FunctionDef, arrays: set[str]) -> dict[str, int]:
    """Arrays whose elements end up in an index, with the first line where they do."""
    taint = _tainted(fn, arrays)
    found: dict[str, int] = {}
    for index in sorted(_indices(fn), key=lambda n: n.lineno):
        sources = _loaded_arrays(index, arrays)
        for name in _names(index):
            sources |= taint.get(name, set())
        for a in sources:
            found.setdefault(a, index.lineno)
    return found


def _counted(fn: ast.FunctionDef, arrays: set[str]) -> set[str]:
    """Arrays incremented by an integer: ``A[b] += 1`` or ``cuda.atomic.add(A, b, 1)``."""
    out = set()
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.AugAssign)
            and isinstance(node.target, ast.Subscript)
            and isinstance(node.target.value, ast.Name)
            and isinstance(node.value, ast.Constant)
            and type(node.value.value) is int
        ):
            out.add(node.target.value.id)
        if isinstance(node, ast.Call) and _is_atomic(node) and len(node.args) > 2:
            first, value = node.args[0], node.args[2]
            if isinstance(first, ast.Name) and isinstance(value, ast.Constant) and type(value.value) is int:
                out.add(first.id)
    return out & arrays


def _stored(fn: ast.FunctionDef, arrays: set[str]) -> set[str]:
    out = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            out |= _names(node.value)
        if isinstance(node, ast.Call) and _is_atomic(node) and node.args:
            out |= _names(node.args[0])
    return out & arrays


def _int_like(node: ast.expr, ints: set[str]) -> bool:
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.Name):
        return node.id in ints
    if isinstance(node, ast.Attribute):
        return node.attr in _INT_SOURCES | {"x", "y", "z", "size"} or (
            isinstance(node.value, ast.Name) and node.value.id in _INT_SOURCES
        )
    if isinstance(node, ast.Call):
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        return name in _INT_SOURCES | {"int"}
    return isinstance(node, ast.BinOp) and _int_like(node.left, ints) and _int_like(node.right, ints)


def _size_scalars(fn: ast.FunctionDef, scalars: set[str]) -> set[str]:
    """Scalars compared with an integer (a thread index, a constant), used inside an index or
    in ``range(...)``."""
    ints: set[str] = set()
    while True:  # until a pass adds nothing: a chain of any length, in any order
        known = len(ints)
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and _int_like(node.value, ints):
                ints |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
                ints.add(node.target.id)
        if len(ints) == known:
            break
    out = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            named = {s.id for s in sides if isinstance(s, ast.Name) and s.id in scalars}
            others = [s for s in sides if not (isinstance(s, ast.Name) and s.id in named)]
            if named and any(_int_like(s, ints) for s in others):
                out |= named
    for index in _indices(fn):
        out |= _names(index) & scalars
    for node in ast.walk(fn):  # range(n), range(a, b, step): numba wants integers there
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
            for arg in node.args:
                out |= _names(arg) & scalars
    return out


def kernel_text(source: str, kernel: str | None = None) -> str:
    """``source`` itself, or for a long file only the kernel's decorators and body: parsing a
    whole 1 MB file takes seconds, and this runs on the GUI thread when a file is opened."""
    if len(source) <= HEADERS_ONLY_CHARS:
        return source
    if kernel is None:
        kernels = find_kernels(source)  # headers only, at this size
        if len(kernels) != 1:
            return ""
        kernel = kernels[0].name
    lines = source.splitlines()
    start = next(
        (i for i, line in enumerate(lines) if re.match(rf"def\s+{re.escape(kernel)}\s*\(", line)), None
    )
    if start is None:
        return ""
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or lines[end][0] in " \t#" or lines[end][0] == ")"):
        end += 1  # the body: indented, blank or comment lines (and a signature's closing line)
    while start > 0 and lines[start - 1].startswith("@"):
        start -= 1
    return "\n".join(lines[start:end])


def infer_specs(source: str, kernel: str | None = None) -> dict[str, str]:
    """NAME → SPEC (the CLI's syntax) for every parameter of ``kernel`` (or the only one);
    {} when the text has no kernel to read."""
    try:
        fn = choose_kernel(parse(kernel_text(source, kernel)), kernel)
    except TraceUnsupported:
        return {}
    params = tuple(a.arg for a in fn.args.posonlyargs + fn.args.args)
    dims = _array_dims(fn, params)
    arrays = set(dims)
    indexing = index_arrays(fn, arrays)
    counted = _counted(fn, arrays)
    stored = _stored(fn, arrays)
    scalars = set(params) - arrays
    sizes = _size_scalars(fn, scalars)
    out = {}
    for p in params:
        if p in arrays:
            shape = SHAPES.get(dims[p], SHAPES[1])
            if p in indexing:
                out[p] = f"int32[{shape}]:random"
            elif p in counted:
                out[p] = f"int32[{shape}]:zeros"
            else:
                out[p] = f"float32[{shape}]:{'zeros' if p in stored else 'random'}"
        elif p in sizes:
            out[p] = f"int32:{SHAPES[1]}"  # as long as a 1-D array here
        else:
            out[p] = "float32:1.0"
    return out
