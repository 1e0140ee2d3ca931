"""The kernel rewrite, statement by statement: barriers counted on their lines, statements the
tracer does not touch kept as written, the tracer's imports placed where Python accepts them,
and refusals in words (never a traceback). Line numbers are counted by hand from HEADER."""

from __future__ import annotations

import ast
import textwrap

import pytest

from simtviz.core.trace.rewrite import plain_module, rewrite_kernel
from simtviz.core.trace.source import TraceUnsupported

HEADER = "from numba import cuda\n\n\n@cuda.jit\n"  # the kernel's def is on line 5, its body from 6


def kernel(body: str, params: str = "A, B") -> str:
    return HEADER + f"def k({params}):\n" + textwrap.indent(textwrap.dedent(body), "    ")


def test_barriers_are_counted_on_their_lines_and_other_calls_are_not() -> None:
    src = kernel("i = cuda.grid(1)\nA[i] = 1.0\ncuda.syncthreads()\ncuda.threadfence()\nB[i] = A[i]\n")
    rw = rewrite_kernel(src)
    # lines 6 i, 7 store, 8 barrier, 9 threadfence (no barrier), 10 load/store
    assert rw.barrier_lines == (8,)
    assert "_tv_epoch = _tv_sync(_tv_epoch)" in rw.source
    assert "_tv_epoch = 0" in rw.source  # every thread starts before any barrier
    assert "threadfence()" in rw.source


def test_statements_without_array_elements_are_kept_as_written() -> None:
    src = kernel("t: float = 1.0\ns = 0.0\ns += t\nn = len(A)\ndel t\nA[0] = s + n\n")
    rw = rewrite_kernel(src)
    for kept in ("t: float = 1.0", "s += t", "n = len(A)", "del t"):
        assert kept in rw.source
    assert [(s.line, s.array, s.kind) for s in rw.sites] == [(11, "A", "store")]


def test_a_with_block_is_kept() -> None:
    rw = rewrite_kernel(kernel("with ctx():\n    A[0] = 1.0\n"))
    assert "with ctx():" in rw.source
    assert [(s.line, s.kind) for s in rw.sites] == [(7, "store")]


def test_an_array_passed_to_a_function_of_one_argument_other_than_len_is_refused() -> None:
    with pytest.raises(TraceUnsupported, match=r"passes the array A to abs\(\)"):
        rewrite_kernel(kernel("x = abs(A)\nA[0] = x\n"))


def test_an_atomic_add_with_two_arguments_is_refused_in_words() -> None:
    with pytest.raises(TraceUnsupported, match=r"cuda.atomic.add on A takes \(array, index, value\)") as err:
        rewrite_kernel(kernel("cuda.atomic.add(A, 0)\n"))
    assert err.value.args[0] == 6 or "6" in str(err.value)


def test_arrays_found_by_indexing_or_atomics_take_their_dimensions_from_first_use() -> None:
    src = kernel("x, y = cuda.grid(2)\nA[x, y] = 1.0\ncuda.atomic.add(B, (x, y), 1.0)\n")
    rw = rewrite_kernel(src)
    assert [(s.line, s.array, s.kind, s.ndim) for s in rw.sites] == [
        (7, "A", "store", 2),
        (8, "B", "atomic", 2),
    ]


def test_the_tracers_imports_come_after_the_docstring_and_future_import() -> None:
    src = '"""A module."""\nfrom __future__ import annotations\n' + kernel("A[0] = 1.0\n")
    rw = rewrite_kernel(src)
    body = rw.tree.body
    assert isinstance(body[0], ast.Expr)  # the docstring
    assert isinstance(body[1], ast.ImportFrom) and body[1].module == "__future__"
    assert isinstance(body[2], ast.ImportFrom) and body[2].module == "numba"
    compile(rw.tree, "k.py", "exec")  # a future import after anything else would not compile


def test_the_tracers_imports_come_before_a_kernel_on_the_first_line() -> None:
    rw = rewrite_kernel("@cuda.jit\ndef k(A):\n    A[0] = 1.0\n")
    body = rw.tree.body
    assert isinstance(body[0], ast.ImportFrom) and body[0].module == "numba"
    assert isinstance(body[-1], ast.FunctionDef)
    plain, name = plain_module("@cuda.jit\ndef k(A):\n    A[0] = 1.0\n")
    assert name == "k"
    assert isinstance(plain.body[0], ast.ImportFrom) and isinstance(plain.body[-1], ast.FunctionDef)


def test_compile_traces_unless_asked_for_the_plain_kernel() -> None:
    rw = rewrite_kernel(kernel("A[0] = 1.0\n"))
    traced_names = set(rw.compile("k.py").co_names)
    plain_names = set(rw.compile("k.py", traced=False).co_names)
    # the traced module imports the tracer's helpers (_tv_... names), the plain one only cuda
    assert any(n.startswith("_tv_") and n != "_tv_cuda" for n in traced_names)
    assert not any(n.startswith("_tv_") and n != "_tv_cuda" for n in plain_names)


def test_the_tracers_imports_come_right_after_a_future_import_not_after_the_kernel() -> None:
    src = "from __future__ import annotations\n@cuda.jit\ndef k(A):\n    A[0] = 1.0\nX = 1\n"
    body = rewrite_kernel(src).tree.body
    assert isinstance(body[1], ast.ImportFrom) and body[1].module == "numba"
    assert isinstance(body[-2], ast.FunctionDef) and isinstance(body[-1], ast.Assign)


def test_an_atomic_on_an_attribute_of_a_parameter_is_read_without_a_traceback() -> None:
    # C.T is no parameter by name: C is not traced, A's store on line 6 is
    src = HEADER + "def k(A, C):\n    A[0] = 1.0\n    cuda.atomic.add(C.T, 0, 1.0)\n"
    rw = rewrite_kernel(src)
    assert rw.arrays == ("A",)
    assert [(s.line, s.kind) for s in rw.sites] == [(6, "store")]
