"""Which calls the tracer takes for a shared array (core/trace/shared.py ``is_shared_array_call``):
``cuda.shared.array(...)`` under any alias of cuda, or ``shared.array(...)``; the answer is a bool
(True or False, never None), as its signature says."""

from __future__ import annotations

import ast

import pytest

from simtviz.core.trace.shared import is_shared_array_call


def expr(text: str) -> ast.expr:
    node = ast.parse(text, mode="eval").body
    assert isinstance(node, ast.expr)
    return node


@pytest.mark.parametrize(
    "text",
    ["cuda.shared.array(32, float32)", "nb_cuda.shared.array((4, 8), np.int32)", "shared.array(16, float64)"],
)
def test_a_shared_array_call_is_one(text: str) -> None:
    assert is_shared_array_call(expr(text)) is True


@pytest.mark.parametrize(
    "text",
    [
        "cuda.shared.array",  # the attribute, not called: no Call node
        "tile[3]",  # a subscript, not a call
        "array(32, float32)",  # a plain name called: no ".array" attribute
        "cuda.shared.zeros(32, float32)",  # called, but not ".array"
    ],
)
def test_what_is_not_a_call_of_some_array_is_false(text: str) -> None:
    # the first two stop at "not a Call", the last two at "not .array": False, not None
    assert is_shared_array_call(expr(text)) is False


@pytest.mark.parametrize("text", ["cuda.local.array(32, float32)", "np.array(32)", "shared().array(8, i4)"])
def test_an_array_call_of_another_owner_is_false(text: str) -> None:
    # ".array" called, but its owner is cuda.local, np or a call: neither "<x>.shared" nor "shared"
    assert is_shared_array_call(expr(text)) is False
