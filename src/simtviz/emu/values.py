"""Values as the emulator holds them, and numba's typing where it changes results.

A value is a NumPy scalar (uniform: the same for every thread), a 1-D NumPy array with one
element per thread of the chunk, a tuple of values, or an object (an array reference, a
function, a namespace such as ``cuda`` or ``math``). Python literals become NumPy scalars as
numba types them: ``1`` is int64 and ``1.5`` float64 (so ``float32 * 1.5`` is float64, as in
numba, where NumPy 2 alone would keep float32). Integer arithmetic is widened to int64 first:
numba computes ``int32 + int32`` in int64 (its integer typing rule), NumPy would stay in int32.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

Vector = np.ndarray


def lift(value: Any) -> Any:
    """A Python literal as numba types it: bool, int64, float64; anything else as it is."""
    if isinstance(value, bool):
        return np.bool_(value)
    if isinstance(value, int):
        return np.int64(value)
    if isinstance(value, float):
        return np.float64(value)
    return value


def widen(value: Any) -> Any:
    """Booleans and integers narrower than 64 bits as int64 (numba's arithmetic on them)."""
    dtype = value.dtype
    if dtype.kind == "b" or (dtype.kind in "iu" and dtype.itemsize < 8):
        return value.astype(np.int64) if isinstance(value, np.ndarray) else np.int64(value)
    return value


def truth(value: Any) -> Any:
    """A condition: a NumPy bool scalar or a bool vector."""
    if isinstance(value, np.ndarray):
        return value if value.dtype == np.bool_ else value != 0
    if isinstance(value, np.generic):
        return np.bool_(value != 0)
    if isinstance(value, tuple):
        return np.bool_(len(value) > 0)
    raise TypeError(f"{type(value).__name__} is not a condition")


@dataclass(frozen=True)
class DType:
    """A numba / NumPy type name (``float32``, ``np.int32``, ``numba.float64``): a dtype for
    ``cuda.shared.array`` and a cast when called."""

    name: str
    dtype: np.dtype

    def cast(self, value: Any) -> Any:
        if isinstance(value, np.ndarray):
            return value.astype(self.dtype)
        if self.dtype.kind == "b":
            return np.bool_(value)
        return self.dtype.type(value)


_DTYPE_NAMES = {
    "float16": np.float16, "float32": np.float32, "float64": np.float64, "double": np.float64,
    "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64, "intp": np.int64,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64, "uintp": np.uint64,
    "boolean": np.bool_, "bool_": np.bool_, "b1": np.bool_, "f4": np.float32, "f8": np.float64,
    "i4": np.int32, "i8": np.int64, "u4": np.uint32, "u8": np.uint64,
    "complex64": np.complex64, "complex128": np.complex128,
}  # fmt: skip
DTYPES = {name: DType(name, np.dtype(t)) for name, t in _DTYPE_NAMES.items()}


def dtype_of(spec: Any) -> np.dtype:
    """The dtype a ``cuda.shared.array``/``local.array`` call names."""
    if isinstance(spec, DType):
        return spec.dtype
    if isinstance(spec, str) and spec in DTYPES:
        return DTYPES[spec].dtype
    raise TypeError(f"{spec!r} is not a dtype the emulator knows")


def to_int(value: Any) -> Any:
    """``int(x)``: int64, truncated toward zero."""
    if isinstance(value, np.ndarray):
        return value.astype(np.int64)
    return np.int64(int(value))


def to_float(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.astype(np.float64)
    return np.float64(value)


def to_bool(value: Any) -> Any:
    return truth(value)


def _float_arg(x: Any) -> Any:
    """math.* on an integer works in float64 (numba); float32 stays float32."""
    return x.astype(np.float64) if x.dtype.kind in "biu" else x


def _math1(ufunc: np.ufunc) -> Any:
    def f(x: Any) -> Any:
        with np.errstate(all="ignore"):
            return ufunc(_float_arg(x))

    return f


def _math2(ufunc: np.ufunc) -> Any:
    def f(x: Any, y: Any) -> Any:
        with np.errstate(all="ignore"):
            return ufunc(_float_arg(x), _float_arg(y))

    return f


def _rounding(ufunc: np.ufunc) -> Any:
    """math.floor/ceil/trunc give int64 in numba (Python's int), not a float."""

    def f(x: Any) -> Any:
        if x.dtype.kind in "biu":
            return widen(x)
        with np.errstate(all="ignore"):
            return to_int(ufunc(x))

    return f


MATH: dict[str, Any] = {
    **{n: _math1(getattr(np, u)) for n, u in (
        ("sqrt", "sqrt"), ("exp", "exp"), ("log", "log"), ("log2", "log2"), ("log10", "log10"),
        ("sin", "sin"), ("cos", "cos"), ("tan", "tan"), ("asin", "arcsin"), ("acos", "arccos"),
        ("atan", "arctan"), ("sinh", "sinh"), ("cosh", "cosh"), ("tanh", "tanh"), ("asinh", "arcsinh"),
        ("acosh", "arccosh"), ("atanh", "arctanh"), ("expm1", "expm1"), ("log1p", "log1p"),
        ("fabs", "fabs"), ("degrees", "degrees"), ("radians", "radians"),
    )},
    **{n: _math2(getattr(np, u)) for n, u in (
        ("atan2", "arctan2"), ("pow", "power"), ("hypot", "hypot"), ("copysign", "copysign"),
        ("fmod", "fmod"),
    )},
    "floor": _rounding(np.floor), "ceil": _rounding(np.ceil), "trunc": _rounding(np.trunc),
    "isnan": lambda x: np.isnan(x), "isinf": lambda x: np.isinf(x), "isfinite": lambda x: np.isfinite(x),
    "pi": np.float64(math.pi), "e": np.float64(math.e), "inf": np.float64(math.inf),
    "nan": np.float64(math.nan), "tau": np.float64(math.tau),
}  # fmt: skip
