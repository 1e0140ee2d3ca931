"""Which top-level statements stay around the traced kernel (core/trace/source.py
``kept_statement``): imports, functions, docstrings and constants stay; a constant whose value
calls anything but a numeric type, or holds a lambda or a walrus, is dropped. The answer is a
bool (True or False, never None), as its signature says."""

from __future__ import annotations

import ast

import pytest

from simtviz.core.trace.source import kept_statement


def statement(text: str) -> ast.stmt:
    (node,) = ast.parse(text).body
    return node


@pytest.mark.parametrize(
    "text",
    [
        "import numpy as np",
        "from numba import cuda",
        "def helper(x):\n    return x",
        '"""The module\'s docstring."""',
        "N = 32",
        "TILE: int = 16",
        "HALF = np.float32(0.5)",  # a call, but of a numeric type
        "M = numba.int32(3) * int(2.0)",  # every call a numeric type's
    ],
)
def test_imports_functions_docstrings_and_constants_stay(text: str) -> None:
    assert kept_statement(statement(text)) is True


@pytest.mark.parametrize(
    "text",
    [
        "DATA = np.loadtxt('data.txt')",  # loadtxt is no numeric type: the walk stops at the call
        "N = int(input())",  # int is, but the call inside it (input) is not
        "SCALE = lambda x: 2 * x",  # no call at all, but a lambda
        "N = (M := 3)",  # a walrus
        "print('hello')",  # an expression that is no docstring
        "X: int",  # annotated without a value
    ],
)
def test_top_level_work_is_dropped_and_said_false(text: str) -> None:
    assert kept_statement(statement(text)) is False
