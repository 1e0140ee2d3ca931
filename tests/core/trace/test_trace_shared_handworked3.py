"""How far the tracer follows module constants for a shared array (core/trace/shared.py): a
size reached in at most 20 steps from the name written in the call is known, one step more is
refused in words; an element type reached in at most 5 steps is known, a sixth is refused.

A step is one name looked up, one unary sign or one side of a binary operator: the constant
that ends the chain sits that many steps below the shape's own node (step 0). Worked by hand
below for each kind of step; nothing here runs a kernel."""

from __future__ import annotations

import ast

import pytest

from simtviz.core.trace.shared import find_shared_arrays
from simtviz.core.trace.source import TraceUnsupported

SHAPE_REFUSED = "must be known before the kernel runs"
DTYPE_REFUSED = "is not one the tracer knows"


def shared(
    constants: list[str], shape: str = "8", dtype: str = "numba.float64"
) -> tuple[tuple[int, ...], str]:
    """The one shared array of a kernel under ``constants`` (module lines): (shape, dtype)."""
    lines = ["import numba", "from numba import cuda", *constants, "", "@cuda.jit", "def k(a):"]
    lines += [f"    s = cuda.shared.array({shape}, {dtype})", "    s[0] = a[0]"]
    tree = ast.parse("\n".join(lines) + "\n")
    kernel = tree.body[-1]
    assert isinstance(kernel, ast.FunctionDef)
    found, _ = find_shared_arrays(tree, kernel)
    assert len(found) == 1
    return found[0].shape, found[0].dtype


def refused(constants: list[str], shape: str = "8", dtype: str = "numba.float64") -> TraceUnsupported:
    with pytest.raises(TraceUnsupported) as info:
        shared(constants, shape, dtype)
    return info.value


def name_chain(last: int) -> list[str]:
    """N0 = 8, N1 = N0, ..., N<last> = N<last - 1>."""
    return ["N0 = 8"] + [f"N{k} = N{k - 1}" for k in range(1, last + 1)]


def test_a_chain_of_19_renamings_reaches_its_number_in_20_steps_and_is_known() -> None:
    # N19 (step 0) → N18 (1) → ... → N0 (19) → the constant 8 at step 20: the last step allowed
    assert shared(name_chain(19), shape="N19") == ((8,), "float64")


def test_one_renaming_more_puts_the_number_at_step_21_and_is_refused_with_its_line() -> None:
    # N20 → ... → N0 at step 20 → 8 at step 21: past the limit, refused on the call's line
    # (2 import lines + 21 constants + blank + decorator + def = line 26 is the def, 27 the call)
    error = refused(name_chain(20), shape="N20")
    assert error.line == 27
    assert SHAPE_REFUSED in str(error)
    assert "N20" in str(error)


def test_nineteen_unary_plus_signs_are_followed_to_their_number() -> None:
    # M (step 0) → the outer + (1) → ... → the 19th + (19) → 32 at step 20
    assert shared(["M = " + "+" * 19 + "32"], shape="M") == ((32,), "float64")


def test_a_sum_of_twenty_ones_is_known_whichever_way_it_nests() -> None:
    # 1 + 1 + ... + 1 (20 ones) nests to the left: M (0) → 19 additions (1 .. 19) → the
    # leftmost 1 at step 20; 1 + (1 + (... + 1)) nests to the right the same way. Both are 20.
    left = "M = " + " + ".join(["1"] * 20)
    right = "M = " + "1 + (" * 19 + "1" + ")" * 19
    assert shared([left], shape="M") == ((20,), "float64")
    assert shared([right], shape="M") == ((20,), "float64")


def test_an_element_type_renamed_four_times_is_known_five_times_is_refused() -> None:
    # T4 (step 0) → T3 (1) → ... → T0 (4) → numba.float64 at step 5: allowed (itemsize 8)
    types = ["T0 = numba.float64"] + [f"T{k} = T{k - 1}" for k in range(1, 6)]
    assert shared(types[:5], dtype="T4") == ((8,), "float64")
    # T5 puts numba.float64 at step 6: refused, naming what was written
    error = refused(types, dtype="T5")
    assert DTYPE_REFUSED in str(error)
    assert "T5" in str(error)
