"""The kernel's arguments for a traced run, written as ``simtviz trace --arg NAME=SPEC`` takes them.

An array is ``DTYPE[D0]``, ``DTYPE[D0,D1]`` or ``DTYPE[D0,D1,D2]`` with an optional ``:INIT``
(``zeros`` — the default —, ``ones``, ``arange``, ``random`` or a number); a scalar is
``DTYPE:VALUE``. DTYPE is float32, float64, int32 or int64. Pure: NumPy only, no numba.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

DTYPES = ("float32", "float64", "int32", "int64")
INITS = ("zeros", "ones", "arange", "random")
MAX_DIMS = 3
# Elements per traced array: far beyond what a student types, small enough that a typo
# (an extra 0) is refused in words instead of exhausting memory.
MAX_ELEMENTS = 1 << 30
# The traced arrays together: 2 GiB is far past any lesson's, and the simulator child holds each
# array twice (host and "device") within its 16 GiB address space (backends/child_limits.py).
ARRAY_BUDGET_BYTES = 1 << 31
# random: floats uniform in [0, 1); integers in [0, RANDOM_INT_HIGH), good for bins and indices.
RANDOM_INT_HIGH = 100
DEFAULT_SEED = 12345

_ARRAY = re.compile(r"^(?P<dtype>[a-z0-9]+)\s*\[(?P<dims>[^\]]*)\]\s*(?::\s*(?P<init>.*))?$")
_SCALAR = re.compile(r"^(?P<dtype>[a-z0-9]+)\s*:\s*(?P<value>.+)$")
_NAME = re.compile(r"^\w+$")  # then str.isidentifier: any Python name, ``données`` included


class ArgSpecError(ValueError):
    """A SPEC that is not one of the forms above; the message says what was expected."""


@dataclass(frozen=True, slots=True)
class ArraySpec:
    name: str
    dtype: str
    shape: tuple[int, ...]
    init: str = "zeros"  # one of INITS, or "value"
    value: float | int | None = None  # the constant, when init == "value"

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def spec(self) -> str:
        """Back to CLI syntax."""
        init = _number_text(self.value) if self.init == "value" else self.init
        return f"{self.dtype}[{','.join(map(str, self.shape))}]:{init}"


@dataclass(frozen=True, slots=True)
class ScalarSpec:
    name: str
    dtype: str
    value: float | int

    def spec(self) -> str:
        return f"{self.dtype}:{_number_text(self.value)}"


ArgSpec = ArraySpec | ScalarSpec


def _number_text(value: float | int | None) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def _dtype(text: str, whole: str) -> str:
    if text not in DTYPES:
        raise ArgSpecError(f"{whole!r}: unknown type {text!r}; use one of {', '.join(DTYPES)}")
    return text


def _number(text: str, dtype: str, whole: str) -> float | int:
    text = text.strip()
    try:
        if dtype.startswith("int"):
            value: float | int = int(text, 0)
        else:
            value = float(text)
    except ValueError:
        kind = "a whole number" if dtype.startswith("int") else "a number"
        raise ArgSpecError(f"{whole!r}: {text!r} is not {kind} for {dtype}") from None
    if isinstance(value, int):
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            raise ArgSpecError(f"{whole!r}: {value} does not fit in {dtype} ({info.min} .. {info.max})")
    return value


def parse_spec(name: str, text: str) -> ArgSpec:
    """One parameter's SPEC (without ``NAME=``), e.g. ``float32[1000]:random`` or ``int64:1000``."""
    whole = str(text).strip()
    if not (_NAME.match(name) and name.isidentifier()):
        raise ArgSpecError(f"{name!r} is not a parameter name")
    match = _ARRAY.match(whole)
    if match:
        dtype = _dtype(match["dtype"], whole)
        parts = [p.strip() for p in match["dims"].split(",")]
        if not 1 <= len(parts) <= MAX_DIMS or any(not p for p in parts):
            raise ArgSpecError(f"{whole!r}: an array has 1 to 3 sizes, e.g. {dtype}[1000] or {dtype}[64,64]")
        shape = []
        for part in parts:
            if not re.fullmatch(r"\d+", part):
                raise ArgSpecError(f"{whole!r}: size {part!r} is not a whole number")
            shape.append(int(part))
        if math.prod(shape) > MAX_ELEMENTS:
            raise ArgSpecError(f"{whole!r}: {math.prod(shape):,} elements is more than {MAX_ELEMENTS:,}")
        init = (match["init"] or "zeros").strip()
        if init in INITS:
            return ArraySpec(name, dtype, tuple(shape), init)
        if not init:
            raise ArgSpecError(f"{whole!r}: nothing after ':'; use one of {', '.join(INITS)} or a number")
        try:
            value = _number(init, dtype, whole)
        except ArgSpecError:
            raise ArgSpecError(
                f"{whole!r}: unknown initial values {init!r}; use one of {', '.join(INITS)} or a number"
            ) from None
        return ArraySpec(name, dtype, tuple(shape), "value", value)
    match = _SCALAR.match(whole)
    if match:
        dtype = _dtype(match["dtype"], whole)
        return ScalarSpec(name, dtype, _number(match["value"], dtype, whole))
    if whole in DTYPES:
        raise ArgSpecError(
            f"{whole!r}: a scalar needs a value ({whole}:VALUE), an array its size ({whole}[N])"
        )
    raise ArgSpecError(
        f"{whole!r} is not an argument: write an array as DTYPE[N], DTYPE[N,M] or DTYPE[N,M,K] "
        "with an optional :zeros|ones|arange|random|NUMBER, or a scalar as DTYPE:VALUE "
        "(e.g. float32[1000]:random, int64:1000)"
    )


