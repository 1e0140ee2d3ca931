"""The lockstep interpreter: every statement runs once for all threads of a chunk, under a mask.

``exec_block(stmts, mask)`` runs statements for the lanes in ``mask`` and returns the lanes that
fall through (those that ran ``break``, ``continue`` or ``return`` are taken out and parked in
the loop or frame they leave). An ``if`` runs its body for the lanes whose condition holds, then
its ``else`` for the others; a loop repeats while any lane is still in it. A variable assigned
under a partial mask keeps its old value on the other lanes (``np.where``).
"""

from __future__ import annotations

import ast
import builtins
from typing import Any

import numpy as np

from simtviz.core.errors import EmulatorUnsupported
from simtviz.emu.memory import ArrayRef, DivergentBarrier, KernelError, KernelZeroDivision, load, store
from simtviz.emu.modules import Function, Jit, Module, Namespace, Native, Special, Unavailable, _member
from simtviz.emu.threads import Dim3, Threads
from simtviz.emu.values import DType, lift, to_bool, to_float, to_int, truth, widen

MAX_DEPTH = 64

BINOPS: dict[type, Any] = {
    ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply, ast.Div: np.true_divide,
    ast.FloorDiv: np.floor_divide, ast.Mod: np.remainder, ast.Pow: np.power, ast.LShift: np.left_shift,
    ast.RShift: np.right_shift, ast.BitAnd: np.bitwise_and, ast.BitOr: np.bitwise_or,
    ast.BitXor: np.bitwise_xor,
}  # fmt: skip
COMPARE: dict[type, Any] = {
    ast.Eq: np.equal, ast.NotEq: np.not_equal, ast.Lt: np.less, ast.LtE: np.less_equal,
    ast.Gt: np.greater, ast.GtE: np.greater_equal,
}  # fmt: skip


def binop(op: type, a: Any, b: Any) -> Any:
    if not (isinstance(a, np.ndarray | np.generic) and isinstance(b, np.ndarray | np.generic)):
        raise TypeError(f"{type(a).__name__} {op.__name__} {type(b).__name__}")
    if op in (ast.BitAnd, ast.BitOr, ast.BitXor) and a.dtype == np.bool_ and b.dtype == np.bool_:
        return BINOPS[op](a, b)
    a, b = widen(a), widen(b)
    if op is ast.Pow and a.dtype.kind in "iu" and b.dtype.kind in "iu" and np.any(b < 0):
        a = a.astype(np.float64)
    with np.errstate(all="ignore"):
        return BINOPS[op](a, b)


def merge(mask: np.ndarray, new: Any, old: Any) -> Any:
    """``new`` on the lanes in ``mask``, ``old`` elsewhere."""
    if isinstance(new, tuple) and isinstance(old, tuple) and len(new) == len(old):
        return tuple(merge(mask, n, o) for n, o in zip(new, old, strict=True))
    if isinstance(new, np.ndarray | np.generic) and isinstance(old, np.ndarray | np.generic):
        return np.where(mask, new, old)
    return new


def _two_arrays(new: Any, old: Any) -> bool:
    return new is not old and (isinstance(new, ArrayRef) or isinstance(old, ArrayRef))


class Loop:
    __slots__ = ("brk", "cont")

    def __init__(self, n: int) -> None:
        self.brk = np.zeros(n, dtype=bool)
        self.cont = np.zeros(n, dtype=bool)


class Frame:
    def __init__(self, fn: Function | None, module: Module, n: int) -> None:
        self.fn = fn
        self.module = module
        self.vars: dict[str, Any] = {}
        self.loops: list[Loop] = []
        self.returned = np.zeros(n, dtype=bool)
        self.ret: Any = None
        self.mask = np.ones(n, dtype=bool)  # the lanes that called it


def _native(fn: Any) -> Native:
    return Native(fn.__name__, lambda _i, args, _k, _m, _l: fn(*args))


