"""--arg SPECs for traced kernels: arrays, scalars, and errors in words."""

from __future__ import annotations

import numpy as np
import pytest

from simtviz.core.trace.args import (
    ArgSpecError,
    ArraySpec,
    ScalarSpec,
    build_host_args,
    match_parameters,
    parse_arg,
    parse_spec,
)


def test_arrays_and_scalars_parse_as_the_contract_writes_them() -> None:
    assert parse_spec("A", "float32[1000]:random") == ArraySpec("A", "float32", (1000,), "random")
    assert parse_spec("M", "float64[4,5]") == ArraySpec("M", "float64", (4, 5), "zeros")
    assert parse_spec("V", "int32[2, 3, 4]:arange").shape == (2, 3, 4)
    assert parse_spec("F", "float32[8]:2.5") == ArraySpec("F", "float32", (8,), "value", 2.5)
    assert parse_arg("n=int64:1000") == ScalarSpec("n", "int64", 1000)
    assert parse_arg("a=float32:-0.5") == ScalarSpec("a", "float32", -0.5)


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("float16[10]", "unknown type 'float16'"),
        ("float32[10,10,10,10]", "1 to 3 sizes"),
        ("float32[]", "1 to 3 sizes"),
        ("float32[ten]", "'ten' is not a whole number"),
        ("float32[10]:gaussian", "unknown initial values 'gaussian'"),
        ("int32:1.5", "'1.5' is not a whole number"),
        ("int32:3000000000", "does not fit in int32"),
        ("int64", "a scalar needs a value"),
        ("hello", "is not an argument"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec: str, words: str) -> None:
    with pytest.raises(ArgSpecError, match=words):
        parse_spec("X", spec)
    assert issubclass(ArgSpecError, ValueError)


def test_every_parameter_needs_exactly_one_spec() -> None:
    specs = {"A": parse_spec("A", "float32[4]"), "n": parse_spec("n", "int64:4")}
    with pytest.raises(ArgSpecError, match="no --arg for parameter B"):
        match_parameters(["A", "B", "n"], specs)
    with pytest.raises(ArgSpecError, match="no parameter n"):
        match_parameters(["A"], specs)
    assert [s.name for s in match_parameters(["n", "A"], specs)] == ["n", "A"]


def test_host_values_follow_the_inits_and_random_is_repeatable() -> None:
    text = {"A": "int32[2,3]:arange", "B": "float32[5]:random", "C": "float64[2]:7", "n": "int64:9"}
    specs = [parse_spec(k, v) for k, v in (text | {"D": "int32[6]:random"}).items()]
    a, b, c, n, d = build_host_args(specs, seed=1)
    assert a.tolist() == [[0, 1, 2], [3, 4, 5]] and a.dtype == np.int32
    assert b.dtype == np.float32 and ((b >= 0) & (b < 1)).all()
    assert c.tolist() == [7.0, 7.0]
    assert n == 9 and n.dtype == np.int64
    assert ((d >= 0) & (d < 100)).all()
    again = build_host_args(specs, seed=1)
    assert np.array_equal(again[1], b) and np.array_equal(again[4], d)
