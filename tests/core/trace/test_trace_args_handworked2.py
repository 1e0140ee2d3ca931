"""--arg NAME=SPEC: a NAME must be a Python parameter name, all of it; word characters are not
enough (``1A`` starts with a digit, ``A`` then a newline is not one name)."""

from __future__ import annotations

import pytest

from simtviz.core.trace.args import ArgSpecError, parse_arg, parse_spec


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("1A", "'1A' is not a parameter name"),  # word characters only, but a digit first
        ("A\n", r"'A\\n' is not a parameter name"),  # "A" then a newline: not one identifier
        ("a-b", "'a-b' is not a parameter name"),  # neither
    ],
)
def test_a_name_that_is_not_a_python_identifier_is_refused(name: str, words: str) -> None:
    with pytest.raises(ArgSpecError, match=words):
        parse_spec(name, "float32[4]")


def test_the_cli_text_with_a_digit_first_is_refused_and_a_unicode_name_taken() -> None:
    with pytest.raises(ArgSpecError, match="'2D' is not a parameter name"):
        parse_arg("2D=float32[4,4]")
    assert parse_arg("données=float32[4]").name == "données"  # any Python name
