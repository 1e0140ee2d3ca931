"""Rewriting a student's ``@cuda.jit`` kernel so that every access to its arrays is logged.

The student's file is only *parsed* here (``ast``), never executed. In the kernel, each load
``A[i]`` / ``A[i, j]`` / ``A[i, j, k]``, store ``C[i] = v``, augmented assignment ``C[i] += v``
(a load and a store) and ``cuda.atomic.add(A, i, v)`` on a parameter array or on a shared array
the kernel creates (``s = cuda.shared.array(shape, dtype)``, see ``trace_shared``) becomes a call
to a helper of ``simtviz.kernels.trace_helpers`` that logs the access and performs it only when it
is in bounds. The log's array ids number the array parameters first, then the shared arrays in
source order (``Rewrite.array_names``); the helpers are the same for both. Each such place is
a ``Site`` with its id, line, array and kind. Each ``cuda.syncthreads()`` statement also counts
the thread's barriers (``_tv_epoch``), which every logged access carries. The traced kernel
takes four more parameters (``EXTRA_PARAMS``): the log, its two counters, and the window of
blocks whose threads are logged (first block in linear order, number of blocks).

The rewritten tree keeps the student's line numbers (new nodes take the location of the node
they replace) and is compiled against the student's own file name, so numba's typing errors
point at the student's lines; ``numba_error_line`` and ``describe_numba_error`` turn numba's
text into "line N: …".

What the tracer refuses, each with the line (``TraceUnsupported``):
- the kernel: ``*args``, ``**kwargs``, default values, keyword-only parameters; nested ``def``,
  ``lambda``, ``class``, ``yield``, ``global``/``nonlocal``; names starting with ``_tv_``;
- on a parameter array: slices (``A[1:]``, ``A[:, j]``), ``...``, starred or more than 3
  indices, an index count that differs from the array's dimensions (``A[i][j]`` on a 2-D
  array), indices that cannot be integers (a float constant, ``/``); using the array other
  than by indexing it, ``.shape``/``.size``/``.ndim``/``.strides``/``.itemsize``/``.dtype``,
  ``len(A)`` or ``cuda.atomic.add(A, ...)`` — e.g. passing it to a device function, ``B = A``,
  ``A.T``; assigning to the parameter; ``del A[i]``; an element as a ``for`` target or inside a
  tuple/chained assignment; atomics other than ``add`` on it;
- indexing a scalar parameter;
- a shared array whose shape or dtype is not known from the text, created other than as
  ``NAME = cuda.shared.array(...)``, or twice under one name; the same uses of it as of a
  parameter array above (passing it to a function, ``t = s``, other atomics, assigning to it).
Local arrays (``cuda.local.array``) are left untraced.

Top-level statements other than imports, function definitions and constant assignments
(``TPB = 16``) are dropped from the module that runs: a file that launches its own kernel at
import must not do so when the tracer imports it.
"""

from __future__ import annotations

import ast
import types
from collections.abc import Mapping
from dataclasses import dataclass, field

from simtviz.core.trace.ast_nodes import array_name as _array_name
from simtviz.core.trace.ast_nodes import at as _at
from simtviz.core.trace.ast_nodes import call as _call
from simtviz.core.trace.ast_nodes import const as _const
from simtviz.core.trace.ast_nodes import indices as _indices
from simtviz.core.trace.ast_nodes import name as _name
from simtviz.core.trace.shared import SharedArray, find_shared_arrays
from simtviz.core.trace.source import (
    PREFIX,
    TraceUnsupported,
    choose_kernel,
    kept_statement,
    parse,
    refuse_hidden_barriers,
)

KINDS = ("load", "store", "atomic")
LOG = "_tv_log"
COUNT = "_tv_count"
TID = "_tv_tid"
EPOCH = "_tv_epoch"  # the thread's barrier count: each cuda.syncthreads() adds 1
FIRST = "_tv_first"  # the window: its first block (linear order) and how many blocks
BLOCKS = "_tv_blocks"
EXTRA_PARAMS = (LOG, COUNT, FIRST, BLOCKS)  # appended to the kernel's own parameters
CUDA = "_tv_cuda"
HELPER_MODULE = "simtviz.kernels.trace_helpers"
ARRAY_ATTRIBUTES = {"shape", "size", "ndim", "strides", "itemsize", "dtype"}
ATOMIC_OPS = {"add", "sub", "max", "min", "nanmax", "nanmin", "and_", "or_", "xor", "exch", "inc", "dec",
              "cas", "compare_and_swap"}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Site:
    """One traced access in the source: the log's site id refers to it."""

    id: int
    line: int
    col: int
    array: str
    kind: str  # "load", "store" or "atomic"
    ndim: int
    space: str = "global"  # "global" (a parameter array) or "shared" (a cuda.shared.array)


