"""Colour-field names as people type them: any case, ``_`` or ``-`` for spaces, short aliases.

The menu's names (``schema.COLOR_FIELDS``) stay the canonical ones; ``--color sm`` or
``--color blockidx.x`` resolve to them, and so does any unambiguous prefix (``--color start``).
"""

from __future__ import annotations

from simtviz.core.errors import SimtvizError
from simtviz.core.schema import COLOR_FIELDS

# Short names a teacher types in front of a class; each maps to a name in COLOR_FIELDS.
ALIASES: dict[str, str] = {
    "sm": "SM",
    "smid": "SM",
    "warp": "warp",
    "lane": "lane",
    "laneid": "lane",
    "block": "block linear id",
    "thread": "thread id in block",
    "global": "global linear index",
    "grid1": "global linear index",
    "start": "start order",
    "time": "start order",
    "bx": "blockIdx.x",
    "by": "blockIdx.y",
    "bz": "blockIdx.z",
    "tx": "threadIdx.x",
    "ty": "threadIdx.y",
    "tz": "threadIdx.z",
}


class UnknownColorField(SimtvizError, ValueError):
    """A colour name that matches no field (or several): the message lists the choices."""


def _key(text: str) -> str:
    return " ".join(text.strip().lower().replace("_", " ").replace("-", " ").split())


def resolve_color_field(text: str) -> str:
    """The COLOR_FIELDS name ``text`` means; UnknownColorField if none or several."""
    by_key = {_key(name): name for name in COLOR_FIELDS}
    key = _key(text)
    if key in by_key:
        return by_key[key]
    alias = ALIASES.get(key.replace(" ", ""))
    if alias in COLOR_FIELDS:
        return alias
    matches = sorted({name for k, name in by_key.items() if key and k.startswith(key)})
    if len(matches) == 1:
        return matches[0]
    choices = ", ".join(COLOR_FIELDS)
    if matches:
        either = " or ".join(matches)
        raise UnknownColorField(f"colour field {text!r} could mean {either}; choose one of: {choices}")
    short = "sm, warp, lane, block, thread, global, start"
    raise UnknownColorField(f"unknown colour field {text!r}; choose one of: {choices} (or {short})")
