"""Kernel modules read as text: names, constants, device functions and the imports between them.

Nothing here imports a kernel module. A file is parsed with ``ast``; its top level is walked the
way Python would run it, but only what a kernel can use is kept: imports (``numba``/``cuda``,
``math``, ``numpy``, and other simtviz kernel modules, which are read as text in turn; simtviz's
plain ``core`` modules are imported), functions (kernels, ``@cuda.jit(device=True)`` device
functions, undecorated ones), constants computed from literals and other constants, and
``if`` at the top level. What cannot be evaluated becomes an ``Unavailable`` name, an error
only if a kernel uses it.

Some names have no meaning without numba: ``OVERRIDES`` gives them the emulator's value, per
module (``SIMULATED``: the emulator, like the simulator, has no inline PTX and no clock).
"""

from __future__ import annotations

import ast
import hashlib
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simtviz.emu.values import DTYPES, MATH, DType, lift


@dataclass
class Namespace:
    """``cuda``, ``math``, ``numpy``, ``numba`` and their parts (``cuda.atomic``)."""

    name: str
    attrs: dict[str, Any]


@dataclass(frozen=True)
class Special:
    """A value that depends on the thread (``cuda.threadIdx``, ``cuda.laneid``): the interpreter
    gives it for the chunk being run."""

    name: str


@dataclass(frozen=True)
class Native:
    """A function the emulator implements: ``fn(interp, args, kwargs, mask, line)``."""

    name: str
    fn: Callable[..., Any]


@dataclass(frozen=True)
class Unavailable:
    """A name whose value the emulator cannot know (``config.ENABLE_CUDASIM``, an import of a
    package it does not read); ``why`` says so when a kernel uses it."""

    why: str


@dataclass(frozen=True)
class Jit:
    """``cuda.jit`` itself, or ``cuda.jit(...)`` with its arguments: a decorator."""

    device: bool = False


@dataclass
class Function:
    """A function of a kernel module: ``kind`` is ``kernel``, ``device`` or ``plain``."""

    name: str
    node: ast.FunctionDef
    module: Module
    kind: str

    @property
    def params(self) -> list[str]:
        a = self.node.args
        return [p.arg for p in a.posonlyargs + a.args]


@dataclass
class Module:
    name: str
    filename: str
    globals: dict[str, Any] = field(default_factory=dict)


# --- the namespaces --------------------------------------------------------------------------


def _cuda_namespace() -> Namespace:
    from simtviz.emu import cuda_api

    atomic = Namespace("cuda.atomic", {op: Native(f"cuda.atomic.{op}", cuda_api.atomic_fn(op)) for op in (
        "add", "sub", "max", "min", "nanmax", "nanmin", "and_", "or_", "xor", "exch", "inc", "dec", "cas",
        "compare_and_swap",
    )})  # fmt: skip
    attrs: dict[str, Any] = {
        **{n: Special(n) for n in ("threadIdx", "blockIdx", "blockDim", "gridDim", "laneid", "warpsize")},
        **{n: Native(f"cuda.{n}", f) for n, f in cuda_api.FUNCTIONS.items()},
        "atomic": atomic,
        "shared": Namespace("cuda.shared", {"array": Native("cuda.shared.array", cuda_api.shared_array)}),
        "local": Namespace("cuda.local", {"array": Native("cuda.local.array", cuda_api.local_array)}),
        "jit": Jit(),
    }
    return Namespace("cuda", attrs)


def _numpy_namespace() -> Namespace:
    attrs: dict[str, Any] = dict(DTYPES)
    for name, fn in MATH.items():
        if callable(fn):
            attrs[name] = Native(f"np.{name}", lambda _i, args, _k, _m, _l, fn=fn: fn(*args))
        else:
            attrs[name] = fn
    attrs.update(arcsin=attrs["asin"], arccos=attrs["acos"], arctan=attrs["atan"], arctan2=attrs["atan2"],
                 power=attrs["pow"], abs=attrs["fabs"])  # fmt: skip
    attrs["bool"] = DTYPES["bool_"]
    return Namespace("numpy", attrs)


def _math_namespace() -> Namespace:
    attrs = {
        name: Native(f"math.{name}", lambda _i, args, _k, _m, _l, fn=fn: fn(*args)) if callable(fn) else fn
        for name, fn in MATH.items()
    }
    return Namespace("math", attrs)


CUDA = _cuda_namespace()
NUMPY = _numpy_namespace()
MATH_NS = _math_namespace()
NUMBA = Namespace("numba", {"cuda": CUDA, **DTYPES, "types": Namespace("numba.types", dict(DTYPES))})

# Names a kernel module has no value for without numba, per module (the emulator's choice).
OVERRIDES: dict[str, dict[str, Any]] = {
    # No inline PTX and no clock here, like numba's simulator: sm_id() and global_timer_ns() are
    # the device functions that return -1, and the record kernel skips its end-time barrier.
    "simtviz.kernels.intrinsics": {"SIMULATED": np.bool_(True)},
}


def _zero_of(interp: Any, args: list[Any], kwargs: dict[str, Any], mask: Any, line: int) -> Any:
    (a,) = args
    return a.data.dtype.type(0)


# Functions replaced by a native one after the module is read (their source is numba-only;
# trace_helpers' ``if SIMULATOR:`` tests a numba name, so neither of its branches is read).
NATIVE_OVERRIDES: dict[str, dict[str, Native]] = {
    "simtviz.kernels.trace_helpers": {"zero_of": Native("zero_of", _zero_of)},
}

