"""Reading the student's kernel file (core/trace/source.py): the 64,000-character limit exactly at
the limit and one character over, what a long file's fast header scan finds (a kernel on the file's
first line, a signature over two lines, a comment after the colon, a decorator still being typed),
the line named when Python cannot read the file, and which top-level statements are kept."""

from __future__ import annotations

import pytest

from simtviz.core.trace.rewrite import rewrite_kernel
from simtviz.core.trace.source import TraceUnsupported, find_kernels, parse

BROKEN = "from numba import cuda\ndef broken(:\n"  # line 2 is being edited: not Python
SCALE = "@cuda.jit\ndef scale(A, n):\n    i = cuda.grid(1)\n    if i < n:\n        A[i] = 2.0\n"


def padded(head: str, tail: str, chars: int) -> str:
    """``head``, one comment line of '#'s, then ``tail``: ``chars`` characters in all."""
    pad = chars - len(head) - len(tail) - 1  # the comment's newline is the 1
    return head + "#" * pad + "\n" + tail


def found(source: str) -> list[tuple[str, tuple[str, ...]]]:
    return [(k.name, k.params) for k in find_kernels(source)]


# --- the limit: 64,000 characters read whole, 64,001 from the decorated headers only -------------


def test_a_file_of_64000_characters_is_parsed_whole() -> None:
    src = padded(BROKEN, SCALE, 64_000)
    assert len(src) == 64_000
    with pytest.raises(TraceUnsupported) as info:  # the whole file: its broken line 2 is read
        find_kernels(src)
    assert info.value.line == 2 and str(info.value).startswith("line 2: syntax error")


def test_a_file_of_64001_characters_is_read_from_its_headers() -> None:
    src = padded(BROKEN, SCALE, 64_001)
    assert len(src) == 64_001
    assert found(src) == [("scale", ("A", "n"))]  # line 2 is not a decorated header: not read


# --- what the header scan of a long file finds ------------------------------------------------


def test_a_kernel_on_the_first_line_of_a_long_file_is_found() -> None:
    first = "@cuda.jit\ndef first(B):\n    B[0] = 1\n"  # pasted without its import: line 1 is @
    assert found(padded(first, SCALE, 70_000)) == [("first", ("B",)), ("scale", ("A", "n"))]


def test_a_signature_over_two_lines_is_read_to_its_closing_colon() -> None:
    two = "@cuda.jit\ndef scale(A,\n          n):\n    i = cuda.grid(1)\n    if i < n:\n        A[i] = 2.0\n"
    assert found(padded("from numba import cuda\n", two, 70_000)) == [("scale", ("A", "n"))]


def test_a_comment_after_the_signatures_colon_still_ends_it() -> None:
    # "def scale(A, n):  # doubles A" ends with the comment, not the colon; the body's own
    # "if i < n:" must not be taken for the end of the signature.
    commented = SCALE.replace("def scale(A, n):", "def scale(A, n):  # doubles A")
    assert found(padded("from numba import cuda\n", commented, 70_000)) == [("scale", ("A", "n"))]


def test_a_decorator_still_being_typed_hides_no_kernel() -> None:
    # At the end of the file, and above a constant (not a def): the kernels are listed all the same.
    assert found(padded("from numba import cuda\n", SCALE + "@cuda.jit", 70_000)) == [("scale", ("A", "n"))]
    above_a_constant = "@cuda.jit\nN = 1000\n\n" + SCALE
    assert found(padded("from numba import cuda\n", above_a_constant, 70_000)) == [("scale", ("A", "n"))]


def test_a_signature_still_being_typed_at_the_end_is_refused_as_a_short_file_would_be() -> None:
    src = padded("from numba import cuda\n", SCALE + "@cuda.jit\ndef half(A,", 70_000)
    with pytest.raises(TraceUnsupported, match="syntax error"):
        find_kernels(src)
    with pytest.raises(TraceUnsupported, match="syntax error"):
        find_kernels(SCALE + "@cuda.jit\ndef half(A,")  # the same text, short: parsed whole


# --- the line named when Python cannot read the file ------------------------------------------


def test_a_20000_term_line_is_named_by_its_number() -> None:
    # line 1 "from numba import cuda" (22 characters), line 2 empty, line 3 "X = 1+1+...+1":
    # 4 + 20,000 ones + 19,999 pluses = 40,003 characters, the longest line, and line 4 "Y = 2".
    src = "from numba import cuda\n\nX = " + "+".join(["1"] * 20_000) + "\nY = 2\n"
    with pytest.raises(TraceUnsupported) as info:
        parse(src)
    assert info.value.line == 3 and str(info.value).startswith("line 3: this line is too deeply nested")


def test_a_null_byte_on_line_3_is_never_said_to_be_on_line_1() -> None:
    with pytest.raises(TraceUnsupported) as info:
        parse("x = 1\ny = 2\nz = 3\x00\n")
    assert info.value.line in (0, 3)  # the whole file (0), or the null byte's line; never 1
    assert "null bytes" in str(info.value) and not str(info.value).startswith("line 1:")


def test_text_python_cannot_encode_is_about_the_file_not_line_1() -> None:
    # A lone surrogate (what undecodable bytes become with errors="surrogateescape") on line 2.
    with pytest.raises(TraceUnsupported) as info:
        parse("x = 1\ny = '\udcff'\n")
    assert info.value.line in (0, 2) and "cannot be read as Python" in str(info.value)
    assert not str(info.value).startswith("line 1:")


# --- the top-level statements kept around the kernel -----------------------------------------


def test_only_constants_are_kept_not_calls_or_lambdas_that_would_run() -> None:
    src = (
        "import numpy as np\n"  # 1 kept
        "from numba import cuda\n"  # 2 kept
        "SCALE = np.float32(0.5)\n"  # 3 kept: a numeric type's call
        "DATA = np.loadtxt('data.txt')\n"  # 4 dropped: reads a file
        "LOG = lambda m, f=open('log.txt', 'w'): f.write(m)\n"  # 5 dropped: opens log.txt
        "N = (M := int(input()))\n"  # 6 dropped: waits for the keyboard
        "@cuda.jit\n"  # 7
        "def k(A):\n"  # 8
        "    A[0] = SCALE\n"  # 9
    )
    rw = rewrite_kernel(src)
    assert rw.dropped_lines == [4, 5, 6]
    assert "np.float32(0.5)" in rw.source
    for gone in ("loadtxt", "open(", "input("):
        assert gone not in rw.source
