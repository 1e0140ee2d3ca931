"""The student's source as text: its kernels found and chosen without running it, and numba's
errors mapped back to its lines. (The rewrite itself is ``trace_rewrite``.)"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

PREFIX = "_tv_"  # every name the tracer adds starts with this; a student's may not


class TraceUnsupported(ValueError):
    """A construct the tracer does not follow; ``line`` is the student's line (0: the file)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line
        self.message = message

    def __reduce__(self) -> tuple[type, tuple[int, str]]:  # crosses from the child process
        return (TraceUnsupported, (self.line, self.message))


@dataclass(frozen=True, slots=True)
class KernelInfo:
    name: str
    params: tuple[str, ...]
    line: int


# --- finding kernels -----------------------------------------------------------------------


def _is_cuda_jit(node: ast.expr) -> bool:
    """``cuda.jit``, ``numba.cuda.jit`` or ``jit`` (as imported from numba.cuda)."""
    if isinstance(node, ast.Attribute) and node.attr == "jit":
        return True
    return isinstance(node, ast.Name) and node.id == "jit"


def _is_kernel(fn: ast.FunctionDef) -> bool:
    """Whether its (first) cuda.jit decorator makes it a kernel, not a device function."""
    jit = next((d for d in fn.decorator_list if _is_cuda_jit(d.func if isinstance(d, ast.Call) else d)), None)
    return jit is not None and not (
        isinstance(jit, ast.Call)
        and any(
            kw.arg == "device" and isinstance(kw.value, ast.Constant) and kw.value.value is True
            for kw in jit.keywords
        )
    )


def parse(source: str, filename: str = "<kernel>") -> ast.Module:
    try:
        return ast.parse(source, filename=filename)
    except SyntaxError as exc:
        raise TraceUnsupported(exc.lineno or 0, f"syntax error: {exc.msg}") from None
    except (RecursionError, MemoryError):
        # An expression of tens of thousands of terms: Python's parser gives up on its depth.
        line = _longest_line(source)
        raise TraceUnsupported(
            line,
            "this line is too deeply nested for Python to read (an expression of thousands of "
            "terms); split it into shorter statements",
        ) from None
    except ValueError as exc:  # "source code string cannot contain null bytes"
        raise TraceUnsupported(0, f"the file cannot be read as Python: {exc}") from None


def _longest_line(source: str) -> int:
    lines = source.splitlines() or [""]
    return max(range(len(lines)), key=lambda i: len(lines[i])) + 1


# Above this many characters ``find_kernels`` reads only the top-level decorated function
# headers: parsing a whole 1 MB file takes seconds (3.2 s for 1.3 MB on the 2-core machine).
HEADERS_ONLY_CHARS = 64_000


def headers_only(source: str) -> str:
    """The file's top-level decorated ``def`` headers, each with a ``pass`` body: enough for
    ``find_kernels`` (names, parameters, ``@cuda.jit``), read in milliseconds from any size."""
    out: list[str] = []
    lines = source.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("@"):
            block = []
            while i < len(lines) and lines[i].startswith("@"):
                block.append(lines[i])
                i += 1
            if i < len(lines) and lines[i].startswith("def "):
                while i < len(lines):  # a signature may span lines, up to its closing colon
                    block.append(lines[i])
                    if lines[i].partition("#")[0].rstrip().endswith(":"):  # def k(A):  # a comment
                        break
                    i += 1
                out.extend([*block, "    pass", ""])
        i += 1
    return "\n".join(out)


def find_kernels(source: str | ast.Module) -> list[KernelInfo]:
    """The ``@cuda.jit`` kernels defined at the top level (device functions excluded)."""
    if isinstance(source, str) and len(source) > HEADERS_ONLY_CHARS:
        source = headers_only(source)
    tree = parse(source) if isinstance(source, str) else source
    out = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and _is_kernel(node):
            params = tuple(a.arg for a in node.args.posonlyargs + node.args.args)
            out.append(KernelInfo(node.name, params, node.lineno))
    return out