KERNELS_DIR = Path(__file__).resolve().parent.parent / "kernels"

_CACHE: dict[tuple[str, str], Module] = {}


def kernel_file(module: str) -> Path | None:
    """The file of a ``simtviz.kernels.*`` module, to be read as text (never imported)."""
    if not module.startswith("simtviz.kernels."):
        return None
    path = KERNELS_DIR / (module.removeprefix("simtviz.kernels.").replace(".", "/") + ".py")
    return path if path.is_file() else None


def load_module(name: str) -> Module:
    """A simtviz kernel module by its dotted name (``simtviz.kernels.record``), read as text."""
    path = kernel_file(name)
    if path is None:
        raise ModuleNotFoundError(f"{name} is not a simtviz kernel module")
    return load_source(path.read_text(encoding="utf-8"), str(path), name)


def load_source(source: str | ast.Module, filename: str = "<kernel>", name: str = "__kernel__") -> Module:
    """Read a module from its text (or an already parsed tree: a traced kernel's)."""
    if isinstance(source, str):
        key = (name, hashlib.sha1(source.encode()).hexdigest())
        if key in _CACHE:
            return _CACHE[key]
        tree = ast.parse(source, filename)
    else:
        key = None
        tree = source
    module = Module(name, filename)
    module.globals.update(OVERRIDES.get(name, {}))
    _run_body(tree.body, module)
    module.globals.update(NATIVE_OVERRIDES.get(name, {}))
    if key is not None:
        _CACHE[key] = module
    return module


def _import(module: str) -> Any:
    if module == "numba":
        return NUMBA
    if module in ("numba.cuda",):
        return CUDA
    if module == "math":
        return MATH_NS
    if module == "numpy":
        return NUMPY
    if kernel_file(module) is not None:
        return load_module(module)
    if module.startswith("simtviz.core") or module.startswith("simtviz.emu"):
        return importlib.import_module(module)
    return Unavailable(f"the module {module}")


def _member(base: Any, attr: str) -> Any:
    if isinstance(base, Namespace):
        return base.attrs.get(attr, Unavailable(f"{base.name}.{attr}"))
    if isinstance(base, Module):
        return base.globals.get(attr, Unavailable(f"{base.name}.{attr}"))
    if isinstance(base, Unavailable):
        return base
    value = getattr(base, attr, None)  # a plain simtviz.core module: its constants
    if value is None and getattr(base, "__name__", "").startswith("simtviz.core"):
        try:
            value = importlib.import_module(f"{base.__name__}.{attr}")
        except ImportError:
            value = None
    if value is None:
        return Unavailable(f"{attr}")
    return lift(value) if isinstance(value, int | float | bool) else value


def _run_body(body: list[ast.stmt], module: Module) -> None:
    fixed = set(OVERRIDES.get(module.name, {}))
    g = module.globals
    for node in body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = alias.asname or alias.name.partition(".")[0]
                g[target] = _import(alias.name if alias.asname else alias.name.partition(".")[0])
        elif isinstance(node, ast.ImportFrom):
            if node.module == "__future__" or node.level:
                continue
            base = _import(node.module or "")
            for alias in node.names:
                name = alias.asname or alias.name
                if name in fixed:
                    continue
                sub = f"{node.module}.{alias.name}"
                g[name] = load_module(sub) if kernel_file(sub) else _member(base, alias.name)
        elif isinstance(node, ast.FunctionDef):
            if node.name not in fixed:
                g[node.name] = Function(node.name, node, module, _kind(node, module))
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = _constant(node.value, module) if node.value is not None else Unavailable("no value")
            for t in targets:
                _bind(t, value, g, fixed)
        elif isinstance(node, ast.If):
            test = _constant(node.test, module)
            if isinstance(test, Unavailable):
                continue
            _run_body(node.body if bool(test) else node.orelse, module)
        # anything else at the top level (docstrings, try, class, a launch) is not for kernels


def _bind(target: ast.expr, value: Any, g: dict[str, Any], fixed: set[str]) -> None:
    if isinstance(target, ast.Name):
        if target.id not in fixed:
            g[target.id] = value
    elif isinstance(target, ast.Tuple | ast.List):
        values = value if isinstance(value, tuple) and len(value) == len(target.elts) else None
        for k, t in enumerate(target.elts):
            _bind(t, values[k] if values else Unavailable("unpacking"), g, fixed)


def _kind(node: ast.FunctionDef, module: Module) -> str:
    kind = "plain"
    for deco in node.decorator_list:
        value = _constant(deco, module)
        if isinstance(value, Jit):
            kind = "device" if value.device else "kernel"
        else:
            return "other"  # @contextmanager, @overload(...), @intrinsic: not for kernels
    return kind


def _constant(node: ast.expr | None, module: Module) -> Any:
    """A top-level expression's value, or Unavailable: literals, names, + - * // etc., tuples,
    casts, attribute chains on namespaces, ``cuda.jit(...)``."""
    from simtviz.emu.interp import constant_value

    try:
        return constant_value(node, module)
    except Exception as exc:  # anything a kernel could not use anyway
        return Unavailable(f"{ast.unparse(node) if node is not None else '?'} ({exc})")


__all__ = [
    "CUDA", "MATH_NS", "NUMBA", "NUMPY", "DType", "Function", "Jit", "Module", "Namespace", "Native",
    "Special", "Unavailable", "load_module", "load_source",
]  # fmt: skip
