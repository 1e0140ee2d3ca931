""" "Read parameters from the code" (core/trace/infer.py): a value followed through a chain of
four assignments whose links the reader meets last-first, and the 64,000-character limit past
which only the kernel's own lines are read, exactly at the limit and one character over."""

from __future__ import annotations

import textwrap

from simtviz.core.trace.infer import infer_specs, kernel_text


def specs(body: str, params: str) -> dict[str, str]:
    src = f"from numba import cuda\n\n\n@cuda.jit\ndef k({params}):\n" + textwrap.indent(
        textwrap.dedent(body), "    "
    )
    return infer_specs(src)


# Each link one level deeper than the next: the reader walks the kernel level by level, so it
# meets d = c first and a = ... last, one link found per pass over the kernel.
NESTED = """\
i = cuda.grid(1)
if i < 4000:
    if i < 3000:
        if i < 2000:
            if i < 1000:
                a = {first}
            b = a
        c = b
    d = c
{use}
"""


def test_an_element_used_as_an_index_four_assignments_later_is_an_integer() -> None:
    # data[i] → a → b → c → d, and d is bins' index: data holds integers (int32, random); bins is
    # counted into (+= 1): int32 zeros. As float32, bins[d % 8] would not type in numba.
    body = NESTED.format(first="data[i]", use="bins[d % 8] += 1")
    assert specs(body, "data, bins") == {"data": "int32[1000]:random", "bins": "int32[1000]:zeros"}


def test_a_scalar_compared_with_a_thread_index_four_assignments_later_is_a_size() -> None:
    # i → a → b → c → d: d is an integer, and n is compared with it: a size, int32 as long as a
    # 1-D array (1000). A is written: float32 zeros.
    body = NESTED.format(first="i", use="if d < n:\n    A[d] = 1.0")
    assert specs(body, "A, n") == {"A": "float32[1000]:zeros", "n": "int32:1000"}


# --- the 64,000-character limit -----------------------------------------------------------------

HEAD = "from numba import cuda\ndef broken(:\n"  # a line being edited: not Python
KERNEL = "@cuda.jit\ndef scale(A, n):\n    i = cuda.grid(1)\n    if i < n:\n        A[i] = 2.0\n"


def file_of(chars: int) -> str:
    """HEAD, a comment line of '#'s, then KERNEL: ``chars`` characters in all."""
    pad = chars - len(HEAD) - len(KERNEL) - 1  # the comment's newline is the 1
    return HEAD + "#" * pad + "\n" + KERNEL


def test_a_file_of_64000_characters_is_read_whole() -> None:
    src = file_of(64_000)
    assert len(src) == 64_000
    assert kernel_text(src) == src
    assert infer_specs(src) == {}  # the whole file is parsed, and its broken line stops that


def test_a_file_of_64001_characters_is_read_from_its_kernel_s_lines_only() -> None:
    src = file_of(64_001)
    assert kernel_text(src) == KERNEL.rstrip("\n")  # the broken line is not read
    # A is written: float32 zeros; n is compared with the thread index i: a size, 1000.
    assert infer_specs(src) == {"A": "float32[1000]:zeros", "n": "int32:1000"}