def _print(interp: Any, args: list[Any], kwargs: dict[str, Any], mask: np.ndarray, line: int) -> None:
    for lane in np.flatnonzero(mask):
        builtins.print(*(a[lane] if isinstance(a, np.ndarray) else a for a in args))


def _minmax(ufunc: Any) -> Any:
    def f(*args: Any) -> Any:
        out = lift(args[0])
        for a in args[1:]:
            out = ufunc(out, lift(a))
        return out

    return f


def _round(x: Any, digits: Any = None) -> Any:
    if digits is None:
        return to_int(np.rint(x))
    return np.round(x, int(digits))


def _len(a: Any) -> Any:
    if isinstance(a, ArrayRef):
        return np.int64(a.shape[0])
    return np.int64(len(a))


BUILTINS: dict[str, Any] = {
    "min": _native(_minmax(np.minimum)),
    "max": _native(_minmax(np.maximum)),
    "abs": _native(lambda x: np.abs(widen(x))),
    "int": _native(to_int),
    "float": _native(to_float),
    "bool": _native(to_bool),
    "round": _native(_round),
    "len": _native(_len),
    "print": Native("print", _print),
    "range": Native("range", lambda *_: (_ for _ in ()).throw(TypeError("range() outside a for loop"))),
}


class Interp:
    """Runs functions of kernel modules for the threads of one chunk."""

    def __init__(self, threads: Threads | None) -> None:
        self.threads = threads
        self.n = threads.n if threads is not None else 1
        self.chunk_cache: dict[Any, Any] = {}
        self.frame: Frame | None = None
        self.node_key: Any = None
        self.target_name: str | None = None
        self.depth = 0
        self.line = 0  # the line being run in the kernel's file (in a helper elsewhere: the call's)
        self.lost: dict[tuple[str, int], int] = {}
        self.kernel_frame: Frame | None = None
        self.home: Module | None = None  # the kernel's module: its lines are the ones reported

    # --- errors

    def unsupported(self, what: str, node: ast.AST | None = None) -> EmulatorUnsupported:
        here = self.frame is not None and self.frame.module is self.home
        line = getattr(node, "lineno", None) if here else self.line
        return EmulatorUnsupported(what, line or self.line or None)

    # --- functions

    def call(self, fn: Function, args: list[Any], kwargs: dict[str, Any], mask: np.ndarray) -> Any:
        if fn.kind == "kernel" and self.depth > 0:
            raise self.unsupported(f"calling the kernel {fn.name} from a kernel")
        if fn.kind not in ("kernel", "device"):
            raise self.unsupported(f"calling {fn.name}, which is not a @cuda.jit(device=True) function")
        if self.depth >= MAX_DEPTH:
            raise self.unsupported(f"recursion in {fn.name}")
        frame = Frame(fn, fn.module, self.n)
        frame.mask = mask
        params = fn.params
        a = fn.node.args
        defaults = dict(zip(params[len(params) - len(a.defaults) :], a.defaults, strict=True))
        if len(args) > len(params):
            raise KernelError(f"{fn.name}() takes {len(params)} arguments ({len(args)} given)", self.line)
        for name, value in zip(params, args, strict=False):
            frame.vars[name] = value
        for name in params[len(args) :]:
            if name in kwargs:
                frame.vars[name] = kwargs[name]
            elif name in defaults:
                frame.vars[name] = constant_value(defaults[name], fn.module)
            else:
                raise KernelError(f"{fn.name}() missing the argument {name}", self.line)
        saved = self.frame
        self.frame = frame
        self.depth += 1
        if self.depth == 1:
            self.kernel_frame = frame
            self.home = fn.module
        try:
            self.exec_block(fn.node.body, mask)
        finally:
            self.depth -= 1
            self.frame = saved
        return frame.ret

    # --- statements

    def exec_block(self, stmts: list[ast.stmt], mask: np.ndarray) -> np.ndarray:
        for stmt in stmts:
            if not mask.any():
                break
            if self.frame is not None and self.frame.module is self.home:
                self.line = stmt.lineno  # the student's file; a helper's lines are not theirs
            mask = self.exec_stmt(stmt, mask)
        return mask

    def exec_stmt(self, node: ast.stmt, mask: np.ndarray) -> np.ndarray:
        method = getattr(self, "s_" + type(node).__name__, None)
        if method is None:
            raise self.unsupported(f"the statement {type(node).__name__.lower()}", node)
        result: np.ndarray = method(node, mask)
        return result

    def s_Expr(self, node: ast.Expr, mask: np.ndarray) -> np.ndarray:
        if not isinstance(node.value, ast.Constant):  # a docstring does nothing
            self.ev(node.value, mask)
        return mask

    def s_Pass(self, node: ast.Pass, mask: np.ndarray) -> np.ndarray:
        return mask

    def s_Assign(self, node: ast.Assign, mask: np.ndarray) -> np.ndarray:
        first = node.targets[0]
        self.target_name = first.id if isinstance(first, ast.Name) else None
        value = self.ev(node.value, mask)
        self.target_name = None
        for target in node.targets:
            self.assign(target, value, mask)
        return mask

    def s_AnnAssign(self, node: ast.AnnAssign, mask: np.ndarray) -> np.ndarray:
        if node.value is not None:
            self.assign(node.target, self.ev(node.value, mask), mask)
        return mask

    def s_AugAssign(self, node: ast.AugAssign, mask: np.ndarray) -> np.ndarray:
        op = type(node.op)
        target = node.target
        if isinstance(target, ast.Name):
            value = binop(op, self.name(target.id, target), self.ev(node.value, mask))
            self.setvar(target.id, value, mask)
        elif isinstance(target, ast.Subscript):
            ref, idx = self.element(target, mask)
            old = load(ref, idx, mask, self.line)
            self.count_lost(ref, store(ref, idx, binop(op, old, self.ev(node.value, mask)), mask, self.line))
        else:
            raise self.unsupported("augmented assignment to an attribute", node)
        return mask

    def s_If(self, node: ast.If, mask: np.ndarray) -> np.ndarray:
        cond = truth(self.ev(node.test, mask))
        if not isinstance(cond, np.ndarray):
            branch = node.body if cond else node.orelse
            return self.exec_block(branch, mask) if branch else mask
        then = mask & cond
        other = mask & ~cond
        out = self.exec_block(node.body, then) if then.any() else then
        other = self.exec_block(node.orelse, other)  # no else, or no lane: ``other`` unchanged
        return out | other

    def _loop(self, node: ast.While | ast.For, mask: np.ndarray, step: Any) -> np.ndarray:
        """Run the loop's body while any lane is in it; ``step(live)`` gives the lanes that enter
        the next iteration (and sets the loop variable)."""
        frame = self.frame
        assert frame is not None
        loop = Loop(self.n)
        frame.loops.append(loop)
        done = np.zeros(self.n, dtype=bool)  # lanes whose condition ended the loop
        live = mask
        try:
            while live.any():
                run = step(live)
                done |= live & ~run
                if not run.any():
                    break
                loop.cont[:] = False
                live = self.exec_block(node.body, run) | loop.cont
                live &= ~loop.brk
        finally:
            frame.loops.pop()
        done = self.exec_block(node.orelse, done)  # no else, or no lane: ``done`` unchanged
        return done | loop.brk

    def s_While(self, node: ast.While, mask: np.ndarray) -> np.ndarray:
        def step(live: np.ndarray) -> np.ndarray:
            cond = truth(self.ev(node.test, live))
            return live & cond

        return self._loop(node, mask, step)

    def s_For(self, node: ast.For, mask: np.ndarray) -> np.ndarray:
        it = node.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"):
            raise self.unsupported("a for loop over anything but range(...)", node)
        bounds = [widen(self.ev(a, mask)) for a in it.args]
        if not 1 <= len(bounds) <= 3 or any(b.dtype.kind not in "iu" for b in bounds):
            raise KernelError("range() takes 1 to 3 integers", self.line)
        start, stop, stride = (
            (np.int64(0), bounds[0], np.int64(1)) if len(bounds) == 1
            else (bounds[0], bounds[1], bounds[2] if len(bounds) == 3 else np.int64(1))
        )  # fmt: skip
        if bool(np.any((stride == 0) & mask)):  # Python's error; the loop would never end here
            raise KernelError("range() arg 3 must not be zero", self.line)
        state = {"i": start, "first": True}

        def step(live: np.ndarray) -> np.ndarray:
            if not state["first"]:
                state["i"] = state["i"] + stride
            state["first"] = False
            i = state["i"]
            cond = np.where(stride > 0, i < stop, i > stop)
            run = live & cond
            if run.any():
                self.assign(node.target, i, run)
            return run

        return self._loop(node, mask, step)

    def s_Break(self, node: ast.Break, mask: np.ndarray) -> np.ndarray:
        assert self.frame is not None
        self.frame.loops[-1].brk |= mask
        return np.zeros_like(mask)

    def s_Continue(self, node: ast.Continue, mask: np.ndarray) -> np.ndarray:
        assert self.frame is not None
        self.frame.loops[-1].cont |= mask
        return np.zeros_like(mask)

    def s_Return(self, node: ast.Return, mask: np.ndarray) -> np.ndarray:
        frame = self.frame
        assert frame is not None
        value = self.ev(node.value, mask) if node.value is not None else None
        if frame.ret is not None and _two_arrays(value, frame.ret):
            raise self.unsupported("returning a different array on different threads", node)
        frame.ret = value if frame.ret is None else merge(mask, value, frame.ret)
        frame.returned |= mask
        return np.zeros_like(mask)

    # --- assignment

    def setvar(self, name: str, value: Any, mask: np.ndarray) -> None:
        assert self.frame is not None
        vars_ = self.frame.vars
        if name in vars_ and not mask.all():
            old = vars_[name]
            # One array on some running threads, another on others: one ArrayRef cannot hold both.
            live = self.frame.mask & ~self.frame.returned & ~mask
            if _two_arrays(value, old) and live.any():
                raise self.unsupported(f"{name} naming a different array on different threads")
            value = merge(mask, value, old)
        vars_[name] = value

    def assign(self, target: ast.expr, value: Any, mask: np.ndarray) -> None:
        if isinstance(target, ast.Name):
            self.setvar(target.id, value, mask)
        elif isinstance(target, ast.Tuple | ast.List):
            if isinstance(value, ArrayRef) or not isinstance(value, tuple) or len(value) != len(target.elts):
                raise KernelError(f"cannot unpack into {len(target.elts)} names", self.line)
            for t, v in zip(target.elts, value, strict=True):
                self.assign(t, v, mask)
        elif isinstance(target, ast.Subscript):
            ref, idx = self.element(target, mask)
            self.count_lost(ref, store(ref, idx, value, mask, self.line))
        else:
            raise self.unsupported(f"assigning to {type(target).__name__.lower()}", target)

    def count_lost(self, ref: ArrayRef, lost: int) -> None:
        if lost:
            key = (ref.name, self.line)
            self.lost[key] = self.lost.get(key, 0) + lost

    def element(self, node: ast.Subscript, mask: np.ndarray) -> tuple[ArrayRef, tuple[Any, ...]]:
        ref = self.ev(node.value, mask)
        if not isinstance(ref, ArrayRef):
            raise self.unsupported(f"indexing {ast.unparse(node.value)}, which is not an array", node)
        sl = node.slice
        parts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        if any(isinstance(p, ast.Slice) for p in parts):
            raise self.unsupported("a slice of an array", node)
        idx: list[Any] = []
        for p in parts:
            v = self.ev(p, mask)
            idx.extend(v if isinstance(v, tuple) else (v,))
        return ref, tuple(idx)

    # --- expressions

    def ev(self, node: ast.expr, mask: np.ndarray) -> Any:
        method = getattr(self, "e_" + type(node).__name__, None)
        if method is None:
            raise self.unsupported(f"the expression {type(node).__name__}", node)
        return method(node, mask)

    def name(self, name: str, node: ast.AST) -> Any:
        frame = self.frame
        assert frame is not None
        if name in frame.vars:
            return frame.vars[name]
        g = frame.module.globals
        value = g[name] if name in g else BUILTINS.get(name)
        if value is None:
            raise KernelError(f"name '{name}' is not defined", self.line)
        if isinstance(value, Unavailable):
            raise self.unsupported(value.why, node)
        return value

    def e_Name(self, node: ast.Name, mask: np.ndarray) -> Any:
        return self.name(node.id, node)

    def e_Constant(self, node: ast.Constant, mask: np.ndarray) -> Any:
        return lift(node.value)

    def e_Tuple(self, node: ast.Tuple, mask: np.ndarray) -> Any:
        return tuple(self.ev(e, mask) for e in node.elts)

    e_List = e_Tuple

    def e_Attribute(self, node: ast.Attribute, mask: np.ndarray) -> Any:
        base = self.ev(node.value, mask)
        attr = node.attr
        if isinstance(base, Namespace):
            if attr not in base.attrs:
                raise self.unsupported(f"{base.name}.{attr}", node)
            value = base.attrs[attr]
            if isinstance(value, Special):
                if self.threads is None:
                    raise KernelError(f"cuda.{attr} outside a kernel", self.line)
                return self.threads.special(value.name)
            return value
        if isinstance(base, Dim3) and attr in ("x", "y", "z"):
            return getattr(base, attr)
        if isinstance(base, ArrayRef):
            if attr == "shape":
                return tuple(np.int64(s) for s in base.shape)
            if attr == "strides":
                return tuple(np.int64(s) for s in base.strides)
            if attr == "size":
                return np.int64(base.size)
            if attr == "ndim":
                return np.int64(len(base.shape))
            if attr == "itemsize":
                return np.int64(base.data.itemsize)
            if attr == "dtype":
                return DType(str(base.data.dtype), base.data.dtype)
        if isinstance(base, Module) or (hasattr(base, "__name__") and not isinstance(base, Function)):
            value = _member(base, attr)
            if isinstance(value, Unavailable):
                raise self.unsupported(f"{ast.unparse(node)}", node)
            return value
        raise self.unsupported(f"the attribute .{attr} of {ast.unparse(node.value)}", node)

    def e_Subscript(self, node: ast.Subscript, mask: np.ndarray) -> Any:
        base = self.ev(node.value, mask)
        if isinstance(base, tuple):
            index = self.ev(node.slice, mask)
            if isinstance(index, np.ndarray) or not isinstance(index, np.integer):
                raise self.unsupported("a tuple indexed per thread", node)
            return base[int(index)]
        ref, idx = self.element(node, mask)
        return load(ref, idx, mask, self.line)

    def e_Call(self, node: ast.Call, mask: np.ndarray) -> Any:
        func = self.ev(node.func, mask)
        args: list[Any] = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                raise self.unsupported("*args in a call", node)
            args.append(self.ev(a, mask))
        kwargs = {k.arg: self.ev(k.value, mask) for k in node.keywords if k.arg is not None}
        if isinstance(func, Function):
            saved = self.line
            result = self.call(func, args, kwargs, mask)
            self.line = saved
            return result
        if isinstance(func, Native):
            self.node_key = id(node)
            return func.fn(self, args, kwargs, mask, self.line)
        if isinstance(func, DType):
            (value,) = args
            return func.cast(value)
        if isinstance(func, Jit):
            return Jit(device=bool(kwargs.get("device", False)))
        raise self.unsupported(f"calling {ast.unparse(node.func)}", node)

    def e_BinOp(self, node: ast.BinOp, mask: np.ndarray) -> Any:
        op = type(node.op)
        if op not in BINOPS:
            raise self.unsupported(f"the operator {op.__name__}", node)
        left, right = self.ev(node.left, mask), self.ev(node.right, mask)
        kind = getattr(getattr(right, "dtype", None), "kind", "")
        if op in (ast.FloorDiv, ast.Mod) and kind in ("b", "i", "u") and bool(np.any((right == 0) & mask)):
            raise KernelZeroDivision("integer division or modulo by zero", self.line)
        try:
            return binop(op, left, right)
        except TypeError as exc:
            raise self.unsupported(f"{ast.unparse(node)} ({exc})", node) from None

    def e_UnaryOp(self, node: ast.UnaryOp, mask: np.ndarray) -> Any:
        v = self.ev(node.operand, mask)
        if isinstance(node.op, ast.Not):
            return np.logical_not(truth(v))
        if not isinstance(v, np.ndarray | np.generic):
            raise self.unsupported(f"{ast.unparse(node)}", node)
        if isinstance(node.op, ast.USub):
            return np.negative(widen(v))
        if isinstance(node.op, ast.UAdd):
            return widen(v)
        return np.invert(widen(v))

    def e_BoolOp(self, node: ast.BoolOp, mask: np.ndarray) -> Any:
        is_and = isinstance(node.op, ast.And)
        value = self.ev(node.values[0], mask)
        for nxt in node.values[1:]:
            t = truth(value)
            if not isinstance(t, np.ndarray):
                if bool(t) != is_and:  # decided for every lane: the rest is not evaluated
                    return value
                value = self.ev(nxt, mask)
                continue
            sub = mask & (t if is_and else ~t)
            if not sub.any():
                continue
            other = self.ev(nxt, sub)
            value = merge(sub, other, value)
        return value

    def e_Compare(self, node: ast.Compare, mask: np.ndarray) -> Any:
        left = self.ev(node.left, mask)
        result: Any = None
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            f = COMPARE.get(type(op))
            if f is None:
                raise self.unsupported(f"the comparison {type(op).__name__}", node)
            right = self.ev(right_node, mask)
            c = f(left, right)
            result = c if result is None else result & c
            left = right
        return result

    def e_IfExp(self, node: ast.IfExp, mask: np.ndarray) -> Any:
        cond = truth(self.ev(node.test, mask))
        if not isinstance(cond, np.ndarray):
            return self.ev(node.body if cond else node.orelse, mask)
        yes, no = mask & cond, mask & ~cond
        if not no.any():
            return self.ev(node.body, yes)
        if not yes.any():
            return self.ev(node.orelse, no)
        body, orelse = self.ev(node.body, yes), self.ev(node.orelse, no)
        if _two_arrays(body, orelse):
            raise self.unsupported(f"{ast.unparse(node)} (a different array on different threads)", node)
        return merge(cond, body, orelse)

    # --- barriers

    def barrier(self, mask: np.ndarray, line: int) -> None:
        """Every live thread of a block that reaches the barrier must reach it together."""
        t = self.threads
        assert t is not None and self.kernel_frame is not None
        if mask.all():
            return
        live = ~self.kernel_frame.returned
        arrived = np.bincount(t.blk[mask], minlength=t.blocks)
        alive = np.bincount(t.blk[live], minlength=t.blocks)
        bad = np.flatnonzero((arrived > 0) & (arrived < alive))
        if bad.size:
            b = int(bad[0])
            raise DivergentBarrier(
                f"cuda.syncthreads() reached by {arrived[b]} of the {alive[b]} threads of block "
                f"{int(t.ids[b])} (linear id) still running: a barrier under divergent control flow "
                "hangs or misbehaves on a GPU",
                line,
            )


def constant_value(node: ast.expr | None, module: Module) -> Any:
    """A module-level expression's value (no threads): constants, casts, ``cuda.jit(...)``."""
    if node is None:
        raise ValueError("no expression")
    interp = Interp(None)
    interp.frame = Frame(None, module, interp.n)
    value = interp.ev(node, np.ones(1, dtype=bool))
    if isinstance(value, np.ndarray):
        raise ValueError("not a constant")
    return value
