"""Reading the student's file at two edges, worked by hand: the line named when one line is too
deeply nested for Python to read, and the size past which only the kernels' headers are read
(64,000 characters: a file of exactly that size is read whole, one character more is not)."""

from __future__ import annotations

import pytest

from simtviz.core.trace.infer import infer_specs
from simtviz.core.trace.source import TraceUnsupported, find_kernels, parse

KERNEL = """from numba import cuda


@cuda.jit
def k(A, n):
    i = cuda.grid(1)
    if i < n:
        A[i] = 1.0
"""  # 8 lines; the def is line 5


def test_the_line_too_deeply_nested_to_read_is_named_by_its_number() -> None:
    # line 1 the import, line 2 "X = 1", line 3 the 20,000-term sum (the longest), line 4 "Y = 2"
    source = "from numba import cuda\nX = 1\nZ = " + "+".join(["1"] * 20_000) + "\nY = 2\n"
    with pytest.raises(TraceUnsupported) as refused:
        parse(source)
    assert refused.value.line == 3
    assert str(refused.value).startswith("line 3: this line is too deeply nested for Python to read")


def _file_of(size: int) -> str:
    # The kernel, then a line still being typed ("def unfinished(" never closed, line 9), then
    # one comment line of '#' that brings the file to exactly ``size`` characters.
    head = KERNEL + "def unfinished(\n"
    pad = size - len(head) - 1  # the comment's '#'s, then its newline
    source = head + "#" * pad + "\n"
    assert len(source) == size
    return source


def test_a_file_of_exactly_64000_characters_is_read_whole() -> None:
    # Read whole, the unfinished line makes the file unreadable: said, with nothing inferred.
    source = _file_of(64_000)
    with pytest.raises(TraceUnsupported, match="syntax error"):
        find_kernels(source)
    assert infer_specs(source) == {}


def test_a_file_of_64001_characters_is_read_by_its_kernel_headers_only() -> None:
    # Past the limit only "@cuda.jit / def k(A, n):" is read: the kernel is found despite the
    # unfinished line, and its arguments are read from its own lines: A, a 1-D array the kernel
    # stores into, is float32 of 1,000 zeros; n, compared with the index, the size 1,000.
    source = _file_of(64_001)
    assert [(k.name, k.params) for k in find_kernels(source)] == [("k", ("A", "n"))]
    assert infer_specs(source) == {"A": "float32[1000]:zeros", "n": "int32:1000"}
