"""--arg specs at their limits and back to text: element counts at 2^30, integers at their type's
ends, each init's values, and spec() round trips."""

from __future__ import annotations

import numpy as np
import pytest

from simtviz.core.trace.args import (
    ArgSpecError,
    ArraySpec,
    ScalarSpec,
    build_array,
    build_host_args,
    parse_args,
    parse_spec,
)


def test_at_most_2_to_the_30_elements() -> None:
    # 2^30 = 1,073,741,824 = 32,768 × 32,768: accepted (parsed only, nothing allocated)
    assert parse_spec("A", "float32[1073741824]").shape == (1073741824,)
    assert parse_spec("A", "float32[32768,32768]").ndim == 2
    with pytest.raises(ArgSpecError, match="1,073,741,825 elements is more than 1,073,741,824"):
        parse_spec("A", "float32[1073741825]")


@pytest.mark.parametrize(
    ("spec", "ok"),
    [
        ("int32:2147483647", True), ("int32:2147483648", False),
        ("int32:-2147483648", True), ("int32:-2147483649", False),
        ("int64:9223372036854775807", True), ("int64:9223372036854775808", False),
        ("int64:-9223372036854775808", True), ("int64:-9223372036854775809", False),
        ("int32[4]:2147483647", True), ("int32[4]:2147483648", False),
    ],
)  # fmt: skip
def test_integers_fit_their_type_exactly_to_its_ends(spec: str, ok: bool) -> None:
    if ok:
        parse_spec("X", spec)
    else:
        with pytest.raises(ArgSpecError):
            parse_spec("X", spec)


def test_specs_go_back_to_the_text_they_came_from() -> None:
    for text in (
        "float32[8]:2.5",
        "float64[4,5]:zeros",
        "int32[2,3,4]:arange",
        "int64[3]:7",
        "float32[10]:random",
    ):
        assert parse_spec("A", text).spec() == text
    assert parse_spec("A", "float64[4, 5]").spec() == "float64[4,5]:zeros"
    assert ScalarSpec("n", "int64", 1000).spec() == "int64:1000"
    assert ScalarSpec("a", "float32", -0.5).spec() == "float32:-0.5"
    assert ScalarSpec("a", "float64", 3.0).spec() == "float64:3.0"  # a float stays a float
    assert ArraySpec("M", "float32", (3, 5)).ndim == 2 and ArraySpec("M", "float32", (3, 5)).size == 15


def test_parse_args_maps_names_to_specs() -> None:
    assert parse_args({"A": "float32[4]", "n": "int64:4"}) == {
        "A": ArraySpec("A", "float32", (4,), "zeros"),
        "n": ScalarSpec("n", "int64", 4),
    }
    assert list(parse_args(["B=int32[2]:ones", "A=float32[1]"])) == ["B", "A"]


def test_each_init_gives_its_values() -> None:
    rng = np.random.default_rng(0)
    assert build_array(ArraySpec("A", "int32", (2, 3), "zeros"), rng).tolist() == [[0, 0, 0], [0, 0, 0]]
    assert build_array(ArraySpec("A", "float32", (3,), "ones"), rng).tolist() == [1.0, 1.0, 1.0]
    assert build_array(ArraySpec("A", "int64", (2, 3), "arange"), rng).tolist() == [[0, 1, 2], [3, 4, 5]]
    assert build_array(ArraySpec("A", "float32", (2,), "value", 2.5), rng).tolist() == [2.5, 2.5]
    # random integers: [0, 100); 10,000 draws reach both ends
    ints = build_array(ArraySpec("A", "int32", (10_000,), "random"), rng)
    assert (ints.dtype, int(ints.min()), int(ints.max())) == (np.int32, 0, 99)
    floats = build_array(ArraySpec("A", "float64", (1000,), "random"), rng)
    assert floats.min() >= 0.0 and floats.max() < 1.0
    (a, n) = build_host_args([ArraySpec("A", "float32", (4,), "random"), ScalarSpec("n", "int64", 4)])
    (b, _) = build_host_args([ArraySpec("A", "float32", (4,), "random"), ScalarSpec("n", "int64", 4)])
    assert a.tolist() == b.tolist() and n == 4 and type(n) is np.int64  # the same seed each run
