"""How far the tracer follows a shared array's shape and element type through the module's
constants (core/trace/shared.py), each limit exactly at the limit and one step over.

A shape is followed through 20 steps: each name looked up, each sign and each operator is one
step, and the number at the end must be at most 20 steps from the shape written in the kernel.
An element type is followed through 5 steps: names only. Past that the kernel is refused in
words, as a circular definition is (T = U; U = T)."""

from __future__ import annotations

import pytest

from simtviz.core.trace.rewrite import rewrite_kernel
from simtviz.core.trace.source import TraceUnsupported


def shared_kernel(top: str, shape: str, dtype: str = "float32") -> str:
    return (
        "import numpy as np\nfrom numba import cuda, float32\n"
        + top
        + f"\n@cuda.jit\ndef k(A):\n    s = cuda.shared.array({shape}, {dtype})\n    A[0] = 1\n"
    )


def name_chain(last: int) -> str:
    """T0 = 7, T1 = T0, ..., T<last> = T<last - 1>."""
    return "T0 = 7\n" + "".join(f"T{n} = T{n - 1}\n" for n in range(1, last + 1))


REFUSED = "must be known before the kernel runs"

# Steps, counted from the shape T written in the kernel (step 0):
# - T19 → T18 → ... → T0 is steps 0..19, T0's number 7 is step 20: followed. T20: 7 at step 21.
# - T = + + ... + 7 with 19 signs: T is step 0, the signs 1..19, the 7 step 20. 20 signs: 21.
# - T = 1 + 1 + ... + 1, 20 ones: Python nests it to the left, ((1 + 1) + 1) + ...: T step 0, the
#   19 operators steps 1..19, the first two ones step 20; = 20. With 21 ones the first is step 21.
# - T = 1 + (1 + (... + 1)), 20 ones, nested to the right: the same steps on the other side.
PLUSES = "+ "


def _shape(top: str) -> str:
    return top.splitlines()[-1].split(" = ")[0]  # the last constant defined: T19, T20 or T


@pytest.mark.parametrize(
    ("top", "expected"),
    [
        (name_chain(19), (7,)),
        ("T = " + PLUSES * 19 + "7\n", (7,)),
        ("T = " + " + ".join(["1"] * 20) + "\n", (20,)),
        ("T = " + "1 + (" * 19 + "1" + ")" * 19 + "\n", (20,)),
    ],
    ids=["names", "signs", "sum-left", "sum-right"],
)
def test_a_shape_20_steps_from_its_number_is_followed(top: str, expected: tuple[int, ...]) -> None:
    (s,) = rewrite_kernel(shared_kernel(top, _shape(top))).shared
    assert s.shape == expected


@pytest.mark.parametrize(
    "top",
    [
        name_chain(20),
        "T = " + PLUSES * 20 + "7\n",
        "T = " + " + ".join(["1"] * 21) + "\n",
        "T = " + "1 + (" * 20 + "1" + ")" * 20 + "\n",
    ],
    ids=["names", "signs", "sum-left", "sum-right"],
)
def test_a_shape_21_steps_from_its_number_is_refused_in_words(top: str) -> None:
    with pytest.raises(TraceUnsupported, match=REFUSED) as info:
        rewrite_kernel(shared_kernel(top, _shape(top)))
    assert "the shape of the shared array s" in str(info.value)


def dtype_chain(last: int) -> str:
    """D0 = np.float64, D1 = D0, ..., D<last> = D<last - 1>."""
    return "D0 = np.float64\n" + "".join(f"D{n} = D{n - 1}\n" for n in range(1, last + 1))


def test_an_element_type_5_steps_from_its_spelling_is_followed() -> None:
    # D4 → D3 → D2 → D1 → D0 is steps 0..4, np.float64 step 5: followed.
    (s,) = rewrite_kernel(shared_kernel(dtype_chain(4), "4", "D4")).shared
    assert (s.shape, s.dtype) == ((4,), "float64")


def test_an_element_type_6_steps_from_its_spelling_is_refused_in_words() -> None:
    # D5 → ... → D0 is steps 0..5, np.float64 step 6: refused with the name written in the kernel.
    with pytest.raises(TraceUnsupported, match="the element type of the shared array s, D5, is not one"):
        rewrite_kernel(shared_kernel(dtype_chain(5), "4", "D5"))
