"""docs/CONTRACT.md, the repository's own statement of the outside contract, names what the code has.

A command, backend, exit status or objectName the code offers but the page does not describe is a
promise nobody wrote down; these tests fail until the page says it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from simtviz import cli
from simtviz.core import errors

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "CONTRACT.md").read_text(encoding="utf-8")
SHARED = ROOT.parent / "shared" / "CONTRACT.md"


@pytest.mark.parametrize("command", cli.COMMANDS)
def test_every_command_has_a_row(command: str) -> None:
    assert re.search(rf"^\| `{command}\b", PAGE, re.MULTILINE), f"`{command}` has no row in docs/CONTRACT.md"


def test_every_backend_is_described() -> None:
    # One test, not parametrised: a test id holding "gpu" is taken for a GPU test (conftest).
    for backend in ("gpu", "sim", "emu", "auto"):
        assert re.search(rf"^\| `{backend}` \|", PAGE, re.MULTILINE), backend


@pytest.mark.parametrize(
    "status",
    [
        errors.EXIT_OK,
        errors.EXIT_CHECK_FAILED,
        errors.EXIT_USAGE,
        errors.EXIT_REJECTED,
        errors.EXIT_TOO_LARGE,
        errors.EXIT_NOT_AVAILABLE,
        errors.EXIT_TIME_LIMIT,
        errors.EXIT_INTERRUPTED,
    ],
)
def test_every_exit_status_is_explained(status: int) -> None:
    assert re.search(rf"^\| {status} \| \S", PAGE, re.MULTILINE)


@pytest.mark.skipif(not SHARED.is_file(), reason="the shared contract is not beside this checkout")
def test_every_object_name_of_the_shared_contract_is_on_the_page() -> None:
    names = set(re.findall(r"`([a-z][A-Za-z]+)`", SHARED.read_text(encoding="utf-8")))
    widgets = {
        n
        for n in names
        if re.fullmatch(
            r"(grid|block|kernel|vecadd|lesson|run|color|index|thread|backend|launch|schedule|occupancy)[A-Z]\w*|runButton|colorBy|indexMap",
            n,
        )
    }
    assert len(widgets) > 30  # the table was found
    missing = sorted(n for n in widgets if f"`{n}`" not in PAGE and n[:-1] + "X`" not in PAGE)
    assert not missing, f"objectNames missing from docs/CONTRACT.md: {missing}"