def choose_kernel(tree: ast.Module, name: str | None) -> ast.FunctionDef:
    kernels = find_kernels(tree)
    if not kernels:
        raise TraceUnsupported(0, "no @cuda.jit kernel in this file")
    if name is None:
        if len(kernels) > 1:
            names = ", ".join(k.name for k in kernels)
            raise TraceUnsupported(0, f"the file has {len(kernels)} kernels ({names}): choose one by name")
        name = kernels[0].name
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name and any(k.name == name for k in kernels):
            return node
    raise TraceUnsupported(
        0, f"no @cuda.jit kernel named {name!r} (found {', '.join(k.name for k in kernels)})"
    )


# --- numba's errors, back on the student's lines ----------------------------------------------

_FILE_LINE = r'File "(?P<file>[^"]*)", line (?P<line>\d+)'
_AT_LINE = r"at (?P<file>\S+) \((?P<line>\d+)\)"


def _file_name(filename: str) -> str:
    """The file's own name, after its last folder (``/`` or ``\\``), as a regex."""
    return re.escape(filename.replace("\\", "/").rpartition("/")[2])


def numba_error_line(text: str, filename: str) -> int | None:
    """The first line of ``filename`` (the student's file as compiled) that numba's text names."""
    base = _file_name(filename)
    for pattern in (_FILE_LINE, _AT_LINE):
        for match in re.finditer(pattern, text):
            if re.search("(^|/)" + base + "$", match["file"].replace("\\", "/")):  # not typeinfer.py
                return int(match["line"])
    return None


def describe_numba_error(text: str, filename: str, shown_name: str = "your kernel") -> str:
    """numba's message with the compiled file's paths replaced by ``shown_name`` and, first,
    ``line N:`` with the student's line; the tracer's own helper names are spelled as accesses."""
    line = numba_error_line(text, filename)
    base = _file_name(filename)
    # whole file names only: a student's infer.py must not rename numba's typeinfer.py
    cleaned = re.sub(r'"(?:[^"]*[/\\])?' + base + '"', f'"{shown_name}"', text)
    cleaned = re.sub(r"(?<![^\s/\\])(?:\S*[/\\])?" + base, shown_name, cleaned)
    cleaned = re.sub(PREFIX + r"(load|store|atomic_add)(\d)", r"traced \1 (\2-D)", cleaned)
    lines = [s for s in cleaned.strip().splitlines() if s.strip()]
    head = next((s for s in lines if not s.startswith("Failed in")), lines[0] if lines else "")
    summary = f"line {line}: {head.strip()}" if line else head.strip()
    return summary + ("\n\n" + cleaned.strip() if cleaned.strip() != head.strip() else "")


# --- the top-level statements kept around the kernel ------------------------------------------

# Calls allowed in a kept top-level constant: numeric types (np.float32(0.5), numba.int32(3)).
_CONSTANT_CALLS = {"int", "float", "bool", "float32", "float64", "int8", "int16", "int32", "int64",
                   "uint8", "uint16", "uint32", "uint64", "complex64", "complex128"}  # fmt: skip


def _constant_like(value: ast.expr) -> bool:
    for node in ast.walk(value):
        if isinstance(node, ast.Call):
            func = node.func
            last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if last not in _CONSTANT_CALLS:
                return False
        if isinstance(node, ast.Lambda | ast.NamedExpr | ast.Await | ast.Yield | ast.YieldFrom):
            return False
    return True


def kept_statement(node: ast.stmt) -> bool:
    """Whether a top-level statement stays in the module that runs: imports, functions, constants."""
    if isinstance(node, ast.Import | ast.ImportFrom | ast.FunctionDef):
        return True
    if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
        return _constant_like(node.value)
    # a docstring
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)


def refuse_hidden_barriers(tree: ast.Module, kernel: ast.FunctionDef) -> None:
    """TraceUnsupported when the kernel calls a function of the file that calls
    ``cuda.syncthreads()``: barriers are counted where the kernel itself writes them, and one
    hidden in a device function would make the accesses around it look unordered (false races)."""
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef) and n is not kernel}
    for node in ast.walk(kernel):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions:
            for inner in ast.walk(functions[node.func.id]):
                func = getattr(inner, "func", None)
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if isinstance(inner, ast.Call) and name.startswith("syncthreads"):
                    raise TraceUnsupported(
                        node.lineno,
                        f"{node.func.id}() calls cuda.{name}() (line {inner.lineno}): the tracer counts "
                        "barriers written in the kernel itself; call it from the kernel",
                    )
