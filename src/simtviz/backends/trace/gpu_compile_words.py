"""numba-cuda's refusal of a student's kernel in a beginner's words, with the student's line
(``gpu_compile.explain``): numba's own first line is kept after the plain words."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

from simtviz.core.trace.model import TraceRequest

_ANSI = re.compile(r"\x1b\[[0-9;]*m")

# numba's words → a beginner's, each (pattern, wording); the wording may use the match's groups.
_PLAIN: list[tuple[str, Callable[[re.Match[str]], str]]] = [
    (
        r"Unsupported array index type (?P<type>\w+)",
        lambda m: (
            f"an array index must be an integer, and this one is {m['type']}: the array it was read "
            "from (or a value computed from one) needs an integer type such as int32"
        ),
    ),
    (
        r"Unknown attribute '(?P<attr>\w+)' of type Module\(<module '(?P<mod>[\w.]+)'",
        lambda m: (
            f"{m['mod']}.{m['attr']} does not exist on a GPU: numba-cuda cannot compile Python's "
            f"{m['mod']} module into a kernel"
            + (
                " (for random numbers use numba.cuda.random's xoroshiro128p generators)"
                if m["mod"] == "random"
                else ""
            )
        ),
    ),
    (
        r"scipy .*required for linear algebra|linalg",
        lambda m: (
            "NumPy's linear algebra (np.linalg) does not exist on a GPU: "
            "numba-cuda cannot compile it into a kernel"
        ),
    ),
    (
        r"Untyped global name '(?P<name>\w+)'",
        lambda m: (
            f"{m['name']} is a Python object numba-cuda cannot compile into a kernel "
            "(only @cuda.jit(device=True) functions, math and numbers can be used there)"
        ),
    ),
    (
        r"No implementation of function Function\(<[^>]*?(?:function|built-in function) (?P<fn>[\w.]+)",
        lambda m: f"{m['fn']}() cannot be called with these arguments in a kernel on a GPU",
    ),
    (r"NameError: name '(?P<name>\w+)' is not defined", lambda m: f"{m['name']} is not defined"),
]


def explain_words(exc: BaseException, path: str, request: TraceRequest) -> tuple[int, str]:
    """numba's error as ``line N: a GPU would not compile this kernel: <plain words>`` and, after,
    numba's own first line (the student's file named as they know it); with the line (0: unknown)."""
    from simtviz.core.trace.source import describe_numba_error, numba_error_line

    text = _ANSI.sub("", f"{type(exc).__name__}: {exc}")
    line = numba_error_line(text, path) or _loc_line(exc, path) or _line_of(request, text) or 0
    raw = _ANSI.sub("", str(exc)) or type(exc).__name__
    numba_words = describe_numba_error(raw, path, request.filename).splitlines()[0]
    numba_words = re.sub(r"^line \d+: ", "", numba_words).strip()
    numba_words = re.sub(r" from '[^']*'", "", numba_words)  # a module's path on this machine
    signature_line = re.search(r">>> (.+)", raw)
    if numba_words.endswith(":") and signature_line:
        numba_words += " " + signature_line[1].strip()
    if not type(exc).__module__.startswith("numba"):
        numba_words = f"{type(exc).__name__}: {numba_words}"
    plain = ""
    line_text = _source_line(request.source, line)
    for pattern, words in _PLAIN:
        match = re.search(pattern, text) or (re.search(pattern, line_text) if "linalg" in pattern else None)
        if match:
            plain = words(match)
            break
    plain = plain or numba_words
    where = f"line {line}: " if line else ""
    message = f"{where}a GPU would not compile this kernel: {plain}"
    if numba_words and numba_words != plain:
        message += f"\n\nnumba-cuda said: {numba_words}"
    return line, message


def _loc_line(exc: BaseException, path: str) -> int | None:
    """The line numba's error object carries (its text does not always say it)."""
    loc = getattr(exc, "loc", None)
    filename = str(getattr(loc, "filename", "") or "")
    if loc is not None and Path(filename).name == Path(path).name:
        return int(getattr(loc, "line", 0) or 0) or None
    return None


def _source_line(source: str, line: int) -> str:
    lines = source.splitlines()
    return lines[line - 1] if 0 < line <= len(lines) else ""


def _line_of(request: TraceRequest, text: str) -> int | None:
    """A line for an error numba gave without one: for its linear algebra's ImportError the first
    line of the kernel that uses np.linalg; for an index that is not an integer the first index
    made from an array's elements (``b = data[i]; bins[b]``)."""
    try:
        from simtviz.core.trace.infer import index_arrays
        from simtviz.core.trace.source import choose_kernel, parse

        fn = choose_kernel(parse(request.source, request.filename), request.kernel)
    except Exception:
        return None
    if "array index type" in text:
        params = {a.arg for a in fn.args.posonlyargs + fn.args.args}
        lines = index_arrays(fn, params).values()
        return min(lines) if lines else None
    callee = _callee(text)
    if callee:  # numba 0.68 may name the function without any line: the kernel's first call of it
        calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call) and _called_name(n) == callee]
        if calls:
            return min(int(n.lineno) for n in calls)
    words = ["linalg"] if "linear algebra" in text else re.findall(r"'(\w+)'", text)[:1]
    if not words:
        return None
    for node in ast.walk(fn):
        name = getattr(node, "attr", None) or getattr(node, "id", None)
        if name in words:
            return int(getattr(node, "lineno", 0)) or None
    return None


def _callee(text: str) -> str | None:
    """The function numba found no implementation of: ``Function(<function norm at 0x…>)``,
    ``Function(<built-in function sqrt>)`` or the ``>>> norm(…)`` signature line."""
    match = re.search(r"No implementation of function Function\(<(?:built-in )?function (\w+)", text)
    match = match or re.search(r">>> (\w+)\(", text)
    return match[1] if match else None


def _called_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