@dataclass
class Rewrite:
    """The result: the traced module's tree and the plain one, with the sites and the arrays."""

    kernel: str
    params: tuple[str, ...]
    arrays: tuple[str, ...]  # traced array parameters: array ids 0 .. len(arrays) - 1
    sites: tuple[Site, ...]
    tree: ast.Module  # traced module (student line numbers)
    plain_tree: ast.Module  # the same module, kernel as written (for its own timing)
    dropped_lines: list[int] = field(default_factory=list)
    shared: tuple[SharedArray, ...] = ()  # shared arrays: the array ids after the parameters'
    barrier_lines: tuple[int, ...] = ()  # lines of the kernel's cuda.syncthreads() statements

    @property
    def array_names(self) -> tuple[str, ...]:
        """Every traced array by its log id: the parameters, then the shared arrays."""
        return self.arrays + tuple(s.name for s in self.shared)

    @property
    def source(self) -> str:
        """The traced module as text, for reading (its line numbers are not the student's)."""
        return ast.unparse(self.tree)

    def compile(self, filename: str, traced: bool = True) -> types.CodeType:
        return compile(self.tree if traced else self.plain_tree, filename, "exec")

    def array_id(self, name: str) -> int:
        return self.array_names.index(name)


def _module(tree: ast.Module, kernel: ast.FunctionDef, extra_imports: list[ast.stmt]) -> ast.Module:
    """Kept top-level statements, the kernel's decorator a plain ``cuda.jit``: its parameters'
    types come from the arguments, and a signature the student wrote would not fit the traced
    kernel's extra parameters."""
    body: list[ast.stmt] = []
    for node in tree.body:
        if node is kernel:
            node.decorator_list = [
                _at(ast.Attribute(value=ast.Name(id=CUDA, ctx=ast.Load()), attr="jit", ctx=ast.Load()), node)
            ]
        if kept_statement(node):
            body.append(node)
    # after the docstring and any `from __future__` import, which must come first (the kernel's
    # def, always kept, ends the walk)
    at = 0
    while (isinstance(body[at], ast.ImportFrom) and body[at].module == "__future__") or (  # type: ignore[attr-defined]
        at == 0 and isinstance(body[at], ast.Expr)
    ):
        at += 1
    body[at:at] = extra_imports
    module = ast.Module(body=body, type_ignores=[])
    return ast.fix_missing_locations(module)


def _imports(names: list[str], line: int) -> list[ast.stmt]:
    like = ast.Pass(lineno=line, col_offset=0, end_lineno=line, end_col_offset=0)
    stmts: list[ast.stmt] = [
        _at(ast.ImportFrom(module="numba", names=[ast.alias(name="cuda", asname=CUDA)], level=0), like)
    ]
    if names:
        aliases = [ast.alias(name=n, asname=PREFIX + n.removeprefix("tv_")) for n in names]
        stmts.append(_at(ast.ImportFrom(module=HELPER_MODULE, names=aliases, level=0), like))
    return stmts


# --- the kernel ------------------------------------------------------------------------------


def _atomic_op(call: ast.Call) -> str | None:
    """``add`` for ``cuda.atomic.add(...)`` (any alias of cuda), else the op name, else None."""
    func = call.func
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Attribute)
        and func.value.attr == "atomic"
        and func.attr in ATOMIC_OPS
    ):
        return func.attr
    return None


def _is_barrier(node: ast.expr) -> bool:
    """``cuda.syncthreads()`` (any alias of cuda) or ``syncthreads()`` imported from it."""
    func = getattr(node, "func", None)
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return isinstance(node, ast.Call) and not node.args and name == "syncthreads"


