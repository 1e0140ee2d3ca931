"""Small builders of AST nodes for the trace rewrite, each placed at the student's line so
that numba and tracebacks quote it (core/trace/rewrite.py)."""

from __future__ import annotations

import ast
from typing import TypeVar

_Node = TypeVar("_Node", bound=ast.AST)


def array_name(node: ast.expr) -> str:
    """The parameter name of an expression ``_is_array`` accepted."""
    assert isinstance(node, ast.Name)
    return node.id


def at(node: _Node, like: ast.AST) -> _Node:
    """``node`` and everything under it placed at ``like``'s location (the student's line)."""
    for sub in ast.walk(node):
        for attr in like._attributes:  # lineno, col_offset, end_lineno, end_col_offset
            if hasattr(like, attr):
                setattr(sub, attr, getattr(like, attr))
    return node


def name(id_: str, like: ast.AST, ctx: ast.expr_context | None = None) -> ast.Name:
    return at(ast.Name(id=id_, ctx=ctx or ast.Load()), like)


def call(func: str, args: list[ast.expr], like: ast.AST) -> ast.Call:
    return at(ast.Call(func=ast.Name(id=func, ctx=ast.Load()), args=args, keywords=[]), like)


def const(value: int, like: ast.AST) -> ast.Constant:
    return at(ast.Constant(value=value), like)


def indices(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.Tuple):
        return list(node.elts)
    return [node]