def parse_arg(text: str) -> ArgSpec:
    """``NAME=SPEC`` as the CLI's ``--arg`` takes it."""
    name, sep, spec = str(text).partition("=")
    if not sep:
        raise ArgSpecError(f"{text!r}: write NAME=SPEC, e.g. A=float32[1000]:random")
    return parse_spec(name.strip(), spec)


def parse_args(specs: Mapping[str, str] | Iterable[str]) -> dict[str, ArgSpec]:
    """A mapping NAME → SPEC, or ``NAME=SPEC`` strings; a name given twice is an error."""
    out: dict[str, ArgSpec] = {}
    items = (
        [parse_spec(k, v) for k, v in specs.items()]
        if isinstance(specs, Mapping)
        else [parse_arg(s) for s in specs]
    )
    for spec in items:
        if spec.name in out:
            raise ArgSpecError(f"{spec.name} is given twice")
        out[spec.name] = spec
    check_array_budget(out.values())
    return out


def check_array_budget(specs: Iterable[ArgSpec], budget: int = ARRAY_BUDGET_BYTES) -> None:
    """ArgSpecError, before anything is allocated, when the arrays together exceed ``budget``
    bytes; the words name each array's size and what to make smaller."""
    from simtviz.core.files import format_bytes

    arrays = [s for s in specs if isinstance(s, ArraySpec)]
    sizes = {s.name: s.size * np.dtype(s.dtype).itemsize for s in arrays}
    total = sum(sizes.values())
    if total <= budget:
        return
    largest = max(sizes, key=lambda n: sizes[n])
    each = ", ".join(f"{n} {format_bytes(b)}" for n, b in sizes.items())
    raise ArgSpecError(
        f"the arrays need {format_bytes(total)} together ({each}), more than the "
        f"{format_bytes(budget)} simtviz builds for a traced run; make the largest ({largest}) "
        "smaller: a few thousand elements show every pattern a lesson needs"
    )


def match_parameters(params: Iterable[str], specs: Mapping[str, ArgSpec]) -> list[ArgSpec]:
    """The specs in the kernel's parameter order; every parameter needs one, and no extras."""
    params = list(params)
    missing = [p for p in params if p not in specs]
    extra = [n for n in specs if n not in params]
    if missing:
        raise ArgSpecError(
            f"no --arg for parameter{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
            f"(the kernel takes {', '.join(params) or 'no parameters'})"
        )
    if extra:
        raise ArgSpecError(f"the kernel has no parameter {', '.join(extra)} (it takes {', '.join(params)})")
    return [specs[p] for p in params]


def build_array(spec: ArraySpec, rng: np.random.Generator) -> np.ndarray:
    """The host array a spec describes (C order)."""
    if spec.init == "zeros":
        return np.zeros(spec.shape, spec.dtype)
    if spec.init == "ones":
        return np.ones(spec.shape, spec.dtype)
    if spec.init == "arange":
        return np.arange(spec.size, dtype=spec.dtype).reshape(spec.shape)
    if spec.init == "random":
        if spec.dtype.startswith("int"):
            return rng.integers(0, RANDOM_INT_HIGH, size=spec.shape, dtype=spec.dtype)
        return rng.random(spec.shape).astype(spec.dtype)
    return np.full(spec.shape, spec.value, dtype=spec.dtype)


def build_scalar(spec: ScalarSpec) -> np.generic:
    return np.dtype(spec.dtype).type(spec.value)


def build_host_args(specs: Iterable[ArgSpec], seed: int = DEFAULT_SEED) -> list[np.ndarray | np.generic]:
    """Host values in the order given; ``random`` arrays draw from one generator with a fixed seed."""
    rng = np.random.default_rng(seed)
    return [build_array(s, rng) if isinstance(s, ArraySpec) else build_scalar(s) for s in specs]