class _KernelRewriter(ast.NodeTransformer):
    def __init__(
        self,
        arrays: dict[str, int],
        scalars: set[str],
        order: tuple[str, ...],
        shared: frozenset[str] = frozenset(),
        shared_defs: frozenset[int] = frozenset(),
    ) -> None:
        self.arrays = arrays  # name → ndim (0 until the first use fixes it, when not given)
        self.scalars = scalars
        self.order = order  # array ids
        self.shared = shared  # names of the shared arrays (also in arrays and order)
        self.shared_defs = shared_defs  # ids of the `s = cuda.shared.array(...)` statements
        self.sites: list[Site] = []
        self.helpers: set[str] = set()
        self.barrier_lines: list[int] = []

    # -- bookkeeping

    def _array_id(self, name: str) -> int:
        return self.order.index(name)

    def _site(self, node: ast.AST, array: str, kind: str, ndim: int) -> int:
        space = "shared" if array in self.shared else "global"
        site = Site(len(self.sites), node.lineno, node.col_offset, array, kind, ndim, space)  # type: ignore[attr-defined]
        self.sites.append(site)
        return site.id

    def _called(self, name: str) -> str:
        """How a message names a traced array."""
        return f"the shared array {name}" if name in self.shared else f"the array parameter {name}"

    def _is_array(self, node: ast.expr) -> bool:
        return isinstance(node, ast.Name) and node.id in self.arrays

    def _check_indices(self, sub: ast.Subscript) -> list[ast.expr]:
        name = _array_name(sub.value)
        line = sub.lineno
        idx = _indices(sub.slice)
        for i in idx:
            if isinstance(i, ast.Slice):
                raise TraceUnsupported(
                    line, f"{name}[...] with a slice: the tracer follows single elements only"
                )
            if isinstance(i, ast.Starred):
                raise TraceUnsupported(line, f"{name}[*...]: write each index out")
            if isinstance(i, ast.Constant) and i.value is Ellipsis:
                raise TraceUnsupported(line, f"{name}[...]: Ellipsis is not traced; index single elements")
            for sub_node in ast.walk(i):
                if isinstance(sub_node, ast.Constant) and isinstance(sub_node.value, float | complex | str):
                    raise TraceUnsupported(line, f"{name}: index {ast.unparse(i)} is not an integer")
                if isinstance(sub_node, ast.BinOp) and isinstance(sub_node.op, ast.Div):
                    raise TraceUnsupported(
                        line, f"{name}: index {ast.unparse(i)} uses '/', which gives a float; use '//'"
                    )
        if len(idx) > 3:
            raise TraceUnsupported(line, f"{name} has {len(idx)} indices: the tracer follows 1 to 3")
        ndim = self.arrays[name]
        if ndim == 0:  # inferring: the first use fixes it
            self.arrays[name] = ndim = len(idx)
        if len(idx) != ndim:
            hint = f" (write {name}[i, j], not {name}[i][j])" if len(idx) < ndim else ""
            raise TraceUnsupported(line, f"{name} is {ndim}-D but is indexed with {len(idx)} index(es){hint}")
        return idx

    def _trace_args(self, node: ast.AST, site: int, array: str) -> list[ast.expr]:
        return [
            _name(LOG, node),
            _name(COUNT, node),
            _name(TID, node),
            _name(EPOCH, node),
            _const(site, node),
            _const(self._array_id(array), node),
        ]

    def _helper(self, kind: str, ndim: int) -> str:
        name = f"tv_{kind}{ndim}"
        self.helpers.add(name)
        return PREFIX + name.removeprefix("tv_")

    # -- refusals

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        raise TraceUnsupported(
            node.lineno, f"a function defined inside the kernel ({node.name}): define it at the top level"
        )

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        raise TraceUnsupported(node.lineno, "async def inside a kernel")

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        raise TraceUnsupported(node.lineno, "lambda inside the kernel")

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        raise TraceUnsupported(node.lineno, "class inside the kernel")

    def visit_Yield(self, node: ast.Yield) -> ast.AST:
        raise TraceUnsupported(node.lineno, "yield in a kernel")

    def visit_Global(self, node: ast.Global) -> ast.AST:
        raise TraceUnsupported(node.lineno, "global statement in the kernel")

    def visit_Nonlocal(self, node: ast.Nonlocal) -> ast.AST:
        raise TraceUnsupported(node.lineno, "nonlocal statement in the kernel")

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        # `cuda.syncthreads()` → `_tv_epoch = _tv_sync(_tv_epoch)`: the barrier, counted
        if _is_barrier(node.value):
            self.barrier_lines.append(node.lineno)
            self.helpers.add("tv_sync")
            call = _call(PREFIX + "sync", [_name(EPOCH, node)], node)
            return _at(ast.Assign(targets=[_name(EPOCH, node, ast.Store())], value=call), node)
        return self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> ast.AST:
        for target in node.targets:
            if isinstance(target, ast.Subscript) and self._is_array(target.value):
                raise TraceUnsupported(node.lineno, "del on an array element")
        return self.generic_visit(node)

    def _refuse_element_targets(self, target: ast.expr, line: int, what: str) -> None:
        for sub in ast.walk(target):
            if isinstance(sub, ast.Subscript) and self._is_array(sub.value):
                raise TraceUnsupported(
                    line, f"{what} stores into {ast.unparse(sub)}: write one plain store per line"
                )

    def visit_For(self, node: ast.For) -> ast.AST:
        self._refuse_element_targets(node.target, node.lineno, "the for loop's target")
        return self.generic_visit(node)

    def visit_With(self, node: ast.With) -> ast.AST:
        for item in node.items:
            if item.optional_vars is not None:
                self._refuse_element_targets(item.optional_vars, node.lineno, "with ... as")
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id.startswith(PREFIX):
            raise TraceUnsupported(node.lineno, f"the name {node.id} is reserved for the tracer ({PREFIX}…)")
        if node.id in self.arrays:
            if isinstance(node.ctx, ast.Store | ast.Del):
                raise TraceUnsupported(node.lineno, f"assigns to {self._called(node.id)}")
            raise TraceUnsupported(
                node.lineno,
                f"uses the array {node.id} as a value (passed to a function, assigned or returned): "
                f"the tracer follows only {node.id}[...], its .shape/.size and cuda.atomic.add",
            )
        return node

    # -- what is traced

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if self._is_array(node.value):
            if node.attr in ARRAY_ATTRIBUTES:
                return node
            array = _array_name(node.value)
            raise TraceUnsupported(
                node.lineno,
                f"{array}.{node.attr}: only .shape, .size, .ndim, .strides, .itemsize and .dtype "
                "of a traced array are allowed",
            )
        return self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id in self.scalars:
            raise TraceUnsupported(node.lineno, f"indexes {node.value.id}, which is a scalar argument")
        if not self._is_array(node.value):
            return self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):  # stores are handled by their statements
            raise TraceUnsupported(
                node.lineno, f"{ast.unparse(node)} as a target: write one plain store per line"
            )
        name = _array_name(node.value)
        idx = [self.visit(i) for i in self._check_indices(node)]
        site = self._site(node, name, "load", len(idx))
        return _call(
            self._helper("load", len(idx)),
            [_name(name, node), *idx, *self._trace_args(node, site, name)],
            node,
        )

    def visit_Call(self, node: ast.Call) -> ast.AST:
        op = _atomic_op(node)
        if op is not None and node.args and self._is_array(node.args[0]):
            name = _array_name(node.args[0])
            if op != "add":
                raise TraceUnsupported(
                    node.lineno, f"cuda.atomic.{op} on {name}: only cuda.atomic.add is traced"
                )
            if len(node.args) != 3 or node.keywords:
                raise TraceUnsupported(node.lineno, f"cuda.atomic.add on {name} takes (array, index, value)")
            fake = ast.Subscript(value=node.args[0], slice=node.args[1], ctx=ast.Load())
            ast.copy_location(fake, node)
            idx = [self.visit(i) for i in self._check_indices(fake)]
            value = self.visit(node.args[2])
            site = self._site(node, name, "atomic", len(idx))
            helper = self._helper("atomic_add", len(idx))
            return _call(helper, [_name(name, node), *idx, value, *self._trace_args(node, site, name)], node)
        is_len = isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1
        if is_len and self._is_array(node.args[0]):
            return node
        for arg in [*node.args, *(kw.value for kw in node.keywords)]:
            if self._is_array(arg) or (isinstance(arg, ast.Starred) and self._is_array(arg.value)):
                name = _array_name(arg.value if isinstance(arg, ast.Starred) else arg)
                raise TraceUnsupported(
                    node.lineno,
                    f"passes the array {name} to {ast.unparse(node.func)}(): the tracer cannot follow "
                    "accesses inside another function; index the array in the kernel itself",
                )
        return self.generic_visit(node)

    def _store(self, target: ast.Subscript, value: ast.expr, like: ast.stmt) -> ast.stmt:
        name = _array_name(target.value)
        idx = [self.visit(i) for i in self._check_indices(target)]
        site = self._site(target, name, "store", len(idx))
        call = _call(
            self._helper("store", len(idx)),
            [_name(name, like), *idx, value, *self._trace_args(like, site, name)],
            like,
        )
        return _at(ast.Expr(value=call), like)

    def visit_Assign(self, node: ast.Assign) -> ast.AST | list[ast.stmt]:
        if id(node) in self.shared_defs:  # `s = cuda.shared.array(shape, dtype)`: kept as written
            return node
        element = [t for t in node.targets if isinstance(t, ast.Subscript) and self._is_array(t.value)]
        if not element:
            for target in node.targets:
                self._refuse_element_targets(target, node.lineno, "this assignment")
            return self.generic_visit(node)
        if len(node.targets) > 1:
            raise TraceUnsupported(
                node.lineno, "chained assignment to an array element: write one store per line"
            )
        value = self.visit(node.value)
        return self._store(element[0], value, node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        self._refuse_element_targets(node.target, node.lineno, "this annotated assignment")
        return self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST | list[ast.stmt]:
        target = node.target
        if not (isinstance(target, ast.Subscript) and self._is_array(target.value)):
            return self.generic_visit(node)
        name = _array_name(target.value)
        idx = [self.visit(i) for i in self._check_indices(target)]
        # Indices are computed once, as Python does for C[i] += v: load, then store, same element.
        stmts: list[ast.stmt] = []
        temps = []
        for k, index in enumerate(idx):
            temp = f"{PREFIX}i{len(self.sites)}_{k}"
            stmts.append(_at(ast.Assign(targets=[ast.Name(id=temp, ctx=ast.Store())], value=index), node))
            temps.append(temp)
        load_site = self._site(target, name, "load", len(idx))
        load = _call(
            self._helper("load", len(idx)),
            [_name(name, node), *(_name(t, node) for t in temps), *self._trace_args(node, load_site, name)],
            node,
        )
        value = _at(ast.BinOp(left=load, op=node.op, right=self.visit(node.value)), node)
        store_site = self._site(target, name, "store", len(idx))
        call = _call(
            self._helper("store", len(idx)),
            [
                _name(name, node),
                *(_name(t, node) for t in temps),
                value,
                *self._trace_args(node, store_site, name),
            ],
            node,
        )
        stmts.append(_at(ast.Expr(value=call), node))
        return stmts


def _kernel_params(kernel: ast.FunctionDef) -> tuple[str, ...]:
    args = kernel.args
    if args.vararg or args.kwarg:
        raise TraceUnsupported(kernel.lineno, f"{kernel.name} takes *args or **kwargs: name every parameter")
    if args.kwonlyargs:
        raise TraceUnsupported(kernel.lineno, f"{kernel.name} has keyword-only parameters")
    if args.defaults:
        raise TraceUnsupported(
            kernel.lineno, f"{kernel.name} has default values: every parameter gets an argument"
        )
    return tuple(a.arg for a in args.posonlyargs + args.args)


def _infer_arrays(kernel: ast.FunctionDef, params: tuple[str, ...]) -> dict[str, int]:
    """Parameters that the kernel indexes or updates atomically: arrays (ndim fixed on first use)."""
    found: dict[str, int] = {}
    for node in ast.walk(kernel):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in params:
            found[node.value.id] = 0
        if isinstance(node, ast.Call) and _atomic_op(node) and node.args:
            first = node.args[0]
            if isinstance(first, ast.Name) and first.id in params:
                found[first.id] = 0
    return found


def plain_module(
    source: str, kernel: str | None = None, filename: str = "<kernel>"
) -> tuple[ast.Module, str]:
    """The module a GPU would compile, untraced and without the rewrite's refusals: the kept
    top-level statements with kernel ``kernel`` (or the only one) under a plain ``cuda.jit``
    (imported as ``_tv_cuda``). Returns (module, the kernel's name)."""
    tree = parse(source, filename)
    fn = choose_kernel(tree, kernel)
    return plain_module_of(tree, fn), fn.name


def plain_module_of(tree: ast.Module, kernel: ast.FunctionDef) -> ast.Module:
    """``plain_module`` of a parsed file (``tree`` is left as it was: the module is a copy)."""
    import copy

    at = tree.body.index(kernel)
    copied = copy.deepcopy(tree)
    line = copied.body[0].lineno  # the body holds the kernel at least
    fn = copied.body[at]
    assert isinstance(fn, ast.FunctionDef)
    return _module(copied, fn, _imports([], line))


def rewrite_kernel(
    source: str,
    kernel: str | None = None,
    arrays: Mapping[str, int] | None = None,
    filename: str = "<kernel>",
) -> Rewrite:
    """Parse ``source`` (never run it) and trace kernel ``kernel`` (or the only one).

    ``arrays`` maps each array parameter to its number of dimensions (from the ``--arg`` specs);
    the other parameters are scalars. Without it, parameters the kernel indexes are arrays.
    """
    tree = parse(source, filename)
    return rewrite_parsed(tree, choose_kernel(tree, kernel), arrays)


def rewrite_parsed(tree: ast.Module, fn: ast.FunctionDef, arrays: Mapping[str, int] | None = None) -> Rewrite:
    """``rewrite_kernel`` of a parsed file and its chosen kernel ``fn`` (one of ``tree.body``);
    ``tree`` is left as it was, so a plan may also build the plain module from it."""
    params = _kernel_params(fn)
    if arrays is None:
        array_dims = _infer_arrays(fn, params)
    else:
        unknown = [a for a in arrays if a not in params]
        if unknown:
            raise TraceUnsupported(fn.lineno, f"{fn.name} has no parameter {', '.join(unknown)}")
        array_dims = {name: int(nd) for name, nd in arrays.items()}
    scalars = {p for p in params if p not in array_dims}
    for arg in fn.args.posonlyargs + fn.args.args:
        if arg.arg.startswith(PREFIX):
            raise TraceUnsupported(fn.lineno, f"the name {arg.arg} is reserved for the tracer ({PREFIX}…)")

    import copy

    refuse_hidden_barriers(tree, fn)
    plain_fn = copy.deepcopy(fn)
    work = copy.deepcopy(fn)  # rewritten in place (a NodeTransformer edits what it visits)
    shared, shared_defs = find_shared_arrays(tree, work)
    for s in shared:
        if s.name in params:
            raise TraceUnsupported(
                s.line, f"the shared array {s.name} has the name of a parameter of {fn.name}"
            )
    # Array ids: the array parameters in the kernel's order, then the shared arrays.
    traced_arrays = tuple(p for p in params if p in array_dims)
    rewriter = _KernelRewriter(
        {**array_dims, **{s.name: len(s.shape) for s in shared}},
        scalars,
        traced_arrays + tuple(s.name for s in shared),
        frozenset(s.name for s in shared),
        frozenset(shared_defs),
    )
    body: list[ast.stmt] = []
    for stmt in work.body:
        new = rewriter.visit(stmt)
        body.extend(new if isinstance(new, list) else [new])
    first = work.body[0]
    tid = _at(
        ast.Assign(
            targets=[ast.Name(id=TID, ctx=ast.Store())],
            value=_call(PREFIX + "thread_id", [_name(FIRST, first), _name(BLOCKS, first)], first),
        ),
        first,
    )
    epoch = _at(ast.Assign(targets=[ast.Name(id=EPOCH, ctx=ast.Store())], value=_const(0, first)), first)
    rewriter.helpers.add("tv_thread_id")
    traced_fn = copy.copy(work)
    traced_fn.body = [tid, epoch, *body]
    traced_fn.args = copy.deepcopy(fn.args)
    traced_fn.args.args = [*traced_fn.args.args, *(ast.arg(arg=name) for name in EXTRA_PARAMS)]
    for a in traced_fn.args.args[-len(EXTRA_PARAMS) :]:
        _at(a, fn)

    dropped = [n.lineno for n in tree.body if not kept_statement(n)]
    line = tree.body[0].lineno  # the body holds the kernel at least
    traced_tree = ast.Module(body=[n if n is not fn else traced_fn for n in tree.body], type_ignores=[])
    traced = _module(traced_tree, traced_fn, _imports(sorted(rewriter.helpers), line))
    plain_tree = ast.Module(
        body=[plain_fn if n is fn else copy.deepcopy(n) for n in tree.body], type_ignores=[]
    )
    plain = _module(plain_tree, plain_fn, _imports([], line))
    return Rewrite(
        kernel=fn.name,
        params=params,
        arrays=traced_arrays,
        sites=tuple(rewriter.sites),
        tree=traced,
        plain_tree=plain,
        dropped_lines=dropped,
        shared=tuple(shared),
        barrier_lines=tuple(rewriter.barrier_lines),
    )
