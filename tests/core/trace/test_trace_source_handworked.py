"""Finding the student's kernel in a module and numba's errors on the student's lines."""

from __future__ import annotations

import pytest

from simtviz.core.trace.source import (
    KernelInfo,
    TraceUnsupported,
    choose_kernel,
    describe_numba_error,
    find_kernels,
    numba_error_line,
    parse,
)

MODULE = """\
import numba
from numba import cuda
from numba.cuda import jit


@cuda.jit(device=True)
def helper(x):
    return x + 1


@cuda.jit
def first(A, n):
    A[0] = helper(n)


def plain(A):
    pass


@numba.cuda.jit("void(float32[:])")
def second(B):
    B[0] = 1


@jit(device=False)
def third(C, /, k):
    C[0] = k
"""


def test_kernels_are_the_jitted_functions_that_are_not_device_functions() -> None:
    # the def lines: 12 first(A, n); 21 second(B) (a signature call); 26 third(C, /, k)
    assert find_kernels(MODULE) == [
        KernelInfo("first", ("A", "n"), 12),
        KernelInfo("second", ("B",), 21),
        KernelInfo("third", ("C", "k"), 26),
    ]


def test_choosing_a_kernel_by_name_or_the_only_one() -> None:
    tree = parse(MODULE)
    assert choose_kernel(tree, "second").name == "second"
    with pytest.raises(
        TraceUnsupported, match=r"the file has 3 kernels \(first, second, third\): choose one"
    ):
        choose_kernel(tree, None)
    with pytest.raises(
        TraceUnsupported, match=r"no @cuda.jit kernel named 'helper' \(found first, second, third\)"
    ):
        choose_kernel(tree, "helper")  # a device function is not a kernel
    with pytest.raises(TraceUnsupported, match=r"no @cuda\.jit kernel named 'plain'"):
        choose_kernel(tree, "plain")
    only = parse("from numba import cuda\n@cuda.jit\ndef k(A):\n    A[0] = 1\n")
    assert choose_kernel(only, None).name == "k"
    with pytest.raises(TraceUnsupported, match=r"no @cuda\.jit kernel in this file") as info:
        choose_kernel(parse("x = 1\n"), None)
    assert info.value.line == 0 and str(info.value) == "no @cuda.jit kernel in this file"


def test_a_syntax_error_is_refused_with_its_line() -> None:
    with pytest.raises(TraceUnsupported) as info:
        parse("x = 1\ny = (\n")
    assert info.value.line == 2 and str(info.value).startswith("line 2: syntax error")


def test_numbas_text_is_read_back_to_the_students_line() -> None:
    text = (
        'File "/usr/lib/python3/numba/core/typeinfer.py", line 1074\n'
        'File "/tmp/simtviz-trace-x/add.py", line 7:\n'
        'File "/tmp/simtviz-trace-x/add.py", line 9:\n'
    )
    assert numba_error_line(text, "add.py") == 7  # the first line of the student's file
    assert numba_error_line("at /tmp/x/add.py (12)\n", "add.py") == 12
    assert numba_error_line('File "/tmp/x/madd.py", line 3', "add.py") is None  # another file
    assert numba_error_line('File "C:\\t\\add.py", line 4', "add.py") == 4


def test_a_student_file_named_like_the_end_of_numbas_files_is_not_confused_with_them() -> None:
    # A student's infer.py: numba's typeinfer.py (line 1074) is not the student's file.
    text = 'File "/usr/lib/numba/core/typeinfer.py", line 1074\nFile "/tmp/t/infer.py", line 7:\n'
    assert numba_error_line(text, "infer.py") == 7
    words = describe_numba_error("TypingError: bad\n" + text + "at /tmp/t/infer.py (7)\n", "infer.py")
    assert words.startswith("line 7: TypingError: bad")
    assert 'File "/usr/lib/numba/core/typeinfer.py", line 1074' in words  # numba's own file, as it is
    assert 'File "your kernel", line 7:' in words and "at your kernel (7)" in words
    assert numba_error_line("no line here", "add.py") is None


def test_refusals_about_the_whole_file_carry_no_line() -> None:
    tree = parse(MODULE)
    with pytest.raises(TraceUnsupported) as info:
        choose_kernel(tree, None)
    assert info.value.line == 0 and str(info.value) == (
        "the file has 3 kernels (first, second, third): choose one by name"
    )
    with pytest.raises(TraceUnsupported) as info:
        choose_kernel(tree, "nope")
    assert (
        info.value.line == 0
        and str(info.value) == "no @cuda.jit kernel named 'nope' (found first, second, third)"
    )


def test_a_refusal_crosses_from_the_child_with_its_line() -> None:
    import pickle

    back = pickle.loads(pickle.dumps(TraceUnsupported(6, "slices are not traced")))
    assert (back.line, back.message, str(back)) == (
        6,
        "slices are not traced",
        "line 6: slices are not traced",
    )


def test_other_decorators_do_not_make_a_kernel() -> None:
    src = "from numba import cuda\n\n@my_decorator\ndef g(A):\n    pass\n\n@cuda.jit\ndef k(A):\n    A[0] = 1"
    assert [k.name for k in find_kernels(src)] == ["k"]


def test_a_message_of_only_failed_in_lines_keeps_the_first() -> None:
    text = "Failed in cuda mode pipeline (step: nopython frontend)"
    assert describe_numba_error(text, "k.py") == text
