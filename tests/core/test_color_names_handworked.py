"""Colour-field names as typed on the CLI: exact names, aliases, unique prefixes, and the words
when a name is unknown or ambiguous. Expected names are the menu's, written out by hand."""

from __future__ import annotations

import pytest

from simtviz.core.color_names import UnknownColorField, resolve_color_field

# The menu, in its order (schema.COLOR_FIELDS), written out by hand.
CHOICES = (
    "global linear index, blockIdx.x, blockIdx.y, blockIdx.z, block linear id, threadIdx.x, "
    "threadIdx.y, threadIdx.z, thread id in block, warp, global warp id, lane, SM, start order"
)
SHORT = "sm, warp, lane, block, thread, global, start"


@pytest.mark.parametrize(
    "typed, field",
    [
        ("Block_Linear-ID", "block linear id"),  # exact name, any case, _ and - for spaces
        ("smid", "SM"),  # alias
        ("Lane ID", "lane"),  # alias "laneid" once spaces are dropped
        ("tz", "threadIdx.z"),
        # unique prefixes: no alias, and only one menu name starts so
        ("st", "start order"),
        ("global w", "global warp id"),
        ("thread i", "thread id in block"),  # "threadidx.x" has no space after "thread"
        ("block_lin", "block linear id"),
    ],
)
def test_resolves_to_the_menu_name(typed: str, field: str) -> None:
    assert resolve_color_field(typed) == field


def test_ambiguous_prefix_names_the_candidates() -> None:
    # "g" starts "global linear index" and "global warp id" (sorted), and no alias is "g"
    with pytest.raises(UnknownColorField) as info:
        resolve_color_field("g")
    assert str(info.value) == (
        f"colour field 'g' could mean global linear index or global warp id; choose one of: {CHOICES}"
    )


@pytest.mark.parametrize("typed", ["", "   ", "rainbow", "starts"])
def test_unknown_names_list_the_choices(typed: str) -> None:
    # blank text is a prefix of nothing, not of everything; "starts" is longer than "start order"'s key
    with pytest.raises(UnknownColorField) as info:
        resolve_color_field(typed)
    assert str(info.value) == f"unknown colour field {typed!r}; choose one of: {CHOICES} (or {SHORT})"
