"""The kernel rewrite: it finds the kernel without running the file, records each access site,
keeps the student's line numbers, and refuses what it cannot follow, naming the line."""

from __future__ import annotations

import ast
import textwrap

import pytest

from simtviz.core.trace.rewrite import rewrite_kernel
from simtviz.core.trace.source import TraceUnsupported, describe_numba_error, find_kernels, numba_error_line

HEADER = "from numba import cuda\n\n\n@cuda.jit\n"  # the kernel's def is on line 5


def kernel(body: str, params: str = "A, B, C") -> str:
    return HEADER + f"def k({params}):\n" + textwrap.indent(textwrap.dedent(body), "    ")


def test_sites_have_the_students_lines_and_kinds() -> None:
    src = kernel(
        """\
        i = cuda.grid(1)
        C[i] = A[i] + B[i]
        C[i] += A[i + 1]
        cuda.atomic.add(C, i, 1.0)
        """
    )
    rw = rewrite_kernel(src)
    assert rw.arrays == ("A", "B", "C")
    got = [(s.line, s.array, s.kind) for s in rw.sites]
    assert sorted(got) == sorted(
        [(7, "A", "load"), (7, "B", "load"), (7, "C", "store"),
         (8, "C", "load"), (8, "A", "load"), (8, "C", "store"), (9, "C", "atomic")]
    )  # fmt: skip
    # The rewritten kernel is the student's, line for line: every statement of it keeps its line.
    fn = next(n for n in rw.tree.body if isinstance(n, ast.FunctionDef))
    assert fn.lineno == 5
    assert {n.lineno for n in fn.body} == {6, 7, 8, 9}  # the thread id goes on the first line
    assert [a.arg for a in fn.args.args] == ["A", "B", "C", "_tv_log", "_tv_count", "_tv_first", "_tv_blocks"]


def test_the_file_is_only_parsed_and_its_top_level_work_is_dropped() -> None:
    src = "import numpy as np\nraise SystemExit('ran')\nN = 16\n" + kernel("C[0] = A[0]\n").replace(
        "from numba import cuda\n", "from numba import cuda\nk[1, 1](1, 2, 3)\n"
    )
    rw = rewrite_kernel(src)  # would have raised SystemExit had anything run
    assert rw.dropped_lines == [2, 5]
    assert "SystemExit" not in rw.source and "k[1, 1]" not in rw.source
    assert "N = 16" in rw.source


def test_kernels_are_found_by_decorator_and_chosen_by_name() -> None:
    src = (
        "from numba import cuda\n@cuda.jit(device=True)\ndef helper(x):\n    return x\n"
        "@cuda.jit\ndef one(A):\n    A[0] = 1\n@cuda.jit('void(float32[:])')\ndef two(A):\n    A[1] = 2\n"
    )
    assert [k.name for k in find_kernels(src)] == ["one", "two"]
    with pytest.raises(TraceUnsupported, match="2 kernels"):
        rewrite_kernel(src)
    assert rewrite_kernel(src, "two").sites[0].line == 10
    with pytest.raises(TraceUnsupported, match=r"no @cuda\.jit kernel named 'three'"):
        rewrite_kernel(src, "three")


UNSUPPORTED = [
    ("i = 0\nC[i:] = A[i:]\n", {}, 7, "slice"),
    ("x = A[:, 0]\n", {"A": 2}, 6, "slice"),
    ("C[...] = 0\n", {}, 6, "Ellipsis"),
    ("x = A[0, 1, 2, 3]\n", {}, 6, "1 to 3"),
    ("x = A[0][1]\n", {"A": 2}, 6, "2-D but is indexed with 1"),
    ("x = A[1.5]\n", {}, 6, "not an integer"),
    ("x = A[cuda.grid(1) / 2]\n", {}, 6, "use '//'"),
    ("x = 0\ny = helper(A)\n", {}, 7, "passes the array A to helper"),
    ("D = A\n", {}, 6, "uses the array A as a value"),
    ("x = A.T[0]\n", {"A": 2}, 6, "A.T"),
    ("A = 1\n", {}, 6, "assigns to the array parameter A"),
    ("x = 0\ndef inner():\n    pass\n", {}, 7, "function defined inside the kernel"),
    ("f = lambda v: v\n", {}, 6, "lambda"),
    ("C[0] = B[0] = 1.0\n", {}, 6, "chained assignment"),
    ("C[0], C[1] = 1.0, 2.0\n", {}, 6, "one plain store per line"),
    ("for C[0] in range(3):\n    pass\n", {}, 6, "for loop"),
    ("del C[0]\n", {}, 6, "del"),
    ("cuda.atomic.max(C, 0, 1.0)\n", {}, 6, "only cuda.atomic.add"),
    ("x = 1\n_tv_log = 2\n", {}, 7, "reserved"),
    ("x = n[0]\n", {"A": 1, "B": 1, "C": 1}, 6, "n, which is a scalar"),
]


@pytest.mark.parametrize(("body", "arrays", "line", "words"), UNSUPPORTED)
def test_each_unsupported_construct_names_its_line(
    body: str, arrays: dict[str, int], line: int, words: str
) -> None:
    src = kernel(body, "A, B, C, n")
    given = {"A": 1, "B": 1, "C": 1} | arrays  # from the --arg specs; n is a scalar
    with pytest.raises(TraceUnsupported) as info:
        rewrite_kernel(src, arrays=given)
    assert info.value.line == line
    assert str(info.value).startswith(f"line {line}: ")
    assert words in str(info.value)


