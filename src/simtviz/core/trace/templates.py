"""The 'Your kernel' templates: lesson kernels shipped as plain .py files in resources/kernels/.

``resources/kernels/index.json`` lists each with its launch, its arguments (CLI SPEC syntax) and an
optional check expression over the final arrays. Reading a template never runs it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache

from simtviz.resources import read_text


@dataclass(frozen=True)
class KernelTemplate:
    name: str
    title: str
    description: str
    file: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: dict[str, str]
    check: str | None

    @property
    def source(self) -> str:
        return read_text(f"kernels/{self.file}")


@cache
def templates() -> tuple[KernelTemplate, ...]:
    entries = json.loads(read_text("kernels/index.json"))["templates"]
    return tuple(
        KernelTemplate(
            name=e["name"],
            title=e["title"],
            description=e["description"],
            file=e["file"],
            grid=tuple(e["grid"]),
            block=tuple(e["block"]),
            args=dict(e["args"]),
            check=e.get("check"),
        )
        for e in entries
    )


def template(name: str) -> KernelTemplate:
    for t in templates():
        if t.name == name:
            return t
    raise KeyError(f"no kernel template {name!r} (have {', '.join(t.name for t in templates())})")
