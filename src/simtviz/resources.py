"""Finding the files in ``resources/``: icon, desktop entry, presets, stylesheets.

A wheel ships them as the package folder ``simtviz/resources`` (hatch force-include); an
editable install or a checkout finds them at the repository root, two levels above this file.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
_CANDIDATES = (_HERE / "resources", _HERE.parent.parent / "resources")


class ResourceNotFound(FileNotFoundError):
    """A resource file is missing from both the installed package and the checkout."""


def resource_dir() -> Path:
    """The folder that holds the resources (the first candidate that has presets.json)."""
    for candidate in _CANDIDATES:
        if (candidate / "presets.json").is_file():
            return candidate
    raise ResourceNotFound("simtviz resources not found in " + " or ".join(map(str, _CANDIDATES)))


def resource_path(name: str) -> Path:
    """Path of resource ``name`` (e.g. ``"simtviz.svg"``); raises ResourceNotFound if absent."""
    for candidate in _CANDIDATES:
        path = candidate / name
        if path.is_file():
            return path
    raise ResourceNotFound(f"resource {name!r} not found in " + " or ".join(map(str, _CANDIDATES)))


def read_text(name: str) -> str:
    return resource_path(name).read_text(encoding="utf-8")


@cache
def presets() -> list[dict[str, Any]]:
    """The launch presets: name, grid [x, y, z], block [x, y, z], note."""
    return list(json.loads(read_text("presets.json"))["presets"])
