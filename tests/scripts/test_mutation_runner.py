"""The mutation runner's bookkeeping: which survivors docs/TESTING.md explains, and which
mutants of an edited module keep the identity they had before the edit (what --carry-over
relies on). A mistake here would let `make mutation` pass with unexplained survivors, or carry a
kill over to a line that changed."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import mutation


def test_explanations_are_read_with_or_without_backticks_around_the_place():
    text = (
        "- core/limits.py:12 `< → <=`: the bound is never reached\n"
        "- `emu/memory.py:3` `1 → 2`: any step works\n"
        "  - core/x.py:1 `a → b`: indented, part of prose, not an explanation\n"
        "- core/y.py:7 `True → False`:\n"  # a place with no reason does not explain anything
    )
    assert mutation.explained(text) == {
        ("core/limits.py", 12, "< → <="),
        ("emu/memory.py", 3, "1 → 2"),
    }


def test_a_mutant_keeps_its_key_when_lines_are_inserted_above_it():
    before = "def f(a):\n    return a + 1\n"
    after = "import os\n\n\ndef f(a):\n    return a + 1\n"
    keys_before = [key for _, key in mutation._keyed(before)]
    keys_after = [key for _, key in mutation._keyed(after)]
    assert keys_before == keys_after
    # ...and loses it when its own line changes: a kill on `a + 1` says nothing about `a + 2`.
    changed = [key for _, key in mutation._keyed("def f(a):\n    return a + 2\n")]
    assert not set(changed) & set(keys_before)


def test_two_identical_lines_are_told_apart_by_their_order():
    source = "def f(a):\n    a = a + 1\n    a = a + 1\n    return a\n"
    keys = [key for _, key in mutation._keyed(source)]
    plus = [key for key in keys if key[:2] == ("a = a + 1", "+ → -")]
    assert [key[2] for key in plus] == [0, 1]
