"""docs/ARCHITECTURE.md stays true: its lists of experiments, tabs and commands are the
registries', in their order, and every file or folder it names exists.

A newcomer adds an experiment by following that page; a page that lists a tab that is gone,
or misses a command that exists, sends them to the wrong place.
"""

from __future__ import annotations

import re

import pytest

from repo_paths import ROOT as REPO_ROOT
from simtviz.backends import experiment
from simtviz.cli import COMMANDS, command_module

DOC = REPO_ROOT / "docs" / "ARCHITECTURE.md"
PACKAGE = REPO_ROOT / "src" / "simtviz"


def _table(heading: str) -> list[list[str]]:
    """The rows (cells, stripped) of the first table under ``### heading``, header row left out."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split(f"\n### {heading}\n", 1)[1].split("\n#", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[2:]]


def _code(cell: str) -> str:
    match = re.fullmatch(r"`([^`]+)`", cell)
    assert match, f"expected one `name` in {cell!r}"
    return match.group(1)


def _module_of(path: str) -> str:
    """``backends/lesson/experiment.py`` → ``simtviz.backends.lesson.experiment``."""
    return "simtviz." + path.removesuffix("/").removesuffix(".py").replace("/", ".")


def test_the_experiments_are_the_registry() -> None:
    rows = _table("Experiments")
    assert [_code(row[0]) for row in rows] == list(experiment.BUILTIN)
    for row in rows:
        assert _module_of(_code(row[1])) == experiment.BUILTIN[_code(row[0])], row


def test_each_experiment_takes_and_gives_the_types_the_page_names() -> None:
    """The "request → result" column is what each built-in's ``check`` takes and ``run_sim``
    returns, as annotated (the names mypy checks ``backend.run(VECADD, …)`` against)."""
    for row in _table("Experiments"):
        request, result = (_code(cell.strip()) for cell in row[2].split("→"))
        chosen = type(experiment.get(_code(row[0])))
        assert chosen.check.__annotations__["request"] == request, row
        assert chosen.run_sim.__annotations__["return"] == result, row


def test_the_tabs_are_the_tab_table() -> None:
    pytest.importorskip("PySide6")
    from simtviz.qt.tabs import TABS

    rows = _table("Tabs")
    assert [(row[0], _code(row[1])) for row in rows] == [(t.title, t.attribute) for t in TABS]
    for row, tab in zip(rows, TABS, strict=True):
        folder = _module_of(_code(row[2]))
        assert tab.factory.module.startswith(folder + "."), (row, tab.factory.module)
        assert tab.run is not None  # every tab's Ctrl+R is listed


def test_the_commands_are_the_command_table() -> None:
    rows = _table("Commands")
    assert [_code(row[0]) for row in rows] == list(COMMANDS)
    for row in rows:
        # The page's words are the command's --help line, or the start of it.
        assert command_module(_code(row[0])).HELP.startswith(row[1].replace("`", "")), row


def test_every_path_the_page_names_exists() -> None:
    """`core/trace/`, `qt/tabs/index_map/`, `tests/test_extension_points.py`: package paths are
    under src/simtviz, tests/ and docs/ under the repository; placeholders (`<name>`) and globs
    (`steps_*.py`) are left out."""
    text = DOC.read_text(encoding="utf-8")
    top = ("cli/", "qt/", "backends/", "kernels/", "emu/", "core/", "jobs.py", "tests/", "docs/")
    named = {p for p in re.findall(r"`([\w./*<>-]+)`", text) if p.startswith(top)}
    checked = [p for p in named if "<" not in p and "*" not in p]
    assert len(checked) > 40  # the page names many; an empty list would prove nothing
    missing = [
        p
        for p in checked
        if not (REPO_ROOT / p if p.startswith(("tests/", "docs/")) else PACKAGE / p).exists()
    ]
    assert missing == []