def test_unsupported_signatures_name_the_def_line() -> None:
    for params in ("*args", "A, **kw", "A, B=1", "A, *, B"):
        with pytest.raises(TraceUnsupported) as info:
            rewrite_kernel(kernel("pass\n", params))
        assert info.value.line == 5


def test_a_syntax_error_names_its_line() -> None:
    with pytest.raises(TraceUnsupported, match="line 6: syntax error"):
        rewrite_kernel(kernel("C[0] = = 1\n"))


def test_shared_arrays_are_traced_with_ids_after_the_parameters_and_local_ones_are_left_alone() -> None:
    src = "TILE = 16\nPAD = TILE + 1\n" + kernel(
        """\
        s = cuda.shared.array((TILE, PAD), float32)
        d = cuda.shared.array(shape=8, dtype=numba.float64)
        t = cuda.local.array(4, float32)
        s[0, 1] = A[0]
        d[1] += s[1, 0]
        t[0] = d[0]
        cuda.atomic.add(d, 2, 1.0)
        C[0] = t[0]
        """
    )
    rw = rewrite_kernel(src)
    assert rw.arrays == ("A", "C") and rw.array_names == ("A", "C", "s", "d")
    assert [(s.name, s.shape, s.dtype, s.line) for s in rw.shared] == [
        ("s", (16, 17), "float32", 8),
        ("d", (8,), "float64", 9),
    ]
    got = [(s.line, s.array, s.kind, s.space) for s in rw.sites]
    assert sorted(got) == sorted(
        [(11, "A", "load", "global"), (11, "s", "store", "shared"),
         (12, "d", "load", "shared"), (12, "s", "load", "shared"), (12, "d", "store", "shared"),
         (13, "d", "load", "shared"), (14, "d", "atomic", "shared"), (15, "C", "store", "global")]
    )  # fmt: skip
    assert "cuda.shared.array((TILE, PAD), float32)" in rw.source  # created as written
    assert rw.array_id("d") == 3


SHARED_UNSUPPORTED = [
    ("s = cuda.shared.array(TPB + 2, float32)\ns[0] = 1\n", 6, "must be known before the kernel runs"),
    ("n = 8\ns = cuda.shared.array(n, float32)\n", 7, "must be known before the kernel runs"),
    ("s = cuda.shared.array(0, float32)\n", 6, "dynamic shared memory"),
    ("s = cuda.shared.array((2, 2, 2, 2), float32)\n", 6, "1 to 3"),
    ("s = cuda.shared.array(8, np.dtype('f4'))\n", 6, "element type of the shared array s"),
    ("s, t = cuda.shared.array(8, float32), 1\n", 6, "on a line of its own"),
    (
        "s = cuda.shared.array(8, float32)\nif A[0] > 0:\n    s = cuda.shared.array(8, float32)\n",
        8,
        "created twice",
    ),
    ("s = cuda.shared.array((8, 8), float32)\nx = s[0][1]\n", 7, "2-D but is indexed with 1"),
    ("s = cuda.shared.array(8, float32)\nhelper(s)\n", 7, "passes the array s to helper"),
    ("s = cuda.shared.array(8, float32)\ns = 1\n", 7, "assigns to the shared array s"),
    ("s = cuda.shared.array(8, float32)\nx = s[2:]\n", 7, "slice"),
    ("s = cuda.shared.array(8, float32)\ncuda.atomic.max(s, 0, 1.0)\n", 7, "only cuda.atomic.add"),
    ("A = cuda.shared.array(8, float32)\n", 6, "has the name of a parameter"),
]


@pytest.mark.parametrize(("body", "line", "words"), SHARED_UNSUPPORTED)
def test_each_unsupported_shared_construct_names_its_line(body: str, line: int, words: str) -> None:
    src = "TPB = 8\n" + kernel(body, "A, B, C, n")
    with pytest.raises(TraceUnsupported) as info:
        rewrite_kernel(src, arrays={"A": 1, "B": 1, "C": 1})
    assert info.value.line == line + 1  # the constant above shifts every line by one
    assert words in str(info.value)


NUMBA_TEXT = """Failed in cuda mode pipeline (step: nopython frontend)
No implementation of function Function(<built-in function setitem>) found for signature:

 >>> setitem(array(float32, 1d, C), int64, unicode_type)

During: typing of call at /tmp/simtviz-trace-x1/my_kernel.py (9)

File "../../tmp/simtviz-trace-x1/my_kernel.py", line 9:
def k(A):
    <source elided>
    _tv_store1(A, i, "s")
    ^
"""


def test_numba_errors_come_back_on_the_students_line_and_file_name() -> None:
    assert numba_error_line(NUMBA_TEXT, "/tmp/simtviz-trace-x1/my_kernel.py") == 9
    text = describe_numba_error(NUMBA_TEXT, "/tmp/simtviz-trace-x1/my_kernel.py", "vecadd.py")
    assert text.startswith("line 9: No implementation of function")
    assert "simtviz-trace" not in text and 'File "vecadd.py", line 9' in text
    assert "traced store (1-D)" in text
